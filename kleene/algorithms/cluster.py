"""Where ``client=`` goes: the runners a cluster front end registers.

The algorithms never import a front end. ``kleene.apsp``, ``kleene.bfs`` and
``kleene.sssp`` given a ``client`` ask :func:`cluster_runner` for the function
that runs them on it; a front end (``kleene.distributed``, on Dask) fills the
table with :func:`register_cluster_runner` when it is imported, and the package
root registers a loader that imports it on the first such call, so ``import
kleene`` never imports Dask.

Example
-------
>>> register_cluster_runner("doc-example", lambda client, G: ("ran on", client))
>>> cluster_runner("doc-example")("a client", None)
('ran on', 'a client')
>>> _RUNNERS.pop("doc-example") is not None
True
"""

from __future__ import annotations

from collections.abc import Callable

from kleene.errors import InvalidValue

_RUNNERS: dict[str, Callable] = {}
_LOADERS: list[Callable[[], object]] = []


def register_cluster_runner(kind: str, fn: Callable) -> None:
    """Run ``kind`` ("apsp", "bfs", "sssp") with ``fn(client, G, ...)`` when a call
    passes ``client=``; a later registration replaces an earlier one."""
    _RUNNERS[kind] = fn


def register_cluster_loader(load: Callable[[], object]) -> None:
    """``load()`` is called the first time a runner is asked for and none is
    registered: it imports the front end, which registers its runners."""
    if load not in _LOADERS:
        _LOADERS.append(load)


def cluster_runner(kind: str) -> Callable:
    """The registered runner for ``kind``, loading the front ends first if none is.
    An error a loader raises (a missing optional dependency) propagates."""
    if kind not in _RUNNERS:
        for load in list(_LOADERS):
            load()
    if kind not in _RUNNERS:
        raise InvalidValue(
            f"{kind}: client= needs a cluster front end such as kleene.distributed; none "
            "is registered"
        )
    return _RUNNERS[kind]
