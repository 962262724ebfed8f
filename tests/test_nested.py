"""Nested differentiation: zp.gradient inside a function that zp.gradient or zp.jvp
differentiates, against closed forms and central finite differences; the classic
perturbation-confusion test; Flux's nested example; a gradient penalty; a MAML step."""

from __future__ import annotations

import numpy as np
import pytest

import zygote_py as zp

EPS = 1e-6


def central(f, x):
    return (f(x + EPS) - f(x - EPS)) / (2 * EPS)


def confusion(x):
    # d/dx [x * d/dy (x * y)] = d/dx [x * x] = 2x: the inner y-derivative must not see x's
    return x * zp.gradient(lambda y: x * y, 3.0)[0]


@pytest.mark.parametrize("outer", ["reverse", "forward"])
def test_perturbation_confusion(outer):
    x = 1.5
    d = zp.gradient(confusion, x)[0] if outer == "reverse" else zp.jvp(confusion, (x,), (1.0,))[1]
    assert d == pytest.approx(2 * x, rel=1e-12)


def poly(x):
    return 3 * x ** 2 + 2 * x + 1


def dpoly(x):
    return zp.gradient(poly, x)[0]


def test_flux_nested_example():
    assert dpoly(2.0) == 14.0
    assert zp.gradient(dpoly, 2.0)[0] == 6.0
    assert zp.jvp(dpoly, (2.0,), (1.0,))[1] == 6.0


def inner(x):
    return np.sin(x) * x


def test_second_derivative_of_numpy_code():
    d2 = zp.gradient(lambda x: zp.gradient(inner, x)[0], 0.3)[0]
    assert d2 == pytest.approx(2 * np.cos(0.3) - 0.3 * np.sin(0.3), rel=1e-12)


def penalty(W):
    g = zp.gradient(lambda x: np.sum(np.tanh(W @ x)), np.array([1.0, -0.5]))[0]
    return np.sum(g ** 2)


def test_gradient_penalty_against_finite_differences():
    W = np.array([[0.3, -0.2], [0.5, 0.1]])
    dW = np.array([[1.0, 0.3], [-0.2, 0.4]])
    expected = (penalty(W + EPS * dW) - penalty(W - EPS * dW)) / (2 * EPS)
    (G,) = zp.gradient(penalty, W)
    assert np.sum(G * dW) == pytest.approx(expected, rel=1e-6)
    assert zp.jvp(penalty, (W,), (dW,))[1] == pytest.approx(expected, rel=1e-6)


XS = np.array([0.5, -1.0, 2.0])
YS = np.array([1.0, 0.0, -1.0])


def task_loss(w):
    return np.sum((w * XS - YS) ** 2)


def maml(w):
    adapted = w - 0.1 * zp.gradient(task_loss, w)[0]
    return task_loss(adapted)


def test_maml_inner_step():
    # closed form: adapted = w - 0.2 * sum((w x - y) x) = w (1 - 0.2 a) + 0.2 b
    a, b = np.sum(XS * XS), np.sum(XS * YS)
    w = 0.7
    c = 1 - 0.2 * a
    expected = 2 * np.sum((w * c * XS + 0.2 * b * XS - YS) * XS) * c
    assert zp.gradient(maml, w)[0] == pytest.approx(expected, rel=1e-10)
    assert zp.gradient(maml, w)[0] == pytest.approx(central(maml, w), rel=1e-6)


def test_nested_pullback_has_derivatives():
    def uses_pullback(x):
        return zp.pullback(inner, x)[0]  # the value: inner(x) = sin(x) x

    d = np.cos(0.3) * 0.3 + np.sin(0.3)
    assert zp.gradient(uses_pullback, 0.3)[0] == pytest.approx(d, rel=1e-12)
    assert zp.jvp(uses_pullback, (0.3,), (1.0,))[1] == pytest.approx(d, rel=1e-12)


def captured_in_a_list(w):
    params = [w, 2.0]
    g = zp.gradient(lambda y: params[0] * y * y, 1.5)[0]  # 2 w y = 3 w
    return g * w  # 3 w^2


@pytest.mark.parametrize("outer", ["reverse", "forward"])
def test_inner_function_capturing_a_list_of_the_outer_values(outer):
    # the inner gradient's dependence on w comes through a captured list: its mixed
    # derivative must reach w (it was a silent zero when only captured numbers counted)
    w = 0.7
    d = zp.gradient(captured_in_a_list, w)[0] if outer == "reverse" else \
        zp.jvp(captured_in_a_list, (w,), (1.0,))[1]
    assert d == pytest.approx(6 * w, rel=1e-10)


def test_what_the_nested_rule_cannot_follow_is_refused():
    def with_default(w):
        return zp.gradient(lambda y, c=w: c * y * y, 1.5)[0] * w

    def with_keywords(w):
        return zp.gradient(lambda y: w * y * y, 1.5, wrt=0)[0] * w

    class Scaled:
        def __init__(self, w):
            self.w = w

        def f(self, y):
            return self.w * y * y

    def with_a_method(m):
        return zp.gradient(m.f, 1.5)[0] * m.w

    for f, why in ((with_default, "default arguments"), (with_keywords, "keyword")):
        with pytest.raises(zp.NoDerivativeRule, match=why):
            zp.gradient(f, 0.7)
    with pytest.raises(zp.NoDerivativeRule, match="bound method"):
        zp.gradient(with_a_method, Scaled(0.7))
    with pytest.raises(zp.NoDerivativeRule):
        zp.jvp(with_a_method, (Scaled(0.7),), ({"w": 1.0},))

    W = np.array([0.7])

    def reads_a_parameter():
        return zp.gradient(lambda y: np.sum(W) * y * y, 1.5)[0] * np.sum(W)

    with pytest.raises(zp.NoDerivativeRule, match="params"):
        zp.gradient(reads_a_parameter, zp.params(W))


def both_move(w):
    return zp.gradient(lambda y: w * y ** 3, w)[0]  # 3 w y^2 at y = w: 3 w^3


@pytest.mark.parametrize("outer", ["reverse", "forward"])
def test_inner_arguments_and_captured_values_both_move(outer):
    w = 0.8
    d = zp.gradient(both_move, w)[0] if outer == "reverse" else zp.jvp(both_move, (w,), (1.0,))[1]
    assert d == pytest.approx(9 * w ** 2, rel=1e-10)


def test_a_captured_constant_reaching_an_underived_argument():
    """A closure captures the order v of scipy.special.iv while only z is differentiated:
    the nested rule compiles v as a constant (its rule has no derivative for v) and the
    second derivative in z is right; asking for the derivative in v gives NaN in reverse
    mode (never a silent zero) and is refused in forward mode."""
    special = pytest.importorskip("scipy.special")

    def slope(z):
        v = 2.0
        return zp.gradient(lambda t: special.iv(v, t), z)[0]

    numeric = (slope(1.3 + 1e-6) - slope(1.3 - 1e-6)) / 2e-6
    assert np.isclose(zp.gradient(slope, 1.3)[0], numeric, rtol=1e-6)
    assert np.isclose(zp.jvp(slope, (1.3,), (1.0,))[1], numeric, rtol=1e-6)

    def in_order(v):
        return zp.gradient(lambda t: special.iv(v, t), 1.3)[0]

    assert np.isnan(zp.gradient(in_order, 2.0)[0])
    with pytest.raises(zp.NoDerivativeRule, match="captured v"):
        zp.jvp(in_order, (2.0,), (1.0,))
