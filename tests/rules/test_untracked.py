"""zp.no_grad as a decorator (zygote_py/rules/untracked.py): calls of the decorated
function carry no derivative, wherever the compiler meets them."""

from __future__ import annotations

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.rules import registry
from zygote_py.rules.untracked import run_untracked, untracked

X = np.array([0.5, -1.0, 2.0])


@zp.no_grad
def centre(v):
    return np.mean(v)


@zp.no_grad()
def spread(v):
    return np.std(v)


class Normaliser:
    @zp.no_grad
    def scale(self, v):
        return np.max(np.abs(v))

    def __call__(self, v):
        return v / self.scale(v)


def test_the_decorated_function_still_computes_what_it_did():
    assert centre(X) == pytest.approx(np.mean(X)) and spread.__name__ == "spread"
    assert spread(X) == pytest.approx(np.std(X))


def test_a_call_of_a_decorated_function_is_a_constant():
    def f(x):
        return np.sum((x - centre(x)) ** 2) / spread(x)

    c, s = np.mean(X), np.std(X)
    np.testing.assert_allclose(zp.gradient(f, X)[0], 2 * (X - c) / s)


def test_a_decorated_method_is_a_constant():
    norm = Normaliser()

    def f(x):
        return np.sum(norm(x) * np.array([1.0, 2.0, 3.0]))

    np.testing.assert_allclose(zp.gradient(f, X)[0], np.array([1.0, 2.0, 3.0]) / 2.0)


def test_a_decorated_function_in_a_params_call():
    W = np.array([[1.0, 2.0], [0.5, -1.0]])

    @zp.no_grad
    def frozen_norm():
        return np.linalg.norm(W)

    def loss():
        return np.sum(W) * frozen_norm()

    np.testing.assert_allclose(zp.gradient(loss, zp.params(W))[W], np.full((2, 2), np.linalg.norm(W)))


def test_the_gradient_of_a_decorated_function_itself_is_zero():
    assert zp.gradient(centre, X) == (None,)


def test_the_helpers_are_registered_without_a_derivative():
    assert registry.is_nondifferentiable(untracked) and registry.is_nondifferentiable(run_untracked)


def test_decorating_something_not_callable_is_a_type_error():
    with pytest.raises(TypeError, match="decorates a function"):
        zp.no_grad(3.0)
