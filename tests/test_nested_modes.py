"""Nested derivatives in every combination of modes (zygote_py/nested.py): zp.pullback (and
its back function) and zp.jvp called inside a function that zp.gradient, zp.pullback or
zp.jvp differentiates.  Each is checked against a closed form and against central finite
differences of the lower-order derivative (float64); the perturbation-confusion test runs
for every pair of inner and outer modes."""

from __future__ import annotations

import numpy as np
import pytest

import zygote_py as zp

EPS = 1e-6


def central(f, x, v):
    """The central difference of f at x along v (x, v arrays or floats; f's value an
    array, a float or a tuple of them)."""
    plus, minus = f(x + EPS * v), f(x - EPS * v)
    if isinstance(plus, tuple):
        return tuple((np.asarray(a) - np.asarray(b)) / (2 * EPS) for a, b in zip(plus, minus))
    return (np.asarray(plus) - np.asarray(minus)) / (2 * EPS)


# -- the inner derivative, three ways; the outer, three ways -------------------------------


def inner_by_gradient(x):
    return zp.gradient(lambda y: x * y, 3.0)[0]


def inner_by_pullback(x):
    return zp.pullback(lambda y: x * y, 3.0)[1](1.0)[0]


def inner_by_jvp(x):
    return zp.jvp(lambda y: x * y, (3.0,), (1.0,))[1]


INNER = {"gradient": inner_by_gradient, "pullback": inner_by_pullback, "jvp": inner_by_jvp}


def outer(mode, f, x):
    if mode == "gradient":
        return zp.gradient(f, x)[0]
    if mode == "pullback":
        return zp.pullback(f, x)[1](1.0)[0]
    return zp.jvp(f, (x,), (1.0,))[1]


@pytest.mark.parametrize("inner", sorted(INNER))
@pytest.mark.parametrize("outer_mode", ["gradient", "pullback", "jvp"])
def test_perturbation_confusion_in_every_combination(inner, outer_mode):
    # d/dx [x * d/dy (x * y)] = d/dx [x * x] = 2x: the inner y-derivative must not see x's
    inner_derivative = INNER[inner]

    def confusion(x):
        return x * inner_derivative(x)

    assert outer(outer_mode, confusion, 1.5) == pytest.approx(3.0, rel=1e-12)


# -- second derivatives of array code, each combination ----------------------------------

C = np.array([0.3, -0.7, 1.1])


def f(x):
    return np.sin(x) * C + np.tanh(x) * x ** 2


def f_jacobian(x):  # diagonal
    return np.cos(x) * C + (1 - np.tanh(x) ** 2) * x ** 2 + 2 * x * np.tanh(x)


def f_second(x):  # d/dx of the diagonal
    t = np.tanh(x)
    s = 1 - t ** 2
    return -np.sin(x) * C + (-2 * t * s) * x ** 2 + 4 * x * s + 2 * t


X = np.array([0.4, -1.2, 0.9])
V = np.array([1.0, 0.5, -2.0])
G = np.array([0.3, -1.1, 0.6])
DX = np.array([-0.3, 0.8, 0.2])


def vjp_f(x, g):
    return zp.pullback(f, x)[1](g)[0]


def jvp_f(x, v):
    return zp.jvp(f, (x,), (v,))[1]


def test_closed_forms_of_the_first_order_functions():
    np.testing.assert_allclose(vjp_f(X, G), f_jacobian(X) * G, rtol=1e-12)
    np.testing.assert_allclose(jvp_f(X, V), f_jacobian(X) * V, rtol=1e-12)


@pytest.mark.parametrize("lifted", [vjp_f, jvp_f])
def test_reverse_over_each(lifted):
    # the map (x, u) -> J(x) u, u = g or v; its pullback at cotangent r
    r = np.array([0.7, 0.2, -0.4])
    y, back = zp.pullback(lifted, X, G)
    x_bar, u_bar = back(r)
    np.testing.assert_allclose(x_bar, f_second(X) * G * r, rtol=1e-10)
    np.testing.assert_allclose(u_bar, f_jacobian(X) * r, rtol=1e-12)
    fd_x = central(lambda x: lifted(x, G), X, DX)
    assert np.sum(x_bar * DX) == pytest.approx(np.sum(r * fd_x), rel=1e-6)
    fd_u = central(lambda u: lifted(X, u), G, DX)
    assert np.sum(u_bar * DX) == pytest.approx(np.sum(r * fd_u), rel=1e-6)


@pytest.mark.parametrize("lifted", [vjp_f, jvp_f])
def test_forward_over_each(lifted):
    du = np.array([0.1, -0.2, 0.3])
    y, t = zp.jvp(lifted, (X, G), (DX, du))
    np.testing.assert_allclose(y, f_jacobian(X) * G, rtol=1e-12)
    np.testing.assert_allclose(t, f_second(X) * G * DX + f_jacobian(X) * du, rtol=1e-10)
    both = central(lambda s: lifted(X + s * DX, G + s * du), 0.0, 1.0)
    np.testing.assert_allclose(t, both, rtol=1e-6, atol=1e-8)


def mixing(x):
    """A map whose Jacobian is not diagonal: the second-order terms mix the elements."""
    return np.array([x[0] * x[1] ** 2, np.sin(x[0] + 2 * x[1]), np.sum(x ** 3)])


def mixing_hessians(x):
    """The Hessian of each output of mixing, in closed form."""
    s = np.sin(x[0] + 2 * x[1])
    return np.array([[[0.0, 2 * x[1]], [2 * x[1], 2 * x[0]]],
                     -s * np.array([[1.0, 2.0], [2.0, 4.0]]),
                     np.diag(6 * x)])


def test_forward_over_forward_of_a_mixing_map():
    x, v, w, dv = np.array([0.3, -0.8]), np.array([1.0, 0.4]), np.array([-0.5, 0.7]), \
        np.array([0.2, 0.1])
    _, t = zp.jvp(lambda x, v: zp.jvp(mixing, (x,), (v,))[1], (x, v), (w, dv))
    fd = central(lambda s: zp.jvp(mixing, (x + s * w,), (v + s * dv,))[1], 0.0, 1.0)
    np.testing.assert_allclose(t, fd, rtol=1e-6, atol=1e-9)
    # closed form of the second-order term for the first output: d2(x0 x1^2)[v, w]
    second = 2 * x[1] * (v[0] * w[1] + v[1] * w[0]) + 2 * x[0] * v[1] * w[1]
    first = dv[0] * x[1] ** 2 + dv[1] * 2 * x[0] * x[1]
    assert t[0] == pytest.approx(second + first, rel=1e-12)


def test_reverse_over_reverse_of_a_mixing_map_is_the_hessian_product():
    x, g, r = np.array([0.3, -0.8]), np.array([0.5, -1.0, 2.0]), np.array([0.4, 0.9])
    (x_bar, g_bar) = zp.pullback(lambda x, g: zp.pullback(mixing, x)[1](g)[0], x, g)[1](r)
    np.testing.assert_allclose(g_bar, zp.jvp(mixing, (x,), (r,))[1], rtol=1e-12)
    # x_bar = sum_k g_k H_k r, H_k the Hessian of output k
    expected = np.einsum("k,kij,j->i", g, mixing_hessians(x), r)
    np.testing.assert_allclose(x_bar, expected, rtol=1e-10)


def test_jvp_by_reverse_over_reverse():
    # autograd's make_jvp_reversemode: the vjp of the vjp at a zero cotangent is the jvp
    x, v = np.array([0.3, -0.8]), np.array([1.0, 0.4])
    zero = np.zeros(3)
    _, back = zp.pullback(lambda g: zp.pullback(mixing, x)[1](g)[0], zero)
    np.testing.assert_allclose(back(v)[0], zp.jvp(mixing, (x,), (v,))[1], rtol=1e-12)


def test_captured_values_get_their_mixed_derivatives():
    # the inner function captures w; the outer derivative is with respect to w
    x, g = np.array([0.3, -0.8, 0.5]), np.array([1.0, 2.0, -1.0])

    def lifted(w):
        back = zp.pullback(lambda z: np.sin(w * z), x)[1]
        return np.sum(back(g)[0] ** 2)

    w, dw = 0.7, 1.0
    fd = central(lifted, w, dw)
    assert zp.gradient(lifted, w)[0] == pytest.approx(fd, rel=1e-6)
    assert zp.jvp(lifted, (w,), (dw,))[1] == pytest.approx(fd, rel=1e-6)

    def through_jvp(w):
        return np.sum(zp.jvp(lambda z: np.sin(w * z), (x,), (g,))[1] ** 2)

    fd = central(through_jvp, w, dw)
    assert zp.gradient(through_jvp, w)[0] == pytest.approx(fd, rel=1e-6)
    assert zp.jvp(through_jvp, (w,), (dw,))[1] == pytest.approx(fd, rel=1e-6)


def test_tuple_arguments_and_outputs():
    def pair(a, b):
        return np.dot(a, b), a * 2.0

    a, b = np.array([[0.3, -0.2], [0.5, 0.1], [1.0, 2.0]]), np.array([0.7, -0.4])

    def vjp_pair(a, b, g0, g1):
        return zp.pullback(pair, a, b)[1]((g0, g1))

    g0, g1 = np.array([1.0, 0.5, -0.5]), np.ones((3, 2))
    r = (np.ones((3, 2)), np.array([0.2, 0.3]))
    bars = zp.pullback(vjp_pair, a, b, g0, g1)[1](r)
    dirs = (np.full((3, 2), 0.1), np.array([0.3, -0.2]), np.array([0.5, 0.1, 0.2]),
            np.full((3, 2), -0.2))
    args = (a, b, g0, g1)
    fd = central(lambda s: vjp_pair(*(x + s * d for x, d in zip(args, dirs))), 0.0, 1.0)
    exact = sum(np.sum(bar * d) for bar, d in zip(bars, dirs))
    assert exact == pytest.approx(sum(np.sum(ri * fi) for ri, fi in zip(r, fd)), rel=1e-6)
    _, t = zp.jvp(vjp_pair, args, dirs)
    for ti, fi in zip(t, fd):
        np.testing.assert_allclose(ti, fi, rtol=1e-6, atol=1e-8)


def test_what_nesting_cannot_follow_is_refused():
    def with_keywords(x):
        return zp.pullback(lambda y: x * y, 1.5, wrt=0)[1](1.0)

    with pytest.raises(zp.NoDerivativeRule, match="keyword"):
        zp.gradient(with_keywords, 0.7)

    class Scaled:
        def __init__(self, w):
            self.w = w

        def f(self, y):
            return self.w * y * y

    def with_a_method(m):
        return zp.pullback(m.f, 1.5)[1](1.0)[0] * m.w

    with pytest.raises(zp.NoDerivativeRule, match="bound method"):
        zp.gradient(with_a_method, Scaled(0.7))

    # a third derivative whose innermost gradient code has a call decided while running (the
    # captured w's type is not known to the compiler) is followed since reverse mode
    # differentiates those calls (tests/calls/test_reverse_dispatched.py): third(x, x) is
    # 12 x^3, through w and through z both
    def third(x, w):
        return zp.gradient(lambda z: zp.pullback(lambda u: w * u ** 4, z)[1](1.0)[0], x)[0]

    assert np.isclose(zp.gradient(lambda x: third(x, x), 0.3)[0], 36 * 0.3 ** 2, rtol=1e-12)


@pytest.mark.parametrize("outer_mode", ["gradient", "jvp"])
def test_withgradient_inside(outer_mode):
    # y + g with (y, g) = (x^3 sin x, its derivative): d/dx = y' + y''
    def value_and_slope(x):
        y, (g,) = zp.withgradient(lambda z: z ** 3 * np.sin(z), x)
        return y + 2.0 * g

    x = 0.6
    d1 = 3 * x ** 2 * np.sin(x) + x ** 3 * np.cos(x)
    d2 = 6 * x * np.sin(x) + 6 * x ** 2 * np.cos(x) - x ** 3 * np.sin(x)
    got = outer(outer_mode, value_and_slope, x)
    assert got == pytest.approx(d1 + 2.0 * d2, rel=1e-10)
    assert got == pytest.approx(central(value_and_slope, x, 1.0), rel=1e-6)


@pytest.mark.parametrize("outer_mode", ["gradient", "jvp"])
def test_jacobian_inside(outer_mode):
    # autograd's test_jacobian_higher_order: sum(sin(J(x))), J the Jacobian of a map R^2 -> R^(2x2)
    def fun(x):
        return np.sin(np.outer(x, x)) + np.cos(np.dot(x, x))

    def lifted(x):
        return np.sum(np.sin(zp.jacobian(fun, x)[0]))

    x, v = np.array([0.4, -0.9]), np.array([1.0, 0.3])
    fd = central(lifted, x, v)
    if outer_mode == "gradient":
        got = np.sum(zp.gradient(lifted, x)[0] * v)
    else:
        got = zp.jvp(lifted, (x,), (v,))[1]
    assert got == pytest.approx(fd, rel=1e-6)


def test_jacobian_of_a_jacobian_is_the_second_derivative_tensor():
    x = np.array([0.4, -0.9])
    hess = zp.jacobian(lambda z: zp.jacobian(mixing, z)[0], x)[0]
    np.testing.assert_allclose(hess, mixing_hessians(x), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("inner", ["gradient", "pullback"])
@pytest.mark.parametrize("outer_mode", ["gradient", "jvp"])
def test_inner_function_calling_a_closure_over_the_outer_variable(inner, outer_mode):
    # the inner gradient code calls g, decided while running; g's captured x must get
    # its outer derivative (it was lost when only captured numbers counted)
    def lifted(x):
        g = lambda y: np.sin(x * y)  # noqa: E731
        h = lambda y: g(y)  # noqa: E731
        if inner == "gradient":
            return x * zp.gradient(h, 2.0)[0]
        return x * zp.pullback(h, 2.0)[1](1.0)[0]

    x = 0.4
    expected = 2 * x * np.cos(2 * x) - 2 * x * x * np.sin(2 * x)  # d/dx [x * x cos(2x)]
    assert outer(outer_mode, lifted, x) == pytest.approx(expected, rel=1e-10)


def test_hessian_through_a_call_decided_while_running():
    def f(x):
        scale = lambda y: np.sum(np.sin(x * y))  # noqa: E731
        return scale(x)  # sum(sin(x^2))

    x = np.array([0.3, -0.7])
    expected = np.diag(2 * np.cos(x ** 2) - 4 * x ** 2 * np.sin(x ** 2))
    np.testing.assert_allclose(zp.hessian(f, x), expected, rtol=1e-10, atol=1e-12)


def test_second_derivatives_through_a_captured_function_with_defaults():
    # autograd's test_plain_numpy_reductions_on_box: the inner function is reached through a
    # closure cell (a call decided while running) and fills a parameter from its default
    base = np.array([0.5, 1.5, 0.7])

    def fun_plain(a, _r=np.prod):
        return _r(np.exp(a) * base)

    def make(fun):
        return lambda x: fun(x)

    unary = make(fun_plain)
    x = 0.7
    expected = 9 * np.exp(3 * x) * np.prod(base)  # prod(exp(a) base) = exp(3a) prod(base)
    assert zp.hessian(unary, x) == pytest.approx(expected, rel=1e-12)
    assert zp.gradient(lambda z: zp.gradient(unary, z)[0], x)[0] == pytest.approx(expected, rel=1e-12)
    assert zp.jvp(lambda z: zp.pullback(unary, z)[1](1.0)[0], (x,), (1.0,))[1] == \
        pytest.approx(expected, rel=1e-12)


def test_an_inner_function_with_a_zero_derivative():
    # np.sign: every tangent of the inner program is zero (None), in each combination
    x, v = np.array([[0.3, -0.5]]), np.ones((1, 2))
    _, t = zp.jvp(lambda x, v: zp.jvp(np.sign, (x,), (v,))[1], (x, v), (v, v))
    np.testing.assert_array_equal(t, np.zeros((1, 2)))
    y, t = zp.jvp(lambda x, g: zp.pullback(np.sign, x)[1](g)[0], (x, v), (v, v))
    assert y is None and t is None  # zygote_py's zero cotangent, and its zero tangent
    bars = zp.pullback(lambda x, g: zp.pullback(np.sign, x)[1](g)[0], x, v)[1](v)
    assert all(b is None or not np.any(b) for b in bars)
