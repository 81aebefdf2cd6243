"""What benchmarks/bench_cpu.py measures on: its graph files and sizes, the targets, the
inputs it builds (weighted graphs, RMAT, python-graphblas objects, sources) and the
group class its row groups run in."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpu_harness import Group  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / ".." / "shared" / "data"
GROUPS = (
    "bfs_ny",
    "sssp_ny",
    "sssp_p2p",
    "rmat",
    "apsp_dense",
    "apsp_sparse",
    "closure",
    "primitives",
)
FILES = {
    "ny": "USA-road-NY.pace.gr.xz",
    "p2p": "p2p-Gnutella08.txt",
    "rome": "rome99.gr",
    "facebook": "facebook_combined.txt.gz",
}
NEEDS = {"bfs_ny": ["ny"], "sssp_ny": ["ny"], "sssp_p2p": ["p2p"], "closure": ["p2p"]}
WEIGHT_SEED = 3  # integer weights 1..100 on every stored entry
SOURCE_SEED = 7
MB = 1e6
GB_NOTE = (
    "python-graphblas not importable: its rows are skipped (pip install "
    "python-graphblas to add them; it is not a kleene dependency)"
)

# issue 13's targets: kleene time <= ratio x the baseline's
T_BFS_M, T_BFS_CSR, T_SSSP, T_APSP_SPARSE, T_APSP_DENSE, T_PRIM = 1.5, 2.0, 3.0, 2.0, 1.0, 2.0
T_CLOSURE_S = 15.0
T_CLOSURE_MEM = (3.0, 100 * MB)  # peak <= 3 x result bytes + 100 MB


def sizes(quick: bool) -> dict:
    """Problem sizes: the issue's, or small ones for a smoke run (--quick)."""
    if quick:
        return {
            "ny_vertices": 20_000,
            "rmat_scale": 10,
            "apsp_n": [128, 256],
            "sparse_vertices": 300,
            "p2p_sub": 300,
            "closure_vertices": 1000,
            "mxm_rows": 16,
        }
    return {
        "ny_vertices": None,
        "rmat_scale": 18,
        "apsp_n": [1024, 2048],
        "sparse_vertices": None,
        "p2p_sub": 3000,
        "closure_vertices": None,
        "mxm_rows": 64,
    }


# ---------------------------------------------------------------------------------------
# graphs
# ---------------------------------------------------------------------------------------


def kleene_api():
    import kleene

    return kleene


def induced_subgraph(G, k):
    """The subgraph induced by vertices 0..k-1 (all of G when k is None or >= n)."""
    if k is None or k >= G.nrows:
        return G
    return kleene_api().Matrix.from_scipy(G.to_scipy()[:k, :k].tocsr())


def with_weights(G, seed=WEIGHT_SEED):
    """G's pattern with float64 integer weights 1..100 (seeded), one per stored entry."""
    r, c, _ = G.to_coo()
    w = np.random.default_rng(seed).integers(1, 101, r.size).astype(np.float64)
    return kleene_api().Matrix.from_edges(r, c, w, G.nrows)


def read_graph(data: Path, key: str, **kw):
    return kleene_api().io.read(data / FILES[key], **kw)


def rmat_graph(scale: int, scratch: str | None):
    """Symmetric RMAT (Graph500 parameters, edge factor 16, seed 1), float64 weights 1..100
    (one per drawn edge, both directions; duplicates merged by min): a kleene Matrix.

    Saved under ``scratch`` by the first group that builds it, loaded by the next."""
    kleene = kleene_api()
    cache = Path(scratch) / f"rmat{scale}.npz" if scratch else None
    if cache is not None and cache.exists():
        import scipy.sparse as sp

        return kleene.Matrix.from_scipy(sp.load_npz(cache))
    from kleene.generators import rmat

    src, dst = rmat(scale, 16, seed=1)
    w = np.random.default_rng(WEIGHT_SEED).integers(1, 101, src.size).astype(np.float64)
    src, dst, w = np.concatenate([src, dst]), np.concatenate([dst, src]), np.concatenate([w, w])
    A = kleene.Matrix.from_edges(src, dst, w, 1 << scale, dup="min")
    if cache is not None:
        import scipy.sparse as sp

        sp.save_npz(cache, A.to_scipy(), compressed=False)
    return A


def graphblas_or_none():
    try:
        import graphblas as gb
    except ImportError:
        return None
    return gb


def gb_matrix(gb, S):
    c = S.tocoo()
    return gb.Matrix.from_coo(
        c.row,
        c.col,
        c.data.astype(np.float64),
        nrows=S.shape[0],
        ncols=S.shape[1],
        dup_op=gb.binary.min,
    )


def gb_vector(gb, idx, vals, n, dtype=np.float64):
    return gb.Vector.from_coo(np.asarray(idx, np.int64), np.asarray(vals, dtype), size=n)


def gb_dense(v, n, missing):
    out = np.full(n, missing, dtype=np.float64)
    i, x = v.to_coo()
    out[i] = x
    return out


def pick_sources(S, k, seed=SOURCE_SEED):
    deg = np.diff(S.indptr)
    return np.random.default_rng(seed).choice(np.flatnonzero(deg > 0), k, replace=False)


# ---------------------------------------------------------------------------------------
# a group of this benchmark, and the rows' checks (inside the group's subprocess)
# ---------------------------------------------------------------------------------------


class CpuGroup(Group):
    """A ``Group`` with this benchmark's sizes, python-graphblas (or None) and data files."""

    def __init__(self, name: str, args):
        super().__init__(name, args)
        self.size = sizes(args.quick)
        self.gb = graphblas_or_none()

    def missing(self) -> list[str]:
        return [FILES[k] for k in NEEDS.get(self.name, []) if not (self.data / FILES[k]).exists()]
