"""pytest plugin: which calls of NetworkX's own tests kleene computed.

Load it into a run of NetworkX's tests through the backend
(``NETWORKX_TEST_BACKEND=kleene python -m pytest -p nx_dispatch_log --pyargs ...``,
with this folder on ``PYTHONPATH``). It wraps each function of the loaded kleene
backend object (what NetworkX calls once it has converted the graphs), and counts,
per function, the calls kleene answered (a result, or one of NetworkX's errors
raised by kleene) and the tests they happened in; a call kleene declines
(``can_run`` false, or ``NotImplementedError``) never reaches the count. At the end
it prints the table and, with ``KLEENE_NX_DISPATCH_LOG=path``, writes it as JSON.

``KLEENE_NX_FALLBACK=unclaimed`` turns NetworkX's fallback on for the functions
kleene does not implement and off for those it does, whatever
``NETWORKX_FALLBACK_TO_NX`` says: a test may then use ``nx.condensation`` (NetworkX
runs it) while every ``strongly_connected_components`` call it makes must be
computed by kleene, or the test is xfailed by NetworkX with kleene's reason. NetworkX
has no per-function switch, so the plugin passes the flag to the method that runs
calls in its test mode (``_dispatchable._convert_and_call_for_tests``).
"""

from __future__ import annotations

import functools
import inspect
import json
import os
from collections import defaultdict

import pytest

_computed: dict[str, int] = defaultdict(int)  # calls that returned a result
_raised: dict[str, int] = defaultdict(int)  # calls where kleene raised NetworkX's error
_tests: dict[str, set] = defaultdict(set)  # the tests each function was computed in
_ran: set = set()  # tests whose body ran
_current: list = [None]


def _counting(name: str, func):
    @functools.wraps(func)
    def call(*args, **kwargs):
        try:
            result = func(*args, **kwargs)
        except NotImplementedError:
            raise  # declined: NetworkX falls back or xfails the test
        except Exception:
            _raised[name] += 1
            _tests[name].add(_current[0])
            raise
        _computed[name] += 1
        _tests[name].add(_current[0])
        return result

    call.__kleene_counted__ = True
    return call


def _per_function_fallback(claimed: frozenset) -> None:
    from networkx.utils.backends import _dispatchable

    run = _dispatchable._convert_and_call_for_tests
    if "fallback_to_nx" not in inspect.signature(run).parameters:
        raise RuntimeError(
            "NetworkX's _dispatchable._convert_and_call_for_tests takes no fallback_to_nx: "
            "KLEENE_NX_FALLBACK=unclaimed needs updating for this NetworkX"
        )

    @functools.wraps(run)
    def per_function(self, backend_name, args, kwargs, *, fallback_to_nx=False):
        return run(self, backend_name, args, kwargs, fallback_to_nx=self.name not in claimed)

    _dispatchable._convert_and_call_for_tests = per_function


@pytest.hookimpl(trylast=True)  # after NetworkX's conftest has set its test mode up
def pytest_collection_modifyitems(config, items):
    from networkx.utils.backends import _load_backend

    from kleene.nx.interface import FUNCTIONS

    backend = _load_backend("kleene")
    for name in FUNCTIONS:
        func = getattr(backend, name)
        if not getattr(func, "__kleene_counted__", False):
            setattr(backend, name, _counting(name, func))
    if os.environ.get("KLEENE_NX_FALLBACK") == "unclaimed":
        _per_function_fallback(frozenset(FUNCTIONS))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _current[0] = item.nodeid
    yield
    _current[0] = None


def pytest_runtest_logreport(report):
    if report.when == "call":
        _ran.add(report.nodeid)


def summary() -> dict:
    names = sorted(set(_computed) | set(_raised))
    reached = set().union(*_tests.values()) if _tests else set()
    return {
        "functions": {
            n: {"tests": len(_tests[n]), "calls": _computed[n], "raised": _raised[n]} for n in names
        },
        "tests_reaching_kleene": len(reached & _ran),
        "tests_run": len(_ran),
    }


def pytest_terminal_summary(terminalreporter):
    s = summary()
    tr = terminalreporter
    tr.section("calls computed by kleene")
    tr.write_line(f"{'function':<40} {'tests':>6} {'calls':>7} {'raised':>7}")
    for name, c in s["functions"].items():
        tr.write_line(f"{name:<40} {c['tests']:>6} {c['calls']:>7} {c['raised']:>7}")
    tr.write_line(f"tests reaching kleene: {s['tests_reaching_kleene']} of {s['tests_run']}")
    path = os.environ.get("KLEENE_NX_DISPATCH_LOG")
    if path:
        with open(path, "w") as f:
            json.dump(s, f, indent=1, sort_keys=True)
