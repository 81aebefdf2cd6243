"""Errors name the problem: shapes, dtypes, NaN, devices, indices, unknown names."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp

import kleene


def _m(shape, dtype=np.float64, backend="cpu", value=1):
    a = np.full(shape, value, dtype=dtype)
    return kleene.Matrix.from_dense(a, missing=None).to(backend)


def _v(n, dtype=np.float64, backend="cpu", value=1):
    return kleene.Vector.from_dense(np.full(n, value, dtype=dtype), missing=None).to(backend)


def _names_both(exc, *parts):
    msg = str(exc.value)
    for p in parts:
        assert p in msg, f"{p!r} not named in: {msg}"


# ---- shapes --------------------------------------------------------------------------


def test_mxm_inner_dimension(backend):
    with pytest.raises(ValueError) as e:
        kleene.mxm(_m((2, 3), backend=backend), _m((4, 2), backend=backend), "min_plus")
    _names_both(e, "(2, 3)", "(4, 2)")


def test_mxv_vxm_shapes(backend):
    A = _m((2, 3), backend=backend)
    with pytest.raises(ValueError) as e:
        kleene.mxv(A, _v(2, backend=backend), "min_plus")
    _names_both(e, "(2, 3)", "2")
    with pytest.raises(ValueError) as e:
        kleene.vxm(_v(3, backend=backend), A, "min_plus")
    _names_both(e, "(2, 3)", "3")


@pytest.mark.parametrize("op", [kleene.ewise_add, kleene.ewise_mult])
def test_ewise_shapes(backend, op):
    with pytest.raises(ValueError) as e:
        op(_m((2, 3), backend=backend), _m((3, 2), backend=backend), "plus")
    _names_both(e, "(2, 3)", "(3, 2)")


def test_mask_shape(backend):
    A = _m((2, 2), backend=backend)
    M = _m((3, 3), np.bool_, backend=backend, value=True)
    with pytest.raises(ValueError) as e:
        kleene.mxm(A, A, "min_plus", mask=M.S)
    _names_both(e, "(3, 3)", "(2, 2)")


def test_out_shape(backend):
    A = _m((2, 2), backend=backend)
    with pytest.raises(ValueError) as e:
        kleene.mxm(A, A, "min_plus", out=_m((2, 3), backend=backend))
    _names_both(e, "(2, 3)", "(2, 2)")


def test_assign_value_shape(backend):
    C = _m((3, 3), backend=backend)
    with pytest.raises(ValueError) as e:
        kleene.assign(C, _m((2, 2), backend=backend), [0, 1, 2], [0, 1])
    _names_both(e, "(2, 2)", "(3, 2)")


# ---- dtypes ---------------------------------------------------------------------------


def test_mxm_dtype_mismatch(backend):
    with pytest.raises(TypeError) as e:
        kleene.mxm(_m((2, 2), backend=backend), _m((2, 2), np.int32, backend), "min_plus")
    _names_both(e, "float64", "int32")


def test_ewise_dtype_mismatch(backend):
    with pytest.raises(TypeError) as e:
        kleene.ewise_add(_v(2, np.int64, backend), _v(2, np.float32, backend), "plus")
    _names_both(e, "int64", "float32")


@pytest.mark.parametrize(
    "name,dtype", [("min_plus", np.bool_), ("lor_land", np.float64), ("max_times", np.int32)]
)
def test_semiring_not_defined_for_dtype(backend, name, dtype):
    A = _m((2, 2), dtype, backend)
    with pytest.raises(TypeError) as e:
        kleene.mxm(A, A, name)
    _names_both(e, name, str(np.dtype(dtype)))


def test_out_dtype_unsafe_cast(backend):
    A = _m((2, 2), backend=backend)
    with pytest.raises(TypeError) as e:
        kleene.mxm(A, A, "min_plus", out=_m((2, 2), np.int32, backend))
    _names_both(e, "float64", "int32")


@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.complex128])
def test_unsupported_dtype(dtype):
    with pytest.raises(TypeError, match=re.escape(str(np.dtype(dtype)))):
        kleene.Matrix.from_dense(np.ones((2, 2), dtype=dtype), missing=None)


# ---- NaN ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["min_plus", "max_plus", "max_min", "min_max"])
def test_nan_rejected_by_tropical_semirings(backend, name):
    a = np.array([[1.0, np.nan], [np.inf, 0.0]])
    A = kleene.Matrix.from_dense(a).to(backend)
    u = _v(2, backend=backend)
    for call in (
        lambda: kleene.mxm(A, A, name),
        lambda: kleene.mxv(A, u, name),
        lambda: kleene.vxm(u, A, name),
    ):
        with pytest.raises(ValueError, match="NaN"):
            call()


def test_nan_allowed_where_the_semiring_accepts_it(backend):
    a = np.array([[np.nan]])
    A = kleene.Matrix.from_dense(a, missing=None).to(backend)
    got = kleene.mxm(A, A, "plus_times").to("cpu").to_dense()
    assert np.isnan(got[0, 0])


# ---- devices --------------------------------------------------------------------------


@pytest.mark.gpu
def test_cpu_gpu_mix_is_refused():
    # (not ``from conftest import``: tests/csgraph has a conftest of its own, and under
    # xdist the module named "conftest" may be that one)
    if not kleene.gpu_available():
        pytest.skip("no GPU: cupy is not importable or sees no CUDA GPU")
    A = _m((2, 2))
    G = A.to("gpu")
    cases = [
        lambda: kleene.mxm(A, G, "min_plus"),
        lambda: kleene.mxv(G, _v(2), "min_plus"),
        lambda: kleene.ewise_add(A, G, "plus"),
        lambda: kleene.mxm(A, A, "min_plus", mask=G.S),
        lambda: kleene.mxm(A, A, "min_plus", out=G.dup()),
        lambda: kleene.assign(A, G, [0, 1], [0, 1]),
    ]
    for call in cases:
        with pytest.raises(ValueError, match="cpu") as e:
            call()
        assert "gpu" in str(e.value)
    assert A.device == "cpu" and G.device == "gpu"  # nothing was copied


def test_unknown_device():
    with pytest.raises(ValueError, match="tpu"):
        _m((1, 1)).to("tpu")


# ---- indices, names, arguments --------------------------------------------------------------


def test_index_out_of_range(backend):
    A = _m((2, 3), backend=backend)
    with pytest.raises(IndexError, match="3"):
        kleene.extract(A, [0], [3])
    with pytest.raises(IndexError, match="5"):
        kleene.assign(_v(4, backend=backend), 1.0, [5])
    with pytest.raises(IndexError, match="7"):
        kleene.Matrix.from_edges([0, 7], [1, 1], [1.0, 1.0], n=3)
    with pytest.raises(IndexError):
        kleene.Vector.from_coo([-1], [1.0], 3)


def test_assign_repeated_indices(backend):
    with pytest.raises(ValueError, match="repeated"):
        kleene.assign(_v(4, backend=backend), 1.0, [1, 1])


def test_edge_list_lengths():
    with pytest.raises(ValueError, match="2.*3|3.*2"):
        kleene.Matrix.from_edges([0, 1], [1, 2, 0])
    with pytest.raises(ValueError):
        kleene.Matrix.from_edges([0, 1], [1, 2], [1.0, 2.0, 3.0])


def test_duplicates_rejected_with_dup_none():
    with pytest.raises(ValueError, match="duplicate"):
        kleene.Matrix.from_edges([0, 0], [1, 1], [1.0, 2.0], dup=None)


def test_unknown_names(backend):
    A = _m((2, 2), backend=backend)
    with pytest.raises(ValueError, match="min_plus"):  # lists the built-ins
        kleene.mxm(A, A, "min_pluss")
    with pytest.raises(ValueError, match="nosuchop"):
        kleene.ewise_add(A, A, "nosuchop")
    with pytest.raises(ValueError, match="nosuch"):
        kleene.select(A, "nosuch")


def test_bad_arguments(backend):
    A = _m((2, 2), backend=backend)
    u = _v(2, backend=backend)
    with pytest.raises(ValueError, match="axis"):
        kleene.reduce(A, "min", axis=2)
    with pytest.raises(ValueError):
        kleene.reduce(u, "min", axis=0)
    with pytest.raises(ValueError, match="'plus'"):  # a binary op needs left= or right=
        kleene.apply(A, "plus")
    with pytest.raises(ValueError, match="left= or right="):
        kleene.apply(A, kleene.binary.plus)
    with pytest.raises(ValueError, match="method"):
        kleene.mxv(A, u, "min_plus", method="sideways")
    with pytest.raises(TypeError):
        kleene.mxm(A, u, "min_plus")


@pytest.mark.parametrize("opname", ["mxm", "ewise_add", "apply"])
def test_mask_of_wrong_type(backend, opname):
    # as_mask's TypeError is meant to say what a mask may be; the device check must
    # not trip over the non-container first (an AttributeError).
    A = _m((2, 2), backend=backend)
    call = {
        "mxm": lambda: kleene.mxm(A, A, "min_plus", mask="yes"),
        "ewise_add": lambda: kleene.ewise_add(A, A, "plus", mask="yes"),
        "apply": lambda: kleene.apply(A, "abs", mask="yes"),
    }[opname]
    with pytest.raises(TypeError, match="mask"):
        call()


def test_constructor_and_shape_errors():
    with pytest.raises(TypeError, match="from_dense"):
        kleene.Matrix()
    with pytest.raises(ValueError, match="2-D"):
        kleene.Matrix.from_dense(np.ones(3))
    with pytest.raises(ValueError, match="1-D"):
        kleene.Vector.from_dense(np.ones((2, 2)))
    with pytest.raises(ValueError, match="non-negative"):
        kleene.Matrix.empty((-1, 2))
    with pytest.raises(ValueError, match="format"):
        kleene.Matrix.empty((1, 1), format="coo")
    with pytest.raises(ValueError, match="CSR"):
        kleene.Matrix.from_csr([0, 2], [0], [1.0], (1, 2))


# ---- apsp / transitive_closure: arguments and memory ---------------------------------


@pytest.mark.parametrize("method", ["blocked", "recursive"])
@pytest.mark.parametrize("block", [0, -4, 2.5, True, "64", np.int64(0)])
def test_apsp_block_size_is_checked(method, block):
    G = np.array([[0.0, 1.0], [np.inf, 0.0]])
    with pytest.raises(
        ValueError, match=re.escape(f"block_size must be a positive integer, got {block!r}")
    ):
        kleene.apsp(G, method=method, block_size=block)


def test_apsp_block_size_accepts_integers():
    G = np.array([[0.0, 1.0, np.inf], [np.inf, 0.0, 2.0], [np.inf, np.inf, 0.0]])
    for block in (1, 2, np.int32(2), 500):
        assert kleene.apsp(G, method="blocked", block_size=block)[0, 2] == 3.0


_N = 20_000  # an n×n float64 result is 3 GiB: more than the 1 GiB the tests pretend is free


@pytest.fixture
def small_machine(monkeypatch):
    """1 GiB of free host memory, as far as apsp can tell."""
    monkeypatch.setattr("kleene.algorithms.apsp_memory.host_memory_free", lambda: 2**30)


def _path_graph(n):
    import scipy.sparse as sp

    return sp.csr_matrix((np.ones(n - 1), (np.arange(n - 1), np.arange(1, n))), shape=(n, n))


def _peak_bytes(fn):
    import tracemalloc

    tracemalloc.start()
    try:
        fn()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


@pytest.mark.parametrize(
    "method", ["auto", "floyd-warshall", "blocked", "recursive", "repeated-sssp", "johnson"]
)
@pytest.mark.parametrize("preds", [False, True])
def test_apsp_too_large_says_what_fits_before_allocating(small_machine, method, preds):
    G = _path_graph(_N)

    def call():
        with pytest.raises(MemoryError) as e:
            kleene.apsp(G, method=method, return_predecessors=preds)
        msg = str(e.value)
        assert msg.startswith("apsp: ") and f"{_N}×{_N}" in msg
        assert re.search(r"needs about [\d,.]+ GiB of host memory", msg), msg
        budget = r"1\.0 GiB is free and 80% \(0\.8 GiB\) may be used; up to about n=\d+ fits"
        assert re.search(budget, msg), msg
        assert "Unable to allocate" not in msg

    assert _peak_bytes(call) < 64 * 2**20  # checked before anything n×n was made


def test_transitive_closure_too_large(small_machine):
    with pytest.raises(MemoryError) as e:
        kleene.transitive_closure(_path_graph(40_000))
    msg = str(e.value)
    assert msg.startswith("transitive_closure: ") and "GiB" in msg
    fit = int(re.search(r"up to about n=(\d+) fits", msg).group(1))
    assert "repeated-sssp" not in msg  # no sparse method computes a closure
    assert 1000 < fit < 40_000
    R = kleene.transitive_closure(_path_graph(300))  # well under it: runs
    assert R[0, -1] and not R[-1, 0]


def test_largest_n_that_fits_is_true(small_machine):
    from kleene.algorithms.apsp_memory import check_fits

    for method in ("recursive", "repeated-sssp"):
        for preds in (False, True):
            fit = check_fits(1, np.float64, preds, np, method=method).largest_n()
            assert check_fits(fit, np.float64, preds, np, method=method).fits()
            with pytest.raises(MemoryError, match=f"up to about n={fit} fits"):
                check_fits(fit + 1, np.float64, preds, np, method=method)


def test_out_of_core_extra_is_counted_only_for_the_message(small_machine):
    # apsp passes the out-of-core extra bytes as a callable: counting a dense GPU
    # matrix's edges is a pass and a sync, wanted only when the check fails.
    from kleene.algorithms.apsp_memory import check_fits

    calls = []

    def extra():
        calls.append(1)
        return 10**15  # more host memory than any machine: the memmap hint

    assert check_fits(10, np.float64, False, np, out_of_core=True, out_of_core_extra=extra).fits()
    assert not calls
    with pytest.raises(MemoryError, match="out=numpy.memmap"):
        check_fits(10**6, np.float64, False, np, out_of_core=True, out_of_core_extra=extra)
    assert calls == [1]


def test_allocation_failure_inside_apsp_says_what_fits(monkeypatch):
    def no_memory(*args):
        raise MemoryError("Unable to allocate 3.0 GiB for an array")

    monkeypatch.setattr("kleene.algorithms.apsp_dense.recursive", no_memory)
    with pytest.raises(MemoryError, match=r"apsp: ran out of host memory: .* up to about n=\d+"):
        kleene.apsp(np.zeros((4, 4)), method="recursive")


NEG_CYCLE = sp.csr_matrix(([1.0, -3.0, 1.0], ([0, 1, 2], [1, 2, 0])), shape=(4, 4))


@pytest.mark.parametrize(
    "method",
    ["auto", "johnson", "repeated-sssp", "floyd-warshall", "blocked", "recursive", "out of core"],
)
def test_apsp_negative_cycle_names_apsp_not_a_source(method):
    kw = {"memory_limit": 1 << 12} if method == "out of core" else {"method": method}
    with pytest.raises(kleene.NegativeCycleError) as err:
        kleene.apsp(NEG_CYCLE, **kw)
    msg = str(err.value)
    assert msg.startswith("apsp: the graph has a negative cycle"), msg
    assert "sssp" not in msg and "source" not in msg


@pytest.mark.parametrize("source, where", [(0, "the source"), ([0, 3], "a source")])
def test_sssp_negative_cycle_names_sssp_and_its_sources(source, where):
    with pytest.raises(kleene.NegativeCycleError, match=f"^sssp: .* reachable from {where}$"):
        kleene.sssp(NEG_CYCLE, source)
