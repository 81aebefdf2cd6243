"""The reference semantics on hand-worked cases (it is the oracle: check it by hand)."""

from __future__ import annotations

import numpy as np
import pytest

from kleene.semiring import binary, indexunary, monoid, unary
from kleene.testing import reference as ref
from kleene.testing.scalars import OneOf, binary_scalar, fold, same_value

INF = np.inf
I32MAX = np.iinfo(np.int32).max


def M(shape, data, dtype=np.float64):
    return ref.RefMatrix(shape, dtype, data)


def V(size, data, dtype=np.float64):
    return ref.RefVector(size, dtype, data)


def plain(r):
    """Entries as Python values, for readable comparisons."""
    return {k: (v if isinstance(v, OneOf) else v.item()) for k, v in r.data.items()}


# A 3-vertex graph: 0 -> 1 (2), 1 -> 2 (3), 0 -> 2 (7).
G = M((3, 3), {(0, 1): 2, (1, 2): 3, (0, 2): 7})


def test_mxm_min_plus_two_hop():
    assert plain(ref.mxm(G, G, "min_plus")) == {(0, 2): 5.0}


def test_mxm_plus_times_is_matrix_product():
    A = M((2, 2), {(0, 0): 1, (0, 1): 2, (1, 0): 3, (1, 1): 4})
    assert plain(ref.mxm(A, A, "plus_times")) == {
        (0, 0): 7.0,
        (0, 1): 10.0,
        (1, 0): 15.0,
        (1, 1): 22.0,
    }


def test_mxm_only_stored_entries_multiply():
    # plus_times with inf: no absent entry is ever treated as 0, so no 0 * inf = nan.
    A = M((1, 2), {(0, 0): 1})
    B = M((2, 1), {(0, 0): 5, (1, 0): INF})
    assert plain(ref.mxm(A, B, "plus_times")) == {(0, 0): 5.0}


def test_mxm_min_first_and_any_first():
    A = M((1, 2), {(0, 0): 4, (0, 1): 9})
    B = M((2, 1), {(0, 0): 100, (1, 0): 200})
    assert plain(ref.mxm(A, B, "min_first")) == {(0, 0): 4.0}
    assert plain(ref.mxm(A, B, "min_second")) == {(0, 0): 100.0}
    got = ref.mxm(A, B, "any_first").data[(0, 0)]
    assert isinstance(got, OneOf) and got.values == {4.0, 9.0}


def test_mxm_any_pair_is_bool_structure():
    C = ref.mxm(G, G, "any_pair")
    assert C.dtype == np.bool_ and plain(C) == {(0, 2): True}


def test_mxm_int_tropical_saturates():
    A = M((1, 1), {(0, 0): 5}, np.int32)
    B = M((1, 1), {(0, 0): I32MAX}, np.int32)
    assert plain(ref.mxm(A, B, "min_plus")) == {(0, 0): I32MAX}


def test_mxv_and_vxm():
    u = V(3, {0: 0.0})
    assert plain(ref.vxm(u, G, "min_plus")) == {1: 2.0, 2: 7.0}
    w = V(3, {2: 0.0})
    assert plain(ref.mxv(G, w, "min_plus")) == {0: 7.0, 1: 3.0}


def test_vxm_multiplies_u_on_the_left():
    u = V(1, {0: 1.0})
    A = M((1, 1), {(0, 0): 9.0})
    assert plain(ref.vxm(u, A, "min_first")) == {0: 1.0}
    assert plain(ref.mxv(A, u, "min_first")) == {0: 9.0}


def test_ewise_add_and_mult():
    A = V(4, {0: 1.0, 1: 5.0})
    B = V(4, {1: 2.0, 3: 7.0})
    assert plain(ref.ewise_add(A, B, "min")) == {0: 1.0, 1: 2.0, 3: 7.0}
    assert plain(ref.ewise_mult(A, B, "plus")) == {1: 7.0}
    assert plain(ref.ewise_add(A, B, monoid.plus)) == {0: 1.0, 1: 7.0, 3: 7.0}


def test_ewise_typed_ops():
    A = V(2, {0: 1.0, 1: 5.0})
    B = V(2, {1: 5.0})
    lt = ref.ewise_add(A, B, binary.lt)
    assert lt.dtype == np.bool_ and plain(lt) == {0: True, 1: False}
    first = ref.ewise_mult(A, V(2, {1: 3}, np.int32), binary.first)
    assert first.dtype == np.float64 and plain(first) == {1: 5.0}


def test_apply_unary_and_bound():
    A = V(3, {0: 1.0, 2: -4.0})
    assert plain(ref.apply(A, unary.ainv)) == {0: -1.0, 2: 4.0}
    assert plain(ref.apply(A, "abs")) == {0: 1.0, 2: 4.0}
    assert plain(ref.apply(A, binary.minus, left=10)) == {0: 9.0, 2: 14.0}
    assert plain(ref.apply(A, binary.minus, right=10)) == {0: -9.0, 2: -14.0}
    with pytest.raises(ValueError):
        ref.apply(A, binary.minus)


def test_select():
    A = M((3, 3), {(0, 0): 1, (1, 0): 2, (0, 2): 3, (2, 2): -1})
    assert sorted(ref.select(A, "tril").data) == [(0, 0), (1, 0), (2, 2)]
    assert sorted(ref.select(A, "triu", 1).data) == [(0, 2)]
    assert sorted(ref.select(A, indexunary.diag).data) == [(0, 0), (2, 2)]
    assert sorted(ref.select(A, "valuegt", 1.5).data) == [(0, 2), (1, 0)]
    assert sorted(ref.select(V(4, {1: 1.0, 3: 2.0}), "rowle", 2).data) == [1]


def test_reduce():
    A = M((3, 3), {(0, 1): 4, (0, 2): 2, (2, 0): 7})
    assert ref.reduce(A, "min") == 2.0
    assert plain(ref.reduce(A, "min", axis="rows")) == {0: 2.0, 2: 7.0}
    assert plain(ref.reduce(A, "plus", axis=0)) == {0: 7.0, 1: 4.0, 2: 2.0}
    empty = M((2, 2), {})
    assert ref.reduce(empty, "min") == INF and ref.reduce(empty, "plus") == 0.0
    assert ref.reduce(V(3, {1: 3.0}), "max") == 3.0
    assert ref.reduce(V(3, {1: 3.0, 2: 4.0}), "any").values == {3.0, 4.0}


def test_transpose_and_extract():
    assert plain(ref.transpose(G)) == {(1, 0): 2.0, (2, 1): 3.0, (2, 0): 7.0}
    E = ref.extract(G, [0, 0], [2, 1])
    assert E.shape == (2, 2)
    assert plain(E) == {(0, 0): 7.0, (0, 1): 2.0, (1, 0): 7.0, (1, 1): 2.0}
    assert plain(ref.extract(V(4, {1: 1.0, 3: 3.0}), [3, 2])) == {0: 3.0}
    assert ref.extract(G, [], None).shape == (0, 3)


# ---- masks, accum, replace --------------------------------------------------------------

C0 = V(4, {0: 10.0, 1: 11.0, 2: 12.0})  # the output's old contents
T = V(4, {1: 1.0, 3: 3.0})  # a computed result
MSRC = V(4, {1: 0.0, 3: 1.0})  # mask source: entry 1 is present but falsy


@pytest.mark.parametrize(
    "structural,complement,replace,expected",
    [
        # S allows 1 and 3: there C = T; elsewhere C keeps its entries (unless replace)
        (True, False, False, {0: 10.0, 1: 1.0, 2: 12.0, 3: 3.0}),
        (True, False, True, {1: 1.0, 3: 3.0}),
        (False, False, False, {0: 10.0, 1: 11.0, 2: 12.0, 3: 3.0}),
        (False, False, True, {3: 3.0}),
        # ~S allows 0 and 2: T has no entry there, so C's entries there are deleted
        (True, True, False, {1: 11.0}),
        (True, True, True, {}),
        # ~V allows 0, 1, 2
        (False, True, False, {1: 1.0}),
    ],
)
def test_write_rule_masks(structural, complement, replace, expected):
    mask = ref.RefMask(MSRC, structural=structural, complement=complement)
    got = ref.write(T, out=C0, mask=mask, replace=replace)
    assert plain(got) == expected


def test_write_rule_accum():
    got = ref.write(T, out=C0, accum="plus")
    assert plain(got) == {0: 10.0, 1: 12.0, 2: 12.0, 3: 3.0}
    mask = ref.RefMask(MSRC, structural=True)
    got = ref.write(T, out=C0, accum=monoid.min, mask=mask, replace=True)
    assert plain(got) == {1: 1.0, 3: 3.0}


def test_mask_without_out_filters_the_result():
    mask = ref.RefMask(V(3, {1: True}, np.bool_), structural=True)
    got = ref.vxm(V(3, {0: 0.0}), G, "min_plus", mask=mask)
    assert plain(got) == {1: 2.0}


def test_write_rule_casts_to_out_dtype():
    out = V(2, {0: 1}, np.int64)
    got = ref.write(V(2, {1: 2}, np.int32), out=out)
    assert got.dtype == np.int64 and plain(got) == {1: 2}


def test_mask_shape_is_checked():
    with pytest.raises(ValueError, match="mask shape"):
        ref.write(T, out=C0, mask=ref.RefMask(V(3, {})))


# ---- assign ----------------------------------------------------------------------------


def test_assign_vector_region_deletes_without_accum():
    C = V(5, {0: 1.0, 1: 2.0, 2: 3.0})
    val = V(2, {1: 9.0})  # region [1, 2]: position 1 has no value, position 2 gets 9
    assert plain(ref.assign(C, val, [1, 2])) == {0: 1.0, 2: 9.0}
    assert plain(ref.assign(C, val, [1, 2], accum="plus")) == {0: 1.0, 1: 2.0, 2: 12.0}


def test_assign_scalar_and_mask():
    C = M((2, 2), {(0, 0): 1.0})
    got = ref.assign(C, 5.0, [1], None)
    assert plain(got) == {(0, 0): 1.0, (1, 0): 5.0, (1, 1): 5.0}
    mask = ref.RefMask(M((2, 2), {(1, 1): True}, np.bool_), structural=True)
    assert plain(ref.assign(C, 5.0, mask=mask)) == {(0, 0): 1.0, (1, 1): 5.0}
    assert plain(ref.assign(C, 5.0, mask=mask, replace=True)) == {(1, 1): 5.0}


def test_assign_rejects_duplicates_and_bad_region():
    C = V(3, {})
    with pytest.raises(ValueError, match="duplicate"):
        ref.assign(C, 1.0, [1, 1])
    with pytest.raises(ValueError, match="region"):
        ref.assign(C, V(3, {}), [0, 1])


# ---- scalars ---------------------------------------------------------------------------


def test_fold_and_any():
    assert fold(monoid.plus, [], np.int32) == 0
    assert fold(monoid.min, [3, 1, 2], np.float64) == 1.0
    assert fold(monoid.any, [4, 4], np.int64) == 4
    assert isinstance(fold(monoid.any, [4, 5], np.int64), OneOf)


def test_one_of_propagates_and_matches():
    x = OneOf.of([np.float64(1), np.float64(2)])
    y = binary_scalar(binary.plus, x, np.float64(10))
    assert y.values == {11.0, 12.0}
    assert same_value(np.float64(12), y) and not same_value(np.float64(13), y)
    assert same_value(np.float64(np.nan), np.float64(np.nan))


def test_binary_scalar_result_dtypes():
    assert binary_scalar(binary.lt, np.int32(1), np.int32(2)).dtype == np.bool_
    assert binary_scalar(binary.first, np.int32(1), np.float64(2)).dtype == np.int32
    with pytest.raises(TypeError, match="int32 and float64"):
        binary_scalar(binary.plus, np.int32(1), np.float64(2))


def test_shape_errors():
    with pytest.raises(ValueError, match=r"\(3, 3\).*\(2, 2\)"):
        ref.mxm(G, M((2, 2), {}), "min_plus")
    with pytest.raises(ValueError):
        ref.ewise_add(V(2, {}), V(3, {}), "plus")
    with pytest.raises(IndexError):
        M((2, 2), {(2, 0): 1.0})


# ---- closure --------------------------------------------------------------------------


def test_closure_min_plus_and_lor_land():
    A = M((3, 3), {(i, j): INF for i in range(3) for j in range(3)} | {(0, 1): 2, (1, 2): 3})
    got = plain(ref.closure(A, "min_plus"))
    assert got[(0, 2)] == 5.0 and got[(0, 0)] == 0.0 and got[(2, 0)] == INF
    B = M((2, 2), {(0, 0): False, (0, 1): True, (1, 0): False, (1, 1): False}, np.bool_)
    assert plain(ref.closure(B, "lor_land")) == {
        (0, 0): True,
        (0, 1): True,
        (1, 0): False,
        (1, 1): True,
    }


def test_closure_negative_cycle_does_not_settle():
    A = M((2, 2), {(0, 0): INF, (0, 1): -1, (1, 0): -1, (1, 1): INF})
    with pytest.raises(ValueError, match="settle"):
        ref.closure(A, "min_plus")


def test_mxm_accumulate():
    C = M((1, 1), {(0, 0): 4.0})
    A = M((1, 1), {(0, 0): 1.0})
    assert plain(ref.mxm_accumulate(A, A, C, "min_plus")) == {(0, 0): 2.0}


def test_kleene_testing_docstring_examples():
    # The docstrings are the user's manual for property-testing a semiring: keep them true.
    import doctest

    import kleene.testing as kt

    for mod in (kt, kt.reference, kt.scalars, kt.strategies, kt.laws, kt.convert, kt.agreement):
        result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, f"{mod.__name__}: {result.failed} docstring examples failed"
