"""Conventions of the rules that finite differences cannot see: ties, kinks,
zeros, container and scalar types, dtypes, and what must never warn."""

from __future__ import annotations

import builtins
import math
import operator
import warnings

import numpy as np
import pytest

import zygote_py.rules  # noqa: F401
from zygote_py.rules.registry import attr_rule, function_rule, method_rule


def vjp(fn, g, *args, **kwargs):
    y = fn(*args, **kwargs)
    return function_rule(fn).vjp(g, y, *args, **kwargs)


@pytest.fixture(autouse=True)
def _no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


# --- ties -------------------------------------------------------------------


@pytest.mark.parametrize("fn", [np.max, np.amax])
def test_max_ties_split_evenly(fn):
    a = np.array([[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 5.0, 0.0]])
    ga = vjp(fn, np.array([2.0, 3.0]), a, axis=1)
    np.testing.assert_allclose(ga, [[0, 1, 1, 0], [1, 1, 1, 0]])
    np.testing.assert_allclose(vjp(fn, 1.0, a), [[0, 0, 0, 0], [1 / 3, 1 / 3, 1 / 3, 0]])


def test_ndarray_min_ties_split_evenly():
    a = np.array([2.0, 1.0, 1.0])
    y = a.min()
    np.testing.assert_allclose(method_rule(np.ndarray, "min").vjp(1.0, y, a), [0, 0.5, 0.5])


@pytest.mark.parametrize("fn", [np.maximum, np.minimum, np.fmax, np.fmin])
def test_elementwise_extremum_ties_go_to_first(fn):
    a = np.array([1.0, 2.0, 3.0])
    ga, gb = vjp(fn, np.ones(3), a, a.copy())
    np.testing.assert_array_equal(ga, [1, 1, 1])
    np.testing.assert_array_equal(gb, [0, 0, 0])


@pytest.mark.parametrize("fn", [builtins.max, builtins.min])
def test_builtin_extremum_ties_go_to_first(fn):
    a, b = 2.5, 2.5 + 0.0  # equal values, distinct objects
    assert vjp(fn, 1.5, a, b) == (1.5, None)
    (gl,) = vjp(fn, 1.5, [1.0, 4.0, 4.0] if fn is builtins.max else [0.0, 0.0, 1.0])
    assert gl == ([None, 1.5, None] if fn is builtins.max else [1.5, None, None])


def test_builtin_max_of_tuple_and_array():
    assert vjp(builtins.max, 2.0, (1.0, 3.0)) == ((None, 2.0),)
    (ga,) = vjp(builtins.max, 2.0, np.array([1.0, 3.0, 3.0]))
    np.testing.assert_array_equal(ga, [0, 2, 0])


def test_clip_at_bound_goes_to_operand():
    a = np.array([-1.0, 0.0, 1.0, 2.0])
    ga, glo, ghi, _, _ = vjp(np.clip, np.ones(4), a, -1.0, 1.0)
    np.testing.assert_array_equal(ga, [1, 1, 1, 0])
    assert glo == 0.0 and ghi == 1.0


def test_abs_at_zero_is_zero():
    assert vjp(np.abs, 1.0, 0.0) == 0.0
    assert vjp(math.fabs, 1.0, 0.0) == 0.0


# --- powers -----------------------------------------------------------------


def test_power_integer_exponent_cotangents():
    """An int exponent gets a cotangent (it is active when passed to the API, where ints
    are differentiated as reals): a**b * log(a), taken as 0 where a <= 0."""
    a = np.array([-2.0, 0.0, 3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ga, gb = vjp(np.power, np.ones(3), a, 2)
    np.testing.assert_array_equal(ga, [-4, 0, 6])
    assert gb == pytest.approx(9.0 * math.log(3.0))
    ga, gb = vjp(operator.pow, 1.0, -2.0, 3)
    assert ga == 12.0 and gb == 0.0 and type(ga) is float
    ga, gb = vjp(operator.pow, 1.0, 2.0, 3)
    assert ga == 12.0 and gb == pytest.approx(8.0 * math.log(2.0))


def test_power_float_exponent_with_nonpositive_base_does_not_warn():
    a = np.array([-2.0, 0.0, 3.0])
    ga, gb = vjp(np.power, np.ones(3), a, 2.0)
    np.testing.assert_array_equal(ga, [-4, 0, 6])
    assert np.isfinite(gb)
    ga, gb = vjp(operator.pow, 1.0, -2.0, 3.0)
    assert ga == 12.0 and gb == 0.0
    ga, gb = vjp(math.pow, 1.0, 0.0, 2.0)
    assert ga == 0.0 and gb == 0.0


def test_power_exponent_cotangent():
    ga, gb = vjp(operator.pow, 1.0, 2.0, 3.0)
    assert ga == pytest.approx(12.0) and gb == pytest.approx(8 * math.log(2.0))


# --- zeros ------------------------------------------------------------------


def test_prod_with_zeros_is_exact():
    np.testing.assert_allclose(vjp(np.prod, 1.0, np.array([2.0, 0.0, 3.0])), [0, 6, 0])
    np.testing.assert_allclose(vjp(np.prod, 1.0, np.array([2.0, 0.0, 0.0])), [0, 0, 0])
    a = np.array([[0.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(vjp(np.prod, np.ones(2), a, axis=1), [[2, 0], [4, 3]])


def test_math_sqrt_at_zero_does_not_raise():
    assert vjp(math.sqrt, 1.0, 0.0) == math.inf


def test_sinc_at_zero():
    assert vjp(np.sinc, np.ones(1), np.zeros(1))[0] == 0.0


# --- containers -------------------------------------------------------------


def _getitem_vjp(g, a, index):
    """The container's cotangent; the index of an array, list, tuple or dict gets none."""
    ct, ct_index = vjp(operator.getitem, g, a, index)
    assert ct_index is None
    return ct


def test_getitem_list_tuple_dict():
    x = [1.0, np.ones(2), 3.0]
    assert operator.getitem(x, 1) is x[1]
    ct = _getitem_vjp(np.full(2, 5.0), x, 1)
    assert type(ct) is list and ct[0] is None and ct[2] is None
    assert _getitem_vjp([1.0, 2.0], [1.0, 3.0], slice(0, 2)) == [1.0, 2.0]
    assert _getitem_vjp([7.0, 8.0], [1.0, 2.0, 3.0], slice(None, None, 2)) == [7.0, None, 8.0]
    assert _getitem_vjp(4.0, (1.0, 2.0), -1) == (None, 4.0)
    assert _getitem_vjp(4.0, {"a": 1.0, "b": 2.0}, "b") == {"b": 4.0}
    assert _getitem_vjp(4.0, {0.5: 1.0}, 0.5) == {0.5: 4.0}  # a float key selects; no derivative


def test_getitem_repeated_indices_accumulate():
    x = np.arange(4.0)
    np.testing.assert_array_equal(_getitem_vjp(np.array([1.0, 2.0, 4.0]), x, np.array([0, 0, -1])),
                                  [3, 0, 0, 4])
    x2 = np.zeros((3, 2))
    ct = _getitem_vjp(np.ones((3, 2)), x2, [1, 1, 2])
    np.testing.assert_array_equal(ct, [[0, 0], [2, 2], [1, 1]])


def test_join_cotangents_keep_container_type():
    a, b = np.ones((2, 3)), np.ones((1, 3))
    assert type(vjp(np.concatenate, np.ones((3, 3)), [a, b])) is list
    assert type(vjp(np.concatenate, np.ones((3, 3)), (a, b))) is tuple
    assert type(vjp(np.stack, np.ones((2, 3)), [a[0], a[1]])) is list


def test_builtin_sum_mirrors_list():
    ct, _ = vjp(builtins.sum, 2.0, [1.0, 2.0, 3.0])
    assert ct == [2.0, 2.0, 2.0]


def test_array_of_nested_lists_mirrors_structure():
    obj = [[1.0, 2.0], [3.0, 4.0]]
    ct = vjp(np.array, np.arange(4.0).reshape(2, 2), obj)
    assert ct == [[0.0, 1.0], [2.0, 3.0]]
    assert all(type(v) is float for row in ct for v in row)


def test_array_of_array_is_identity():
    x = np.ones(3)
    g = np.arange(3.0)
    assert vjp(np.array, g, x) is g
    assert vjp(np.asarray, g, x) is g


# --- scalar types and dtypes ------------------------------------------------


@pytest.mark.parametrize("fn,arg", [(math.sin, 0.3), (math.exp, 0.3), (math.log, 2.0), (math.tanh, 0.3),
                                    (math.sqrt, 2.0), (math.atan, 0.2)])
def test_math_rules_give_floats(fn, arg):
    ct = vjp(fn, 1.0, arg)
    assert type(ct[0] if isinstance(ct, tuple) else ct) is float


@pytest.mark.parametrize("fn", [operator.add, operator.sub, operator.mul, operator.truediv])
def test_operators_on_floats_give_floats(fn):
    ga, gb = vjp(fn, 1.0, 2.0, 3.0)
    assert type(ga) is float and type(gb) is float


def test_numpy_on_floats_gives_scalars_not_arrays():
    for fn in (np.sin, np.exp, np.tanh, np.abs):
        assert not isinstance(vjp(fn, 1.0, 0.5), np.ndarray)
    ga, gb = vjp(np.maximum, 1.0, 0.5, 0.2)
    assert not isinstance(ga, np.ndarray) and not isinstance(gb, np.ndarray)


def test_scalar_broadcast_against_array_sums_to_scalar():
    ga, _ = vjp(np.multiply, np.ones(3), 2.0, np.array([1.0, 2.0, 3.0]))
    assert np.ndim(ga) == 0 and ga == 6.0


@pytest.mark.parametrize("fn,kwargs", [(np.sum, {}), (np.mean, {"axis": 0}), (np.max, {"axis": 1}),
                                       (np.var, {}), (np.std, {"axis": 0}), (np.prod, {}),
                                       (np.exp, {}), (np.cumsum, {"axis": 1})])
def test_float32_stays_float32(fn, kwargs):
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    y = fn(x, **kwargs)
    g = np.ones_like(y)
    assert function_rule(fn).vjp(g, y, x, **kwargs).dtype == np.float32


def test_astype_casts_back():
    x = np.ones(3, dtype=np.float32)
    y = x.astype(np.float64)
    ct = method_rule(np.ndarray, "astype").vjp(np.ones(3), y, x, np.float64)
    assert ct.dtype == np.float32


def test_transpose_attr():
    x = np.ones((2, 3))
    assert attr_rule(np.ndarray, "T").vjp(np.ones((3, 2)), x.T, x).shape == (2, 3)


# --- limits are reported, not silently wrong ---------------------------------


def test_einsum_sublist_form_matches_the_string_form():
    a, b = np.arange(4.0).reshape(2, 2), np.arange(6.0).reshape(2, 3)
    g = np.arange(6.0).reshape(3, 2)
    y = np.einsum(a, [0, 1], b, [1, 2], [2, 0])
    ga, (sub_a, gb, sub_b, sub_out) = function_rule(np.einsum).vjp(g, y, a, [0, 1], b, [1, 2], [2, 0])
    none, (ga_str, gb_str) = function_rule(np.einsum).vjp(g, y, "ij,jk->ki", a, b)
    assert none is None and sub_a is None and sub_b is None and sub_out is None
    np.testing.assert_array_equal(ga, ga_str)
    np.testing.assert_array_equal(gb, gb_str)
    np.testing.assert_allclose(ga, g.T @ b.T)


def test_matrix_one_and_inf_norms_split_ties_between_columns_and_rows():
    a = np.array([[1.0, -2.0], [2.0, 1.0]])  # both column sums are 3, row sums 3 and 3
    np.testing.assert_allclose(vjp(np.linalg.norm, 1.0, a, 1), 0.5 * np.sign(a))
    b = np.array([[1.0, -2.0], [0.5, 0.5]])  # the first row wins the inf-norm
    np.testing.assert_allclose(vjp(np.linalg.norm, 2.0, b, np.inf), [[2.0, -2.0], [0.0, 0.0]])


def test_factorization_shapes_without_a_rule_are_rejected():
    with pytest.raises(NotImplementedError):
        vjp(np.linalg.qr, (np.ones((4, 4)), np.ones((4, 3))), np.arange(12.0).reshape(4, 3), "complete")
    a = np.random.default_rng(0).standard_normal((4, 3))
    y = np.linalg.svd(a)
    with pytest.raises(NotImplementedError):
        function_rule(np.linalg.svd).vjp((None, np.ones(3), None), y, a)
    with pytest.raises(NotImplementedError):
        vjp(np.quantile, np.ones(1), np.ones(4), 0.5, method="nearest")


def test_prod_where_is_rejected():
    with pytest.raises(NotImplementedError):
        vjp(np.prod, 1.0, np.ones(3), where=np.array([True, False, True]))


@pytest.mark.parametrize("kwargs", [{"mode": "mean"}, {"mode": "maximum"},
                                    {"mode": "linear_ramp", "end_values": 2.0},
                                    {"mode": "reflect", "reflect_type": "odd"}])
def test_pad_modes_that_do_not_copy_entries_are_rejected(kwargs):
    with pytest.raises(NotImplementedError, match="no derivative rule for np.pad"):
        vjp(np.pad, np.ones(5), np.ones(3), 1, **kwargs)


# --- factorizations, order statistics and scans ---------------------------------


def test_tuple_outputs_accept_attribute_cotangents():
    a = np.array([[2.0, 0.5], [0.5, 3.0]])
    y = np.linalg.eigh(a)
    by_index = function_rule(np.linalg.eigh).vjp((np.ones(2), None), y, a)
    by_field = function_rule(np.linalg.eigh).vjp({"eigenvalues": np.ones(2)}, y, a)
    np.testing.assert_allclose(by_index, by_field)
    # d trace(A) = I, folded onto the lower triangle that eigh reads
    np.testing.assert_allclose(by_index, np.eye(2), atol=1e-12)


def test_eigh_cotangent_lives_on_the_triangle_it_reads():
    a = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 4.0]])
    y = np.linalg.eigh(a)
    g_low = function_rule(np.linalg.eigh).vjp((np.arange(3.0), None), y, a)
    g_up = function_rule(np.linalg.eigh).vjp((np.arange(3.0), None), y, a, "U")
    assert np.all(np.triu(g_low, 1) == 0) and np.all(np.tril(g_up, -1) == 0)
    np.testing.assert_allclose(g_low, g_up.T)


def test_cumprod_with_zeros_is_exact():
    # y = [2, 0, 0, 0]: only the first zero and what precedes it get a cotangent
    ga = vjp(np.cumprod, np.ones(4), np.array([2.0, 0.0, 3.0, 0.0]))
    np.testing.assert_array_equal(ga, [1.0, 2.0 + 6.0, 0.0, 0.0])


def test_median_and_quantile_pick_the_interpolated_elements():
    np.testing.assert_array_equal(vjp(np.median, 1.0, np.array([3.0, 1.0, 2.0])), [0, 0, 1])
    np.testing.assert_array_equal(vjp(np.median, 1.0, np.array([4.0, 1.0, 3.0, 2.0])), [0, 0, 0.5, 0.5])
    np.testing.assert_allclose(vjp(np.quantile, 1.0, np.array([0.0, 10.0, 20.0]), 0.25), [0.5, 0.5, 0])


def test_nan_reductions_give_nan_entries_zero():
    a = np.array([1.0, np.nan, 3.0, 3.0])
    np.testing.assert_array_equal(vjp(np.nanmax, 1.0, a), [0, 0, 0.5, 0.5])
    np.testing.assert_array_equal(vjp(np.nansum, 2.0, a), [2, 0, 2, 2])
    np.testing.assert_allclose(vjp(np.nanmean, 1.0, a), [1 / 3, 0, 1 / 3, 1 / 3])
    # one valid entry: its std is constantly 0, and so is the cotangent (no nan)
    np.testing.assert_array_equal(vjp(np.nanstd, 1.0, np.array([np.nan, 2.0])), [0, 0])


def test_partition_routes_cotangents_through_the_permutation():
    a = np.array([5.0, 1.0, 4.0, 2.0])
    y = np.partition(a, 1)
    g = np.arange(4.0)
    ga = function_rule(np.partition).vjp(g, y, a, 1)
    np.testing.assert_array_equal(ga[np.argsort(a)], g[np.argsort(y)])


@pytest.mark.skipif(not hasattr(np, "astype"), reason="np.astype is new in NumPy 2.1")
def test_astype_functions_keep_the_input_dtype():
    x = np.ones(3, dtype=np.float32)
    assert function_rule(np.astype).vjp(np.ones(3), x.astype(np.float64), x, np.float64).dtype == np.float32


def test_gamma_derivatives():
    assert vjp(math.lgamma, 1.0, 1.0) == pytest.approx(-0.5772156649015329, rel=1e-13)
    assert vjp(math.gamma, 1.0, 2.0) == pytest.approx(1.0 - 0.5772156649015329, rel=1e-13)
    assert vjp(math.lgamma, 1.0, -0.5) == pytest.approx(0.03648997397857652, rel=1e-12)


def test_math_prod_with_zeros_is_exact():
    assert vjp(math.prod, 1.0, [2.0, 0.0, 3.0]) == ([0.0, 6.0, 0.0], None)
    assert vjp(math.prod, 1.0, (0.0, 0.0)) == ((0.0, 0.0), None)


def test_factorizations_with_no_cotangent_give_none():
    a = np.array([[2.0, 0.5], [0.5, 3.0]])
    assert function_rule(np.linalg.eigh).vjp((None, None), np.linalg.eigh(a), a) is None
    assert function_rule(np.linalg.svd).vjp((None, None, None), np.linalg.svd(a), a) is None


@pytest.mark.parametrize("fn,kwargs", [(np.median, {}), (np.cumprod, {"axis": 1}), (np.nansum, {"axis": 0}),
                                       (np.ptp, {}), (np.nanstd, {}), (np.nanmean, {"axis": 1}),
                                       (np.nanmax, {"axis": 0})])
def test_new_reductions_keep_float32(fn, kwargs):
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    y = fn(x, **kwargs)
    assert function_rule(fn).vjp(np.ones_like(y), y, x, **kwargs).dtype == np.float32
