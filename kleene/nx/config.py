"""The backend's settings: ``nx.config.backends.kleene`` (defaults in ``DEFAULT_CONFIG``)."""

from __future__ import annotations

from _kleene_nx import DEFAULT_CONFIG  # one copy: NetworkX reads it from there
from kleene.errors import InvalidValue

DEVICES = ("cpu", "gpu")


def _config():
    try:
        import networkx as nx

        return nx.config.backends.kleene
    except (ImportError, AttributeError):
        return None


def get(key: str):
    cfg = _config()
    if cfg is None:
        return DEFAULT_CONFIG[key]
    try:
        return cfg[key]
    except (KeyError, AttributeError):
        return DEFAULT_CONFIG[key]


def device() -> str:
    """The configured device, checked: "cpu" or "gpu"."""
    dev = str(get("device")).lower()
    if dev not in DEVICES:
        raise InvalidValue(f"nx.config.backends.kleene.device must be 'cpu' or 'gpu', got {dev!r}")
    return dev
