"""Reverse mode over gradient code through the calls that gradient resolved while running
(calls/reverse_dispatched.py): `y, back = dispatch.call(f, ...)` and `back(g)` in a
pullback program, differentiated in reverse (the pairing third derivatives differentiate,
nested.vjp_pairing) and then forward.  Each third derivative is checked against central
differences of the Hessian zp.hessian gives (float64), in both modes; what is not followed
is refused, never a silent zero."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.calls import dispatch, reverse_dispatched

EPS = 1e-5
X = np.array([0.4, -0.7, 1.1])
X2 = X[:2]
A = np.array([[1.0, 2.0], [0.3, -1.0], [0.5, 2.0]])


def apply(fn, x):
    """fn(x) with fn a value: the gradient code resolves the call while running."""
    return fn(x)


def fd_third(f, x):
    """d/dx_k H(x)[i, j] by central differences of zp.hessian: shape (n, n, n), k last."""
    columns = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = EPS
        columns.append((zp.hessian(f, x + e) - zp.hessian(f, x - e)) / (2 * EPS))
    return np.stack(columns, axis=-1)


def check_third(f, x=X, modes=("forward", "reverse")):
    numeric = fd_third(f, x)
    for mode in modes:
        got = zp.jacobian(lambda z: zp.hessian(f, z), x, mode=mode)[0]
        np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-7, err_msg=mode)


def through_a_rule(x):
    # np.tanh reached as a value, and `** 2` on the result, whose type the compiler does not
    # know: two calls resolved while running, on registered rules
    return np.sum(apply(np.tanh, A @ x) ** 2)


def helper(x):
    return np.sin(x) * x ** 3


CALLEES = [helper]


def through_a_python_function(x):
    # a function held in a list: the compiler cannot tell what CALLEES[0](...) means
    return np.sum(CALLEES[0](x) * x)


@pytest.mark.parametrize("f", [through_a_rule, through_a_python_function])
def test_third_derivatives_through_calls_resolved_while_running(f):
    check_third(f, X2)


def test_a_scalar_third_derivative_in_every_mode():
    def f(x):
        return apply(np.sin, x) * x

    def d1(x):
        return zp.gradient(f, x)[0]

    def d2(x):
        return zp.gradient(d1, x)[0]

    x = 0.7
    third = -3 * np.sin(x) - x * np.cos(x)  # d3/dx3 of x sin x
    assert np.isclose(zp.gradient(d2, x)[0], third, rtol=1e-12)
    assert np.isclose(zp.jvp(d2, (x,), (1.0,))[1], third, rtol=1e-12)
    assert np.isclose(zp.hessian(d1, x), third, rtol=1e-12)
    assert np.isclose(zp.gradient(lambda z: zp.hessian(f, z), x)[0], third, rtol=1e-12)


def test_a_captured_value_moves_in_the_innermost_call():
    # w * u ** 4 with w captured: the call on w is resolved while running, and the third
    # derivative reaches w through the innermost program's cells
    def second(x, w):
        return zp.gradient(lambda z: zp.pullback(lambda u: w * u ** 4, z)[1](1.0)[0], x)[0]

    x = 0.3  # second(x, x) = 12 x^3
    assert np.isclose(zp.gradient(lambda v: second(v, v), x)[0], 36 * x ** 2, rtol=1e-12)
    assert np.isclose(zp.jvp(lambda v: second(v, v), (x,), (1.0,))[1], 36 * x ** 2, rtol=1e-12)
    assert np.isclose(zp.gradient(lambda w: second(x, w), 2.0)[0], 12 * x ** 2, rtol=1e-12)


def keyworded(x, scale=1.0):
    return np.sum(np.exp(scale * x))


KEYWORDED = [keyworded]


def test_a_keyword_call_at_third_order():
    # autograd's test_systematic.py::test_tensordot_1 (order 3): tensordot(..., axes=k)
    def f(x):
        return KEYWORDED[0](x, scale=0.5)

    np.testing.assert_allclose(zp.hessian(f, X2), np.diag(0.25 * np.exp(0.5 * X2)), rtol=1e-12)
    third = np.zeros((2, 2, 2))
    for i in range(2):
        third[i, i, i] = 0.125 * np.exp(0.5 * X2[i])
    for mode in ("forward", "reverse"):
        got = zp.jacobian(lambda z: zp.hessian(f, z), X2, mode=mode)[0]
        np.testing.assert_allclose(got, third, rtol=1e-10, atol=1e-12, err_msg=mode)


def star_star(x, **options):
    return np.sum(np.exp(options["scale"] * x))


STAR_STAR = [star_star]


def test_a_star_star_call_is_refused_at_third_order_and_right_at_second():
    options = {"scale": 0.5}

    def f(x):
        return STAR_STAR[0](x, **options)

    np.testing.assert_allclose(zp.hessian(f, X2), np.diag(0.25 * np.exp(0.5 * X2)), rtol=1e-12)
    with pytest.raises(zp.NoDerivativeRule, match="kwargs"):
        zp.jacobian(lambda z: zp.hessian(f, z), X2, mode="reverse")


def test_the_rules_are_registered_as_custom_rules_and_keep_the_values():
    # the rule's back function gives the cotangents dispatch's own back gives
    from zygote_py.rules.registry import custom_rule

    rule = custom_rule(dispatch.call)
    assert rule is not None and custom_rule(dispatch.call_method) is not None
    with zp.context.using(compiler=zp.forward_compiler.FORWARD):
        (y, back), _ = rule(np.multiply, (X, 2.0), (None, None), None)
        y0, back0 = dispatch.call(np.multiply, (X, 2.0), (None, None), None)
        np.testing.assert_array_equal(y, y0)
        g = np.array([1.0, 2.0, 3.0])
        for a, b in zip(back(g), back0(g)):
            if a is None:
                assert b is None
            else:
                np.testing.assert_array_equal(a, b)
    assert reverse_dispatched.apply_dispatched is not None


def test_a_partial_at_third_order_is_refused_not_guessed():
    f = functools.partial(keyworded, scale=0.5)
    held = [f]

    def g(x):
        return held[0](x)

    with pytest.raises(zp.NoDerivativeRule):
        zp.jacobian(lambda z: zp.hessian(g, z), X, mode="forward")
