"""Third derivatives (zygote_py/nested.py: forward mode over the back of a nested rule):
zp.gradient, zp.pullback, zp.jvp, zp.hessian and zp.hvp nested three deep, in every
combination of modes.  Each is checked against a closed form and against central finite
differences of the second derivative (float64); perturbations of the three levels are
kept apart; what is not followed (a call decided while running in the innermost gradient
code, a fourth order) is refused, never a silent zero."""

from __future__ import annotations

import numpy as np
import pytest

import zygote_py as zp

EPS = 1e-5


def quartic(x):
    return x ** 4 + np.sin(x)


def d3_quartic(x):
    return 24 * x - np.cos(x)


def derivative(kind, f):
    """x -> f'(x), taken inside by zp.gradient, zp.pullback or zp.jvp."""
    if kind == "gradient":
        return lambda x: zp.gradient(f, x)[0]
    if kind == "pullback":
        return lambda x: zp.pullback(f, x)[1](1.0)[0]
    return lambda x: zp.jvp(f, (x,), (1.0,))[1]


def outer(kind, f, x):
    """f'(x) taken from outside, by the three modes."""
    if kind == "gradient":
        return zp.gradient(f, x)[0]
    if kind == "pullback":
        return zp.pullback(f, x)[1](1.0)[0]
    return zp.jvp(f, (x,), (1.0,))[1]


KINDS = ("gradient", "pullback", "jvp")


# every mode at every level, each (inner, middle) pair under each outer mode (the nine other
# orderings run the same code paths; all 27 pass, but each compiles its own programs)
COMBINATIONS = [(inner, middle, top)
                for inner, middle in (("gradient", "pullback"), ("pullback", "jvp"),
                                      ("jvp", "gradient"))
                for top in KINDS]


@pytest.mark.parametrize("inner,middle,top", COMBINATIONS)
def test_third_derivative_in_combinations_of_modes(inner, middle, top):
    second = derivative(middle, derivative(inner, quartic))
    got = outer(top, second, 0.7)
    assert np.isclose(got, d3_quartic(0.7), rtol=1e-12, atol=1e-12)
    numeric = (second(0.7 + EPS) - second(0.7 - EPS)) / (2 * EPS)
    assert np.isclose(got, numeric, rtol=1e-7)


def f_array(x):
    return np.sum(np.sin(x) * x ** 2) + x[0] * x[1] ** 3


X = np.array([0.3, -0.8, 1.2])
V = np.array([0.5, 0.1, -0.4])
W = np.array([-0.2, 0.9, 0.3])


def test_jvp_of_a_hessian_vector_product_on_arrays():
    def hv(x):
        return zp.hvp(f_array, x, V)

    _, got = zp.jvp(hv, (X,), (W,))
    numeric = (hv(X + EPS * W) - hv(X - EPS * W)) / (2 * EPS)
    np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-8)


def test_gradient_of_a_hessian_vector_product_in_both_arguments():
    weights = np.array([1.0, -2.0, 0.5])

    def contracted(x, v):
        return np.sum(weights * zp.hvp(f_array, x, v))

    x_bar, v_bar = zp.gradient(contracted, X, V)
    for j, e in enumerate(np.eye(3)):
        assert np.isclose(x_bar[j], (contracted(X + EPS * e, V) - contracted(X - EPS * e, V))
                          / (2 * EPS), rtol=1e-6, atol=1e-8)
        assert np.isclose(v_bar[j], (contracted(X, V + EPS * e) - contracted(X, V - EPS * e))
                          / (2 * EPS), rtol=1e-6, atol=1e-8)


def test_jvp_and_gradient_of_a_hessian():
    def hessian(x):
        return zp.hessian(f_array, x)

    _, got = zp.jvp(hessian, (X,), (W,))
    numeric = (hessian(X + EPS * W) - hessian(X - EPS * W)) / (2 * EPS)
    np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-8)
    weights = np.arange(9.0).reshape(3, 3) - 4.0

    def contracted(x):
        return np.sum(weights * zp.hessian(f_array, x))

    (grad,) = zp.gradient(contracted, X)
    for j, e in enumerate(np.eye(3)):
        numeric_j = (contracted(X + EPS * e) - contracted(X - EPS * e)) / (2 * EPS)
        assert np.isclose(grad[j], numeric_j, rtol=1e-6, atol=1e-8)


def test_third_derivative_of_x_to_the_fourth():
    def d2(x):
        return zp.gradient(lambda y: zp.gradient(lambda z: z ** 4, y)[0], x)[0]

    for x in (-1.5, 0.0, 2.0):
        assert np.isclose(zp.gradient(d2, x)[0], 24 * x)
        assert np.isclose(zp.jvp(d2, (x,), (1.0,))[1], 24 * x)


def test_perturbations_of_three_levels_are_kept_apart():
    # d/dz (a b z^2) at z = 1 is 2ab; y * 2xy differentiated in y at y = 2 is 8x;
    # x * 8x differentiated in x is 16x.  Values enter the innermost function as arguments.
    def innermost(x, y):
        return zp.gradient(lambda z, a, b: a * b * z ** 2, 1.0, x, y)[0]

    def middle(x):
        return x * zp.gradient(lambda y: y * innermost(x, y), 2.0)[0]

    assert np.isclose(middle(1.5), 8 * 1.5 ** 2)
    assert np.isclose(zp.gradient(middle, 1.5)[0], 16 * 1.5)
    assert np.isclose(zp.jvp(middle, (1.5,), (1.0,))[1], 16 * 1.5)


def test_a_mixed_third_derivative_through_two_arguments():
    def f(x, y):
        return np.sin(x * y) * y

    def fxy(x, y):  # d2f/dxdy, by gradients inside
        return zp.gradient(lambda b: zp.gradient(f, x, b)[0], y)[0]

    got = zp.gradient(fxy, 0.4, 1.3)
    for i, e in enumerate(np.eye(2)):
        numeric = (fxy(*(np.array([0.4, 1.3]) + EPS * e)) -
                   fxy(*(np.array([0.4, 1.3]) - EPS * e))) / (2 * EPS)
        assert np.isclose(got[i], numeric, rtol=1e-6)


def test_a_loop_in_the_innermost_function():
    # the gradient's tape holds the pullbacks of the loop's calls: reverse over it, then
    # forward, follows them
    def looped(x):
        for _ in range(3):
            x = np.sin(x) * x
        return x

    def d2(x):
        return zp.gradient(lambda y: zp.gradient(looped, y)[0], x)[0]

    numeric = (d2(0.7 + EPS) - d2(0.7 - EPS)) / (2 * EPS)
    assert np.isclose(zp.gradient(d2, 0.7)[0], numeric, rtol=1e-6)
    assert np.isclose(zp.jvp(d2, (0.7,), (1.0,))[1], numeric, rtol=1e-6)


def test_a_captured_value_in_the_innermost_function():
    # w * z ** 4 with w captured: a call the innermost gradient code resolves while running
    # (calls/reverse_dispatched.py), and w's own third-order mixed derivative
    def d2(x, w):
        return zp.gradient(lambda y: zp.gradient(lambda z: w * z ** 4, y)[0], x)[0]

    assert np.isclose(d2(0.5, 2.0), 2.0 * 12 * 0.25)
    assert np.isclose(zp.jvp(lambda x: d2(x, 2.0), (0.5,), (1.0,))[1], 24 * 2.0 * 0.5)
    assert np.isclose(zp.gradient(lambda x: d2(x, 2.0), 0.5)[0], 24 * 2.0 * 0.5)
    # d/dw of 12 w x^2 is 12 x^2; along x = w both paths add
    assert np.isclose(zp.gradient(lambda w: d2(0.5, w), 2.0)[0], 12 * 0.25)
    assert np.isclose(zp.jvp(lambda w: d2(0.5, w), (2.0,), (1.0,))[1], 12 * 0.25)
    assert np.isclose(zp.gradient(lambda x: d2(x, x), 0.5)[0], 36 * 0.25)
    numeric = (d2(0.5 + EPS, 2.0) - d2(0.5 - EPS, 2.0)) / (2 * EPS)
    assert np.isclose(zp.gradient(lambda x: d2(x, 2.0), 0.5)[0], numeric, rtol=1e-6)


def g_inner(y):
    return np.sum(np.sin(y) * y ** 2)


_, BACK_OUTSIDE = zp.pullback(g_inner, np.array([0.3, 0.8]))

HESSIAN_OF = {
    "gradient": lambda x: np.sum(zp.gradient(g_inner, x)[0] ** 2),
    "withgradient": lambda x: np.sum(zp.withgradient(g_inner, x)[1][0] ** 2),
    "pullback": lambda x: np.sum(zp.pullback(g_inner, x)[1](1.5)[0] ** 2),
    "jvp": lambda x: zp.jvp(g_inner, (x,), (x,))[1] ** 2,
    "jacobian": lambda x: np.sum(zp.jacobian(lambda y: np.sin(y) * y, x)[0] ** 2),
    "back of a pullback made outside": lambda x: np.sum(BACK_OUTSIDE(x[0])[0] * x),
}


@pytest.mark.parametrize("inner", list(HESSIAN_OF))
def test_hessian_of_a_function_calling_a_nested_derivative(inner):
    f = HESSIAN_OF[inner]
    x = np.array([0.3, 0.8])
    got = zp.hessian(f, x)
    for j, e in enumerate(np.eye(2)):
        numeric = (zp.gradient(f, x + EPS * e)[0] - zp.gradient(f, x - EPS * e)[0]) / (2 * EPS)
        np.testing.assert_allclose(got[:, j], numeric, rtol=1e-6, atol=1e-8)


def test_a_fourth_order_is_refused():
    with pytest.raises(zp.NoDerivativeRule, match="third"):
        zp.hessian(lambda x: np.sum(zp.hessian(g_inner, x)), np.array([0.3, 0.8]))


@pytest.mark.parametrize("fun", [np.angle, np.abs, lambda z: np.real(z ** 3 * np.conj(z))],
                         ids=["angle", "abs", "z3_conj_z"])
def test_third_derivatives_of_a_function_of_a_complex_number(fun):
    # autograd's test_complex.py: the gradient (a covector, docs/complex.md) differentiated
    # twice more, forward along complex directions and in reverse, against differences
    z, v, w, c = 0.6 + 0.3j, 0.4 - 0.7j, -0.2 + 0.5j, 0.3 + 0.8j

    def slope(x, direction):
        return zp.jvp(lambda u: zp.gradient(fun, u)[0], (x,), (direction,))[1]

    numeric = (slope(z + EPS * w, v) - slope(z - EPS * w, v)) / (2 * EPS)
    assert np.isclose(zp.jvp(lambda x: slope(x, v), (z,), (w,))[1], numeric, rtol=1e-6)

    def paired(x):
        return np.real(slope(x, v) * c)

    bar = zp.gradient(paired, z)[0]
    for dz in (1.0, 1j):  # a real output's gradient g: d paired = Re(g dz)
        numeric = (paired(z + EPS * dz) - paired(z - EPS * dz)) / (2 * EPS)
        assert np.isclose(np.real(bar * dz), numeric, rtol=1e-6)


@pytest.mark.parametrize("p", [3, 2, 4.0])
def test_a_captured_exponent_in_the_innermost_function(p):
    # w * z ** p with w and p captured: the innermost gradient code resolves np.power while
    # running; reverse over its back met a zero cotangent of the power (its exponent's, an
    # int's) with a tangent, and ran the rule's body on None (an internal TypeError)
    def d2(x, w):
        return zp.gradient(lambda y: zp.gradient(lambda z: w * np.power(z, p), y)[0], x)[0]

    exact = 2.0 * p * (p - 1) * (p - 2) * 0.5 ** (p - 3)
    numeric = (d2(0.5 + EPS, 2.0) - d2(0.5 - EPS, 2.0)) / (2 * EPS)
    assert np.isclose(numeric, exact, rtol=1e-6)
    assert np.isclose(zp.gradient(lambda x: d2(x, 2.0), 0.5)[0], exact, rtol=1e-9)
    assert np.isclose(zp.jvp(lambda x: d2(x, 2.0), (0.5,), (1.0,))[1], exact, rtol=1e-9)


def test_wrappers_of_a_call_tell_equal_constants_apart():
    # nested.py's wrapper of a call resolved while running is cached by its constants:
    # 1 == True == 1.0 as keys, but x[True] is not x[1]
    import operator

    from zygote_py.nested import _call_wrapper

    x = np.array([0.5, 0.7])
    by_int = _call_wrapper(operator.getitem, (x, 1), (0,), (None, None))
    by_bool = _call_wrapper(operator.getitem, (x, True), (0,), (None, None))
    assert by_int(x) == x[1]
    assert np.shape(by_bool(x)) == np.shape(x[True])
    zero = _call_wrapper(np.copysign, (x, (0.0, 1)), (0,), (None, None))
    negative_zero = _call_wrapper(np.copysign, (x, (-0.0, 1)), (0,), (None, None))
    assert zero is not negative_zero
    assert _call_wrapper(operator.getitem, (x, 1), (0,), (None, None)) is by_int  # still cached
