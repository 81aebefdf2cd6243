"""kleene as a NetworkX backend: entry points, dispatching, and NetworkX's own tests.

``test_networkx_test_suite_through_kleene`` runs NetworkX's tests of the modules
kleene implements in a child process with every dispatchable call sent to
kleene (``NETWORKX_TEST_BACKEND=kleene``; functions kleene lacks, or arguments
it refuses in ``can_run``, run in NetworkX: ``NETWORKX_FALLBACK_TO_NX``). Tests
that cannot pass are listed, with reasons, in ``kleene.nx.xfails.XFAIL``.
The entry points exist only when kleene is installed (``pip install -e .``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from importlib.metadata import entry_points
from types import SimpleNamespace

import pytest

nx = pytest.importorskip("networkx")

from kleene.nx import get_info  # noqa: E402
from kleene.nx.graph import KleeneGraph, convert_from_nx, convert_to_nx  # noqa: E402
from kleene.nx.interface import FUNCTIONS, backend_interface  # noqa: E402
from kleene.nx.xfails import XFAIL  # noqa: E402

NX_TEST_MODULES = (
    "networkx.algorithms.shortest_paths",
    "networkx.algorithms.traversal",
    "networkx.algorithms.tests.test_dag",
)

INSTALLED = any(ep.name == "kleene" for ep in entry_points(group="networkx.backends"))
needs_install = pytest.mark.skipif(
    not INSTALLED, reason="kleene's networkx entry points need `pip install -e .`"
)


@needs_install
def test_networkx_test_suite_through_kleene():
    env = dict(os.environ, NETWORKX_TEST_BACKEND="kleene", NETWORKX_FALLBACK_TO_NX="True")
    env.pop("PYTEST_ADDOPTS", None)
    cmd = [sys.executable, "-m", "pytest", "--pyargs", *NX_TEST_MODULES, "-q",
           "-p", "no:cacheprovider", "-p", "no:randomly", "-o", "addopts=", "-rfE"]  # fmt: skip
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd="/")
    took = time.perf_counter() - start
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-6000:]
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|xfailed|xpassed|error)", out)}
    assert counts.get("passed", 0) > 250 and not counts.get("failed"), out[-3000:]
    print(f"networkx tests through kleene: {counts} in {took:.1f} s")


@needs_install
def test_entry_points_and_config():
    assert nx.utils.backends.backend_info["kleene"]["backend_name"] == "kleene"
    assert nx.config.backends.kleene.device == "cpu"
    G = nx.path_graph(["a", "b", "c"])
    G.__networkx_cache__ = None  # convert on every call (no cache warning)
    assert nx.shortest_path(G, "a", "c", backend="kleene") == ["a", "b", "c"]
    KG = nx.utils.backends._load_backend("kleene").convert_from_nx(G)
    # a kleene graph dispatches to kleene by itself
    assert nx.single_source_shortest_path_length(KG, "a") == {"a": 0, "b": 1, "c": 2}
    with pytest.raises(nx.NodeNotFound):
        nx.shortest_path(G, "a", "z", backend="kleene")
    # callable weights: kleene refuses; with backend="kleene" that is an error
    with pytest.raises(NotImplementedError, match="kleene"):
        nx.dijkstra_path(G, "a", "c", weight=lambda u, v, d: 1, backend="kleene")
    try:
        nx.config.backends.kleene.device = "tpu"
        assert "device" in backend_interface.can_run("bfs_edges", (G, "a"), {})
    finally:
        nx.config.backends.kleene.device = "cpu"


def test_backend_info_lists_every_function():
    info = get_info()
    assert set(info["functions"]) == set(FUNCTIONS)
    assert info["default_config"]["device"] == "cpu"
    for name in FUNCTIONS:
        assert callable(getattr(backend_interface, name))
        assert name in dir(nx), name  # each is a NetworkX function of that name


def test_can_run_and_should_run():
    G = nx.path_graph(4)
    assert backend_interface.can_run("shortest_path", (G, 0, 3), {}) is True
    why = backend_interface.can_run("dijkstra_path", (G, 0, 3), {"weight": lambda u, v, d: 1})
    assert isinstance(why, str) and "callable weight" in why
    why = backend_interface.can_run("bfs_edges", (G, 0), {"sort_neighbors": sorted})
    assert isinstance(why, str) and "sort_neighbors" in why
    assert isinstance(backend_interface.can_run("pagerank", (G,), {}), str)
    small = backend_interface.should_run("shortest_path", (G, 0), {})
    assert isinstance(small, str) and "too small" in small
    big = nx.path_graph(20_000)
    assert backend_interface.should_run("shortest_path", (big, 0), {}) is True
    assert backend_interface.should_run("shortest_path", (convert_from_nx(G), 0), {}) is True


def test_conversion_round_trip_keeps_nodes_attributes_and_order():
    G = nx.MultiDiGraph(name="g")
    G.add_node("z", color="red")
    G.add_edge("a", "b", key="k1", weight=3, cost=1.5)
    G.add_edge("a", "b", key="k2", weight=1)
    G.add_edge(("t", 1), "a")
    KG = convert_from_nx(G, edge_attrs={"weight": 1}, preserve_edge_attrs=True,
                         preserve_node_attrs=True, preserve_graph_attrs=True)  # fmt: skip
    assert isinstance(KG, KleeneGraph) and KG.__networkx_backend__ == "kleene"
    assert KG.nodes == list(G) and KG.directed and KG.multigraph
    A = KG.matrix("weight")
    assert A.nvals == 2 and float(A.to_dense()[KG.index["a"], KG.index["b"]]) == 1
    assert KG.arc_weights("cost").tolist() == [1, 1]  # preserved data: any attribute
    H = convert_to_nx(KG)
    assert nx.utils.graphs_equal(H, G)
    assert convert_to_nx(5) == 5
    # without preserved data: structure and the converted weights
    U = convert_from_nx(nx.Graph([(1, 2, {"w": 4})]), edge_attrs={"w": 1})
    assert list(convert_to_nx(U).edges(data=True)) == [(1, 2, {"w": 4})]
    assert convert_from_nx(G, weight="weight").weights["weight"].tolist() == [1, 1]


def test_on_start_tests_marks_listed_xfails(monkeypatch):
    monkeypatch.setitem(XFAIL, "test_x.py::TestA::test_b", "kleene breaks ties differently")

    class Item(SimpleNamespace):
        def add_marker(self, m):
            self.markers.append(m)

    listed = Item(path=SimpleNamespace(name="test_x.py"), nodeid="t/test_x.py::TestA::test_b",
                  name="test_b", markers=[])  # fmt: skip
    other = Item(path=SimpleNamespace(name="test_x.py"), nodeid="t/test_x.py::TestA::test_c",
                 name="test_c", markers=[])  # fmt: skip
    backend_interface.on_start_tests([listed, other])
    assert [m.kwargs["reason"] for m in listed.markers] == ["kleene breaks ties differently"]
    assert other.markers == []
    for key, reason in XFAIL.items():  # the real list: well-formed keys and reasons
        assert ".py::" in key and reason.strip()


def test_gpu_device_config_falls_back_without_gpu():
    from kleene.backends.device import gpu_available

    if gpu_available():
        pytest.skip("a GPU is present")
    try:
        cfg = nx.config.backends.kleene
    except AttributeError:
        pytest.skip("kleene backend not registered with networkx")
    cfg.device = "gpu"
    try:
        why = backend_interface.can_run("bfs_edges", (nx.path_graph(3), 0), {})
        assert isinstance(why, str) and "gpu" in why
    finally:
        cfg.device = "cpu"
