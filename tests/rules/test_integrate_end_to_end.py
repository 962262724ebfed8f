"""scipy.integrate.odeint through zp.gradient (the adjoint method) against central finite
differences of a tightly solved ODE: a small neural ODE with its weights in args=, the
initial state and the observation times; and the refusals (a derivative function closing
over an active value, a zp.params gradient)."""

from __future__ import annotations

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp

integrate = pytest.importorskip("scipy.integrate")
RNG = np.random.default_rng(13)
TIMES = np.array([0.0, 0.4, 1.1, 1.5])


def neural_field(y, t, w1, b1, w2):
    return np.tanh(y @ w1 + b1) @ w2 - 0.1 * y


def _check(loss, *args):
    grads = zp.gradient(loss, *args)
    want = numerical_gradient(loss, args)
    for i, (g, fd, a) in enumerate(zip(grads, want, args)):
        assert_gradient_matches(g, fd, a, f"arg{i}", atol=1e-6, rtol=1e-5)


def test_neural_ode_weights_initial_state_and_times():
    target = RNG.standard_normal((4, 2))

    def loss(y0, w1, b1, w2, times):
        ys = integrate.odeint(neural_field, y0, times, args=(w1, b1, w2), rtol=1e-12, atol=1e-12)
        return np.sum((ys - target) ** 2)

    _check(loss, RNG.standard_normal(2), 0.5 * RNG.standard_normal((2, 3)),
           0.5 * RNG.standard_normal(3), 0.5 * RNG.standard_normal((3, 2)), TIMES)


def test_scalar_parameter_with_tfirst():
    def decay(t, y, k):
        return -k * y + np.sin(t)

    def loss(k, y0):
        ys = integrate.odeint(decay, y0, TIMES, args=(k,), tfirst=True, rtol=1e-12, atol=1e-12)
        return np.sum(ys ** 3)

    _check(loss, 0.8, np.array([1.2]))


def test_a_derivative_function_closing_over_an_active_value_is_refused():
    def loss(k, y0):
        def decay(y, t):
            return -k * y
        return np.sum(integrate.odeint(decay, y0, TIMES))

    with pytest.raises(zp.NoDerivativeRule, match="func"):
        zp.gradient(loss, 0.8, np.array([1.0]))


K = np.array([0.7])


def _decay_global(y, t):
    return -K * y


def test_inside_a_params_gradient_is_refused():
    def loss():
        return np.sum(integrate.odeint(_decay_global, np.array([1.0]), TIMES))

    with pytest.raises(zp.NoDerivativeRule, match="params"):
        zp.gradient(loss, zp.params(K))


def test_solve_ivp_observed_after_the_start():
    def field(t, y, theta, w):
        return np.array([y[1], -theta * np.sin(y[0]) - w[0] * y[1] + w[1] * t])

    def loss(y0, theta, w):
        sol = integrate.solve_ivp(field, (0.0, 1.5), y0, t_eval=np.array([0.3, 0.9, 1.5]),
                                  args=(theta, w), rtol=1e-12, atol=1e-12)
        return np.sum(sol.y[0] ** 2) + np.sum(sol.y[:, -1])

    _check(loss, np.array([0.5, -0.2]), 1.3, np.array([0.3, 0.1]))


def test_solve_ivp_without_t_eval_is_refused():
    def decay(t, y, k):
        return -k * y

    def loss(k):
        return np.sum(integrate.solve_ivp(decay, (0.0, 1.0), np.array([1.0]), args=(k,)).y)

    with pytest.raises(zp.NoDerivativeRule, match="t_eval"):
        zp.gradient(loss, 0.5)
