"""The strong zero (zygote_py/runtime/helpers.py `strong_zero`): a zero cotangent
contributes exactly zero even where a rule's local partial is inf or nan.

Each program hides an overflow or a singular point from its output (np.where's side
that is not selected, a saturated tanh) and is checked against central finite
differences in float64, which see no dependence there; before the strong zero each
gave nan.  Scalar programs take the inline form codegen writes (`r if r == r else
...`), array programs the helper; forward over reverse (zp.hessian) goes through the
helper's own rules.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.runtime.helpers import strong_zero, strong_zero_kept


def central_differences(f, x, h=1e-6):
    x = np.array(x, dtype=float)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        step = h * max(1.0, abs(x[i]))
        up[i] += step
        down[i] -= step
        out[i] = (f(up) - f(down)) / (2 * step)
    return out


def log_where_positive(x):
    return np.sum(np.where(x > 0.1, np.log(np.abs(x)), 0.0) * 2.0 + x)


def sqrt_where_positive(x):
    return np.sum(np.where(x > 0.1, np.sqrt(np.maximum(x, 0.0)), x * x))


def reciprocal_where_nonzero(x):
    return np.sum(np.where(np.abs(x) > 0.1, 1.0 / x, 3.0 * x))


def saturated_overflow(x):
    return np.sum(np.tanh(np.expm1(x * x)))


def cosh_unselected(x):
    return np.sum(np.where(x < 5, np.cosh(x * 300.0), 1.0))


def power_where_positive(x):
    return np.sum(np.where(x > 0.1, np.abs(x) ** 0.5, -x))


def arcsin_at_one(x):
    return np.sum(np.where(np.abs(x) < 0.9, np.arcsin(np.clip(x, -1.0, 1.0)), x))


def scalar_exp_saturated(x):
    return np.tanh(np.exp(x)) + 0.5 * x


ARRAY_CASES = [
    (log_where_positive, [0.0, 0.7, -0.4]),
    (sqrt_where_positive, [0.0, 0.5, -0.3]),
    (reciprocal_where_nonzero, [0.0, 2.0, -0.5]),
    (saturated_overflow, [30.0, 0.4, -0.2]),
    (cosh_unselected, [7.0, 0.01, -0.002]),
    (power_where_positive, [0.0, 0.9, -0.6]),
    (arcsin_at_one, [1.0, 0.3, 1.5]),
]


@pytest.mark.parametrize("f, point", ARRAY_CASES, ids=[f.__name__ for f, _ in ARRAY_CASES])
def test_a_hidden_overflow_or_singularity_contributes_zero(f, point):
    x = np.array(point)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        (grad,) = zp.gradient(f, x)
        expected = central_differences(f, x)
    assert np.all(np.isfinite(grad)), grad
    np.testing.assert_allclose(grad, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("x", [800.0, 0.3])
def test_scalar_rules_take_the_inline_strong_zero(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        (grad,) = zp.gradient(scalar_exp_saturated, np.float64(x))
        text = zp.grad_source(scalar_exp_saturated, args=(np.float64(x),))
        expected = central_differences(lambda v: scalar_exp_saturated(v[()]), np.array(x))
    assert grad == pytest.approx(float(expected), rel=1e-6, abs=1e-8)
    assert " if " in text and "else _zp_strong_zero(" in text  # `r if g else _zp_strong_zero(g, r)`


def test_hessian_through_the_strong_zero():
    x = np.array([30.0, 0.4])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        hess = zp.hessian(saturated_overflow, x)
        expected = np.stack([central_differences(lambda v, i=i: zp.gradient(saturated_overflow, v)[0][i], x,
                                                 h=1e-5) for i in range(2)])
    np.testing.assert_allclose(hess, expected, rtol=1e-4, atol=1e-6)
    assert hess[0, 0] == 0.0


def test_strong_zero_changes_only_nan_entries_with_a_zero_cotangent():
    g = np.array([0.0, 0.0, 2.0, 1.0])
    with np.errstate(all="ignore"):
        r = g * np.array([np.inf, 1.0, np.inf, np.nan])
    out = strong_zero(g, r)
    assert out[0] == 0.0 and out[1] == 0.0 and out[2] == np.inf and np.isnan(out[3])
    finite = np.array([1.0, 2.0])
    assert strong_zero(finite, finite * 3) is not None and strong_zero(0.0, float("nan")) == 0.0
    assert np.isnan(strong_zero(1.0, float("nan")))
    assert strong_zero(np.float64(0.0), np.float64(np.nan)) == 0.0
    assert strong_zero(0.0, np.zeros(0)).shape == (0,)
    assert strong_zero(np.float32(0.0), np.array([np.nan], np.float32)).dtype == np.float32
    kept = strong_zero_kept(np.array([5.0, 6.0, 7.0, 8.0]), g, r)
    np.testing.assert_array_equal(kept, [0.0, 6.0, 7.0, 8.0])


# -- the fast path: a cotangent known to have no zero entry skips the pass over r ----------


def test_broadcast_cotangents_are_checked_through_their_distinct_entries():
    with np.errstate(all="ignore"):
        partial = np.array([[np.inf, 1.0], [np.inf, 1.0]])
        zero_row = np.broadcast_to(np.array([[1.0], [0.0]]), (2, 2))  # a zero among the rows
        out = strong_zero(zero_row, zero_row * partial)
        np.testing.assert_array_equal(out, [[np.inf, 1.0], [0.0, 0.0]])
        nonzero = np.broadcast_to(np.array([[1.0], [2.0]]), (2, 2))
        r = nonzero * partial
        assert strong_zero(nonzero, r) is r  # no zero in g: r as it is, nothing to correct
        scalar_zero = np.broadcast_to(0.0, (2, 2))
        np.testing.assert_array_equal(strong_zero(scalar_zero, scalar_zero * partial), 0.0)
        r = 2.0 * partial
        assert strong_zero(2.0, r) is r
        nan_g = np.broadcast_to(np.nan, (2,))
        assert np.isnan(strong_zero(nan_g, nan_g * 0.0)).all()  # nan is not 0: kept
        kept = strong_zero_kept(np.ones((2, 2)), zero_row, zero_row * partial)
        np.testing.assert_array_equal(kept, [[1.0, 1.0], [0.0, 1.0]])  # (0 * 1 is not nan)
        np.testing.assert_array_equal(strong_zero_kept(np.ones(2), 3.0, np.array([np.nan, 1.0])), 1.0)


def softmax_weighted_overflow(x):
    # row 0's sum is not selected (cotangent 0) and its exp overflows: the broadcast
    # cotangent of the keepdims sum holds a zero, so the fast path must not skip the check
    e = np.exp(x)
    s = np.sum(e, axis=1, keepdims=True)
    return np.sum(np.where(np.array([[False], [True]]), np.log(s), 0.0)) + np.sum(x[1] ** 2)


def test_a_zero_inside_a_broadcast_cotangent_still_contributes_zero():
    x = np.array([[800.0, 0.5], [0.3, -0.2]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        (grad,) = zp.gradient(softmax_weighted_overflow, x)
        expected = central_differences(softmax_weighted_overflow, x)
    assert np.all(np.isfinite(grad)), grad
    np.testing.assert_allclose(grad, expected, rtol=1e-5, atol=1e-6)
