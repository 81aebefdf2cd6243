"""kleene on Dask: ``kleene.apsp(G, client=client)``, ``kleene.bfs(G, sources, client=client)``,
``kleene.sssp(G, sources, client=client)``.

An optional extra (``pip install 'kleene[dask]'``): ``import kleene`` never imports
this package or Dask. Importing it registers its runners with
``kleene.algorithms.register_cluster_runner``; the package root imports it the
first time a public function is given a ``client``.

- :func:`apsp_on_dask`: the blocked closure (Katz & Kider's blocked Floyd-Warshall)
  over a 2-D grid of blocks held by the workers, each task run where its output
  block lives (``closure_grid.py``);
- :func:`bfs_on_dask`, :func:`sssp_on_dask`: the graph loaded once on every
  worker, source batches split across them, results gathered in order or left on
  the workers as a dask.array (``sources.py``); :func:`load_graph` keeps a graph
  on the workers for many calls (``loaded_graph.py``);
- :func:`partition_graph`: a graph stored as row blocks, one a worker, no worker
  holding all of it; :func:`bfs_partitioned`, :func:`sssp_partitioned`,
  :func:`pagerank_partitioned` by rounds of frontier exchange (``partitioned.py``);
- :func:`warm`: every worker compiles the kernels a run needs before the first timed
  call (``warm.py``);
- :class:`DistributedError`: a task failed or a worker was lost; no partial result
  is ever returned (``failures.py``).

The work inside each task is kleene's own operations (``closure``,
``mxm_accumulate``, ``bfs``, ``sssp``) on the worker's device: NumPy on CPU
workers, CuPy on workers that see a GPU (``tasks.py``). See docs/scaling.md.
"""

from kleene.algorithms import register_cluster_runner

from .closure_grid import apsp_on_dask, default_block_size, is_dask_array
from .failures import DistributedError
from .loaded_graph import LoadedGraph, load_graph
from .partitioned import (
    PartitionedGraph,
    bfs_partitioned,
    pagerank_partitioned,
    partition_graph,
    sssp_partitioned,
)
from .sources import bfs_on_dask, sssp_on_dask
from .warm import warm

register_cluster_runner("apsp", apsp_on_dask)
register_cluster_runner("bfs", bfs_on_dask)
register_cluster_runner("sssp", sssp_on_dask)

__all__ = [
    "DistributedError",
    "LoadedGraph",
    "PartitionedGraph",
    "apsp_on_dask",
    "bfs_on_dask",
    "bfs_partitioned",
    "default_block_size",
    "is_dask_array",
    "load_graph",
    "pagerank_partitioned",
    "partition_graph",
    "sssp_on_dask",
    "sssp_partitioned",
    "warm",
]
