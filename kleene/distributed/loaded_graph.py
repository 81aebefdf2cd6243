"""A graph loaded once on every Dask worker, for many multi-source BFS / SSSP calls.

``kleene.bfs(G, sources, client=client)`` ships the graph to the workers on every
call; a caller who asks many questions of one graph loads it once instead::

    H = kleene.distributed.load_graph(client, G)   # host CSR → each worker's device
    kleene.sssp(H, sources, client=client)          # no transfer of the graph
    H.release()                                     # (or let H go out of scope)

Each worker keeps the graph as a kleene Matrix on its own device (its GPU, on GPU
workers), so a call costs only its source batches. Where every worker holds it on a
GPU, results left on the workers (``as_dask_array=True``) stay there too, as CuPy
chunks: the rows are computed on the GPUs, and copying a batch's k × n float64 rows
to the worker's host can take longer than the search that made them.
"""

from __future__ import annotations

from kleene.algorithms.graph_input import as_graph

from . import tasks
from .failures import check_client, settle, worker_addresses


class LoadedGraph:
    """A graph held by every worker of ``client`` (see :func:`load_graph`).

    ``n``: vertices; ``directed``: False when the edges were symmetrized on loading;
    ``workers``: the addresses that hold it; ``parts``: {address: future of the
    worker's Matrix}; ``on_device``: every worker holds it on a GPU.
    """

    def __init__(self, client, parts: dict, n: int, directed: bool, on_device: bool = False):
        self.client, self.parts, self.n, self.directed = client, parts, n, directed
        self.on_device = on_device

    @property
    def workers(self) -> list[str]:
        return list(self.parts)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n, self.n)

    def release(self) -> None:
        """Free the workers' copies now (they are also freed when this object goes)."""
        for f in self.parts.values():
            f.release()
        self.parts = {}

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        return f"<kleene LoadedGraph: {self.n} vertices, {kind}, on {len(self.parts)} workers>"


def load_graph(client, G, *, directed: bool = True) -> LoadedGraph:
    """Load ``G`` on every worker of ``client`` once: a :class:`LoadedGraph` for
    ``kleene.bfs`` / ``kleene.sssp`` with ``client=`` (and ``directed`` equal to the
    one given here). ``G`` is any graph those functions take; ``directed=False``
    symmetrizes it first (the lighter of two opposite edges wins).

    >>> import scipy.sparse as sp, kleene, distributed  # doctest: +SKIP
    >>> client = distributed.Client(n_workers=2)  # doctest: +SKIP
    >>> G = sp.csr_matrix(([1.0, 2.0], ([0, 1], [1, 2])), shape=(3, 3))  # doctest: +SKIP
    >>> H = kleene.distributed.load_graph(client, G)  # doctest: +SKIP
    >>> kleene.sssp(H, [0, 1], client=client).tolist()  # doctest: +SKIP
    [[0.0, 1.0, 3.0], [inf, 0.0, 2.0]]
    """
    check_client(client, "load_graph")
    A = as_graph(G, directed=directed).to("cpu").to_scipy()
    workers = worker_addresses(client, "load_graph")
    shipped = client.scatter(A, broadcast=True, hash=False)
    parts = {
        w: client.submit(
            tasks.load_graph,
            f"load_graph on {w}",
            shipped,
            workers=[w],
            allow_other_workers=False,
            pure=False,
        )
        for w in workers
    }
    settle(list(parts.values()), "load_graph", watch=(client, workers))
    del shipped  # each worker now holds its Matrix; the host copies can go
    where = client.gather([client.submit(tasks.device_of, f, pure=False) for f in parts.values()])
    return LoadedGraph(client, parts, A.shape[0], directed, all(d == "gpu" for d in where))
