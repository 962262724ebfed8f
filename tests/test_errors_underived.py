"""A rule that gives no cotangent for a real-valued argument refuses, at the
user's line and before anything runs, a call where that argument is active
(a quantile's q, a norm's order, ...); so does a rule given
an option it has no derivative for (`where=` of np.max, np.interp's period=)."""

from __future__ import annotations

import numpy as np
import pytest
from error_cases import RAN, underived
from test_errors import assert_points_at, marked_location

import zygote_py as zp

X = np.array([0.2, 0.9, 0.4, 0.6])
REFUSED = [
    (underived.quantile_active_q, (X, 0.3), "q"),
    (underived.norm_active_order, (X, 3.0), "ord"),
    (underived.pad_active_constant, (X, 0.5), "kwargs"),
    (underived.max_active_default, (0.2, 0.5), "default"),
    (underived.nan_to_num_active_fill, (X, 0.5), "nan"),
    (underived.sum_active_initial, (X, 0.5), "initial"),
    (underived.max_method_active_initial, (X, 0.5), "initial"),
    (underived.var_active_mean, (X, 0.5), "mean"),
]

UNSUPPORTED_OPTIONS = [
    (underived.max_with_where, (X,), "where"),
    (underived.interp_with_period, (X[:2],), "period"),
    (underived.std_method_with_where, (X,), "where"),
]


@pytest.fixture(autouse=True)
def _clear_side_effects():
    RAN.clear()
    yield
    RAN.clear()


@pytest.mark.parametrize("func, args, param", REFUSED, ids=[f.__name__ for f, _, _ in REFUSED])
def test_active_underived_argument_is_refused_at_the_call(func, args, param):
    path, line, text = marked_location(func)
    with pytest.raises(zp.NoDerivativeRule) as info:
        zp.gradient(func, *args)
    assert_points_at(info.value, path, line, text, check_col=False)
    assert repr(param) in str(info.value) and "stop_gradient" in str(info.value)
    assert RAN == []  # refused at transform time: nothing ran


@pytest.mark.parametrize("func, args, option", UNSUPPORTED_OPTIONS,
                         ids=[f.__name__ for f, _, _ in UNSUPPORTED_OPTIONS])
def test_option_without_a_rule_is_refused_at_the_call(func, args, option):
    path, line, text = marked_location(func)
    with pytest.raises(zp.NoDerivativeRule) as info:
        zp.gradient(func, *args)
    assert_points_at(info.value, path, line, text, check_col=False)
    assert f"{option}=" in str(info.value)
    assert RAN == []


def test_underived_argument_that_is_constant_is_fine():
    (g,) = zp.gradient(underived.interp_constant_knots, X[:3])
    want = np.zeros(3)
    want[0], want[1] = 0.4 * 2 * X[0], 0.6 * 2 * X[1]  # 0.3 lies 0.6 of the way from 0.0 to 0.5
    np.testing.assert_allclose(g, want, rtol=1e-12)


def test_stop_gradient_on_the_argument_allows_the_call():
    def f(x, q):
        return np.quantile(x, zp.stop_gradient(q))

    (gx, gq) = zp.gradient(f, X, 0.5)
    assert gq is None
    np.testing.assert_allclose(gx, [0.0, 0.0, 0.5, 0.5], rtol=1e-12)


def test_option_without_a_rule_is_refused_by_the_run_time_dispatcher():
    """The same refusal where the call is resolved while running (was a
    NotImplementedError from inside the rule, in the backward pass)."""
    path, line, text = marked_location(underived.max_with_where_of_a_method_result)
    with pytest.raises(zp.NoDerivativeRule) as info:
        zp.gradient(underived.max_with_where_of_a_method_result, underived.Holder(X))
    assert_points_at(info.value, path, line, text, check_col=False)
    assert "where=" in str(info.value)


def test_active_underived_argument_of_a_call_dispatched_while_running_is_refused():
    """Decided from activity where the call is compiled: the dispatcher alone cannot tell
    an active q from a constant one (was a silent zero for its dependence)."""
    path, line, text = marked_location(underived.quantile_active_q_of_a_method_result)
    with pytest.raises(zp.NoDerivativeRule) as info:
        zp.gradient(underived.quantile_active_q_of_a_method_result, underived.Holder(X[:3]))
    assert_points_at(info.value, path, line, text, check_col=False)
    assert "'q'" in str(info.value)


def _interp_constant_knots_of_a_method_result(holder):
    v = holder.get()
    return np.interp(0.3, np.array([0.0, 0.5, 1.0]), v**2)


def test_constant_knots_of_a_call_dispatched_while_running_are_fine():
    values = X[:3].copy()
    (g,) = zp.gradient(_interp_constant_knots_of_a_method_result, underived.Holder(values))
    fd = np.zeros(3)
    for i in range(3):
        e = np.zeros(3)
        e[i] = 1e-6
        fd[i] = (_interp_constant_knots_of_a_method_result(underived.Holder(values + e))
                 - _interp_constant_knots_of_a_method_result(underived.Holder(values - e))) / 2e-6
    np.testing.assert_allclose(g["values"], fd, rtol=1e-6, atol=1e-9)


def _apply(fn, x, q):
    return fn(x, q)  # fn is only known while running: the call is dispatched


def _quantile_passed_as_value(x, q):
    return _apply(np.quantile, x, q)


def test_an_active_underived_argument_of_a_call_decided_while_running_gets_nan_not_zero():
    x = np.array([0.1, 0.7, 0.3, 0.9])
    gx, gq = zp.gradient(_quantile_passed_as_value, x, 0.5)
    np.testing.assert_allclose(gx, [0.0, 0.5, 0.5, 0.0])
    assert np.isnan(gq)  # q's derivative is unknown: visible, never a silent zero
    (gx_only,) = zp.gradient(lambda x: _quantile_passed_as_value(x, 0.5), x)
    np.testing.assert_allclose(gx_only, [0.0, 0.5, 0.5, 0.0])  # a constant q: no NaN anywhere
