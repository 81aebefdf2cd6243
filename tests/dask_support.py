"""What the Dask test modules share: their two-worker cluster, a random weighted
graph, and a scheduler plugin that says when a worker has left. Imported only after
those modules' ``pytest.importorskip("distributed")``."""

from __future__ import annotations

import threading

import distributed
import numpy as np
import scipy.sparse as sp


def two_workers():
    """A client of a LocalCluster of 2 worker processes × 1 thread (processes start
    in under a second here, so the real thing is tested: blocks and graphs are
    pickled between processes), closed after; for a module fixture to yield from."""
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def graph(n: int, density: float, seed: int, negative: bool = False):
    """A random n × n SciPy CSR graph, weights in steps of 0.1 (from 1, or from 0
    with ``negative`` room for the caller to shift)."""
    rng = np.random.default_rng(seed)
    G = sp.random(n, n, density=density, random_state=rng, format="csr")
    G.data = np.round(G.data * 10, 1) + (0.0 if negative else 1.0)
    return G


class WorkerLeft(distributed.diagnostics.plugin.SchedulerPlugin):
    """An event set when the scheduler removes the worker at ``address``."""

    def __init__(self, address: str):
        self.address, self.gone = address, threading.Event()

    def remove_worker(self, scheduler, worker: str, **kwargs) -> None:
        if worker == self.address:
            self.gone.set()
