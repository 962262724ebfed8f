"""aot/module.py: a standalone module generated without example arguments takes the
parameters whose methods or attributes it differentiates to be NumPy arrays or
numbers (analysis/receivers.py: assumed_array_params), and checks that they are at
every call: another object would get NumPy's derivative of `p.mean()`, a wrong
gradient.  With example arguments, the code is specialised on the real kinds."""

from __future__ import annotations

import math
import types

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.aot.builder import NotStandalone
from zygote_py.aot.module import standalone_module


class Box:
    """Not an array, with a method named like an ndarray one."""

    def __init__(self, w):
        self.w = w

    def mean(self):
        return 3.0 * np.sum(self.w)


def mean_loss(p):
    return p.mean() * 2.0


def _helper(p):
    return p.mean()


def through_helper(x, p):
    return np.sum(x * x) + _helper(p)


def numpy_only(x, y):
    return np.sum(np.tanh(x) * y)


def math_only(x):
    return math.tanh(math.sin(x))


def keyword_receiver(x, *, scale):
    return np.sum(x) * scale.mean()


def fd_gradient(f, x, h=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        step = np.zeros_like(x)
        step.flat[i] = h
        out.flat[i] = (f(x + step) - f(x - step)) / (2 * h)
    return out


def load(text: str, name: str):
    module = types.ModuleType(name)
    exec(compile(text, f"<{name}>", "exec"), module.__dict__)
    return module


P = np.array([0.5, -1.5, 2.0])


def test_the_module_checks_the_parameter_and_is_right_for_arrays():
    text = standalone_module(mean_loss)
    assert "Takes p to be NumPy arrays or numbers (checked at each call)." in text
    module = load(text, "mean_loss_grad")
    (g,) = module.grad_mean_loss(P)
    np.testing.assert_allclose(g, fd_gradient(mean_loss, P), rtol=1e-7, atol=1e-9)
    (g,) = module.grad_mean_loss(np.float64(0.7))  # a NumPy number is fine too
    assert g == pytest.approx(2.0)


def test_an_object_is_refused_not_given_numpys_derivative():
    module = load(standalone_module(mean_loss), "mean_loss_grad")
    with pytest.raises(TypeError, match=r"argument 'p' is a Box.*--args"):
        module.grad_mean_loss(Box(P))
    with pytest.raises(TypeError, match="argument 'p' is a Box"):
        module.value_and_grad_mean_loss(Box(P))
    # in process the object's own method is differentiated: d(6 * sum(w))/dw = 6
    (g,) = zp.gradient(mean_loss, Box(P))
    np.testing.assert_allclose(g["w"], fd_gradient(lambda w: mean_loss(Box(w)), P), rtol=1e-7)


def test_a_parameter_passed_to_a_helper_is_checked_and_the_others_are_not():
    module = load(standalone_module(through_helper), "through_helper_grad")
    x = np.array([1.0, -2.0])
    x_bar, p_bar = module.grad_through_helper(x, P)
    np.testing.assert_allclose(x_bar, 2 * x, rtol=1e-12)
    np.testing.assert_allclose(p_bar, fd_gradient(lambda p: through_helper(x, p), P), rtol=1e-7)
    with pytest.raises(TypeError, match="argument 'p' is a Box"):
        module.grad_through_helper(x, Box(P))


def test_the_pullback_module_checks_too():
    module = load(standalone_module(mean_loss, mode="pullback"), "mean_loss_pullback")
    y, back = module.pullback_mean_loss(P)
    assert y == pytest.approx(2.0 * P.mean())
    np.testing.assert_allclose(back(1.0)[0], fd_gradient(mean_loss, P), rtol=1e-7, atol=1e-9)
    with pytest.raises(TypeError, match="argument 'p' is a Box"):
        module.pullback_mean_loss(Box(P))


def test_no_check_where_nothing_depends_on_the_kind():
    text = standalone_module(math_only)
    assert "check_assumed_arrays" not in text and "checked at each call" not in text
    module = load(text, "math_only_grad")
    (x_bar,) = module.grad_math_only(0.3)
    assert x_bar == pytest.approx(np.cos(0.3) / np.cosh(np.sin(0.3)) ** 2, rel=1e-12)


def test_operands_of_operators_and_numpy_functions_are_checked():
    # an object's own __rmul__ or __array_ufunc__ would decide what these mean
    module = load(standalone_module(numpy_only), "numpy_only_grad")
    y = np.array([2.0, -1.0, 0.5])
    x_bar, y_bar = module.grad_numpy_only(P, y)
    np.testing.assert_allclose(x_bar, fd_gradient(lambda x: numpy_only(x, y), P), rtol=1e-7)
    np.testing.assert_allclose(y_bar, np.tanh(P), rtol=1e-12)
    with pytest.raises(TypeError, match="argument 'y' is a Box"):
        module.grad_numpy_only(P, Box(y))


def test_a_keyword_only_receiver_asks_for_example_arguments():
    with pytest.raises(NotStandalone, match="'scale'.*array or a number") as info:
        standalone_module(keyword_receiver)
    assert "--args" in str(info.value)
