"""replay: run a fixed sequence of dense operations, on the GPU as a replayed CUDA graph.

Blocked and recursive closures issue hundreds of small block operations whose host
cost (a Python call and a launch each) exceeds their GPU time at small and mid n. A
sequence that depends only on the shapes (never on values read back to the host)
can be captured once into a CUDA graph and replayed at about a microsecond a node
(``kleene/backends/cuda/graphs.py``).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable

import numpy as np

from kleene.backends import backend, cupy_module, gpu_available
from kleene.core import access
from kleene.core.checks import same_device
from kleene.core.matrix import Matrix
from kleene.errors import DimensionMismatch, InvalidValue

from .closure import _full_dense

# per thread: .handed, (key, weak reference to the entry) replay_buffers gave out last
# (weak: release_replays must free the buffers)
_local = threading.local()


def replay(
    key: Hashable, fn: Callable[..., None], *matrices: Matrix, scratch: int = 0
) -> tuple[Matrix, ...]:
    """Run ``fn(*matrices)``, which updates full dense matrices in place, and return
    the matrices that hold the result. ``scratch``: bytes the largest of ``fn``'s
    steps takes as scratch (:func:`product_scratch`), reserved up front in a capture
    so that the captured steps' scratch never grows by doubling.

    On the CPU, or when graphs are off or the matrices too big to keep a copy of,
    ``fn`` runs on ``matrices`` and they are returned. On the GPU otherwise the
    first call for ``key`` and these shapes and dtypes captures ``fn``'s device
    work into a CUDA graph over buffers that the cache owns; every call copies
    ``matrices`` into those buffers, launches the graph and returns matrices over
    the buffers: copy the result out before the next call with the same key
    reuses them. ``fn`` must issue the same work whatever the values are (no reads
    back to the host, no host decisions on data); replayed, it is not called at
    all, so a host side effect in it (progress) happens only on the calls that run
    it. ``KLEENE_CUDA_GRAPHS=0`` turns graphs off; :func:`release_replays` frees
    what the cache holds.

    Example
    -------
    >>> import numpy as np, kleene
    >>> D = kleene.Matrix.from_dense(np.array([[0.0, 4.0], [1.0, 0.0]]), missing=None)
    >>> (R,) = kleene.engine.replay("demo", lambda m: kleene.closure(m, out=m), D)
    >>> R.to_dense().tolist()
    [[0.0, 4.0], [1.0, 0.0]]
    """
    entry = _handed(key, matrices)
    if entry is not None:  # replay_buffers' own matrices: checked when made
        graphs = _cuda().graphs
        held = matrices
    else:
        for i, m in enumerate(matrices):
            _full_dense("replay", f"matrices[{i}]", m)
        xp = same_device("replay", **{f"m{i}": m for i, m in enumerate(matrices)})
        if xp is np:
            fn(*matrices)
            return matrices
        graphs = _cuda().graphs
        specs = [(m.shape, m.dtype) for m in matrices]
        if not graphs.fits(specs):
            fn(*matrices)
            return matrices
        entry = graphs.entry(key, specs)
        if entry is None:  # other threads' graphs fill the cache
            fn(*matrices)
            return matrices
        held = _held(entry)
    for src, dst in zip(matrices, held, strict=True):
        if src is not dst:  # filled in place (replay_buffers): nothing to copy
            access.values(dst)[...] = access.values(src)
        access.touched(dst)

    def step(*mats):
        graphs.reserve(scratch)
        fn(*mats)

    if graphs.run(entry, step, held, intact=lambda: _over_buffers(entry, held)) == "failed":
        held = _held(entry)  # a failed capture may have re-pointed them; the data is there
        fn(*held)
    for m in held:
        access.touched(m)
    return held


def replay_buffers(key: Hashable, specs, xp) -> tuple[tuple, tuple[Matrix, ...]]:
    """(arrays, matrices): full dense matrices of the given [(shape, dtype), ...] to
    fill in place (through ``arrays``) before ``replay(key, fn, *matrices)``, which
    then copies nothing in. On the GPU with graphs, the cache's own buffers for
    ``key`` (contents undefined until filled; copy results out before the next
    call); otherwise new ones. Saves a copy and, at the peak, one n² array.

    Example
    -------
    >>> import numpy as np, kleene
    >>> (a,), (D,) = kleene.engine.replay_buffers("demo", [((2, 2), np.float64)], np)
    >>> a[...] = [[0.0, 4.0], [1.0, 0.0]]
    >>> kleene.engine.replay("demo", lambda m: kleene.closure(m, out=m), D)[0].to_dense()[0, 1]
    np.float64(4.0)
    """
    specs = [(tuple(int(s) for s in shape), np.dtype(dtype)) for shape, dtype in specs]
    if xp is not np:
        graphs = _cuda().graphs
        entry = graphs.entry(key, specs) if graphs.fits(specs) else None
        if entry is not None:
            held = _held(entry)
            _local.handed = (key, weakref.ref(entry))
            return tuple(entry.arrays), held
    arrays = tuple(xp.empty(shape, dtype=dtype) for shape, dtype in specs)
    return arrays, tuple(access.from_bitmap(Matrix, xp, a) for a in arrays)


def _handed(key: Hashable, matrices: tuple[Matrix, ...]):
    """The graph entry whose matrices ``replay_buffers(key, ...)`` last gave this thread,
    if ``matrices`` are those very matrices, still over its buffers, and the entry is
    still cached: replay then skips the checks and lookups they passed when made
    (host time that a replayed closure would otherwise spend on every call)."""
    handed = getattr(_local, "handed", None)
    if handed is None or handed[0] != key:
        return None
    entry = handed[1]()
    mats = None if entry is None else entry.matrices
    if mats is None or len(mats) != len(matrices):
        return None
    for a, b in zip(mats, matrices, strict=True):
        if a is not b or b.format != "dense" or access.present(b) is not None:
            return None
    graphs = _cuda().graphs
    return entry if _over_buffers(entry, mats) and graphs.current(entry) else None


def _held(entry) -> tuple[Matrix, ...]:
    """Matrices over the entry's buffers (the graph's pointers are theirs), made again
    if an eager run's ``out=`` op has since swapped one's array for a new one."""
    if entry.matrices is None or not _over_buffers(entry, entry.matrices):
        import cupy

        entry.matrices = tuple(access.from_bitmap(Matrix, cupy, a) for a in entry.arrays)
    return entry.matrices


def _over_buffers(entry, matrices) -> bool:
    """Whether ``matrices`` still hold the entry's own buffers."""
    return all(
        access.values(m).data.ptr == a.data.ptr for m, a in zip(matrices, entry.arrays, strict=True)
    )


def release_replays() -> None:
    """Free the buffers, pools and graphs :func:`replay` keeps on the GPU (no-op on
    a machine without one).

    >>> import kleene
    >>> kleene.engine.release_replays()
    """
    if gpu_available():
        _cuda().graphs.release()


def replay_bytes() -> int:
    """Device bytes :func:`replay`'s cache holds now (buffers and captured temporaries).

    >>> import kleene
    >>> kleene.engine.replay_bytes() >= 0
    True
    """
    if not gpu_available():
        return 0
    return _cuda().graphs.held_bytes()


def product_scratch(semiring, dtype, m: int, n: int, k: int, xp) -> int:
    """Device scratch bytes the back end's dense product C ⊕= A ⊗ B of (m × k)·(k × n)
    takes: the int8 tensor-core path's Bᵀ chunk and int32 band for (or, and) on bool
    on the GPU (``kleene/backends/cuda/boolean_mma.py``), else 0. What :func:`replay`'s
    ``scratch`` reserves for a closure whose largest product this is.

    >>> import numpy as np, kleene
    >>> kleene.engine.product_scratch("lor_land", bool, 64, 64, 64, np)
    0
    """
    from kleene.semiring import get_semiring

    if xp is np:
        return 0
    boolean_mma = _cuda().boolean_mma
    sr = get_semiring(semiring) if isinstance(semiring, str) else semiring
    if not (boolean_mma.enabled() and boolean_mma.is_or_and(sr) and np.dtype(dtype) == np.bool_):
        return 0
    return boolean_mma.scratch_bytes(m, n, k)


def take_square(A: Matrix, idx):
    """The array R[i, j] = A[idx[i], idx[j]] (n = len(idx); repeats allowed) of a full
    dense square Matrix, on A's device: one fused gather on the GPU
    (``kleene/backends/cuda/gather.py``), NumPy indexing on the CPU. How a closure over
    strongly connected components is expanded back to the vertices.

    >>> import numpy as np, kleene
    >>> C = kleene.Matrix.from_dense(np.array([[1, 2], [3, 4]]), missing=None)
    >>> kleene.engine.take_square(C, np.array([1, 0, 1])).tolist()
    [[4, 3, 4], [2, 1, 2], [4, 3, 4]]
    """
    _full_dense("take_square", "A", A)
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"take_square: A must be square, got shape {A.shape}")
    xp = A.xp
    idx = xp.asarray(idx)
    if idx.ndim != 1 or (idx.size and (int(idx.min()) < 0 or int(idx.max()) >= A.nrows)):
        raise InvalidValue(f"take_square: idx must be 1-D with entries in [0, {A.nrows})")
    if xp is np:
        return access.values(A)[np.ix_(idx, idx)]
    gather_square = _cuda().gather_square
    return gather_square(access.values(A), idx.astype(xp.int32))


def _cuda():
    """The CUDA back end (replays and their buffers exist only there)."""
    return backend(cupy_module())
