"""Functions once listed as non-differentiable whose values move with an argument:
`np.arange(x0, 5.0, 1.0)`, `np.logspace(0, x0)`, `np.unique(x)`, `np.nextafter(x, inf)`
and random draws with active parameters (`rng.normal(mu, sigma)`, `rng.permutation(x)`,
`rng.shuffle(y)`) all had a silent zero derivative.  `np.arange` and `np.unique` have
rules now; the others are refused when an argument is active (no rule), and run as
before when none is.  Draws that no argument moves (standard draws, integer and discrete
ones) stay non-differentiable."""

import math

import numpy as np
import pytest
from derivative_checks import fd_gradient

import zygote_py as zp

X = np.array([0.7, -0.4, 1.3, 0.25])
V = np.array([0.3, -1.2, 0.5, 2.0])


def arange_start(x):
    return np.sum(np.arange(x[0], 5.0, 1.0) ** 2)


def arange_step(x):
    return np.sum(np.arange(0.0, 3.0, np.abs(x[1]) + 0.5) * x[2])


def unique_values(x):
    return np.sum(np.unique(np.concatenate([x, x[:2]])) ** 2)


def unique_with_counts(x):
    u, counts = np.unique(np.concatenate([x, x[1:3]]), return_counts=True)
    return np.sum(u * counts * np.arange(len(u)))


def standard_draws(x):
    rng = np.random.default_rng(3)
    z = rng.standard_normal(4)
    k = rng.integers(0, 4)
    n = rng.poisson(3.0)
    return np.sum(x[:2] + x[2:] * z[:2]) * (1 + k + n)


MOVING = [
    lambda x: np.sum(np.logspace(0.0, x[0], 4)),
    lambda x: np.sum(np.geomspace(1.0, np.abs(x[2]) + 2.0, 3)),
    lambda x: np.sum(np.nextafter(x, np.inf)),
    lambda x: math.nextafter(x[0], 10.0),
    lambda x: np.sum(np.histogram(x, bins=3)[1]),
    lambda x: np.sum(np.random.default_rng(0).normal(x[:2], 1.0)),
    lambda x: np.random.default_rng(0).uniform(x[1], 2.0),
    lambda x: np.random.default_rng(0).exponential(np.abs(x[0]) + 0.5),
    lambda x: np.random.default_rng(1).permutation(x)[0],
    lambda x: np.random.default_rng(1).choice(x),
    lambda x: np.random.RandomState(0).normal(x[0]),
]


def shuffled(x):
    y = x.copy()
    np.random.default_rng(2).shuffle(y)
    return y[0] * 2 + y[1]


def _fd(f):
    return fd_gradient(f, X)


@pytest.mark.parametrize("f", [arange_start, arange_step, unique_values, unique_with_counts,
                               standard_draws])
def test_rules_and_constant_draws_match_finite_differences(f):
    (g,) = zp.gradient(f, X.copy())
    assert np.allclose(g, _fd(f), rtol=1e-6, atol=1e-7)
    _, t = zp.jvp(f, (X.copy(),), (V,))
    assert t == pytest.approx(_fd(f) @ V, rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("f", MOVING + [shuffled])
def test_values_that_move_with_an_active_argument_are_refused(f):
    f(X)  # the primal runs
    with pytest.raises(zp.NoDerivativeRule):
        zp.gradient(f, X.copy())
    with pytest.raises(zp.NoDerivativeRule):
        zp.jvp(f, (X.copy(),), (V,))


def test_they_run_without_an_active_argument():
    def f(x):
        rng = np.random.default_rng(0)
        noise = rng.normal(0.0, 0.1, size=4) + np.sum(np.logspace(0, 1, 3))
        return np.sum((x + noise) ** 2)

    (g,) = zp.gradient(f, X.copy())
    assert np.allclose(g, _fd(f), rtol=1e-6)


def test_a_draw_refusal_says_how_to_reparameterise():
    with pytest.raises(zp.NoDerivativeRule, match="standard_normal"):
        zp.gradient(MOVING[5], X.copy())


def test_unique_of_integer_labels_passed_explicitly_is_not_refused():
    def f(x, labels):
        return np.sum(x[:len(np.unique(labels))] ** 2)

    g_x, g_labels = zp.gradient(f, X.copy(), np.array([1, 0, 1]))
    assert np.allclose(g_x, [1.4, -0.8, 0.0, 0.0]) and g_labels is None


def test_frequencies_move_with_the_sample_spacing():
    def f(x):
        return np.sum(np.fft.fftfreq(6, np.abs(x[0]) + 0.1) * x[1:4].sum())

    (g,) = zp.gradient(f, X.copy())
    assert np.allclose(g, _fd(f), rtol=1e-6, atol=1e-7)


def test_np_gradient_with_an_active_spacing_is_refused_and_a_constant_one_followed():
    # the rule differentiates f only: an active spacing once got a silent zero
    def active(x):
        return np.sum(np.gradient(x ** 2, np.abs(x[0]) + 0.5))

    def constant(x):
        return np.sum(np.gradient(x ** 2, 0.5)) + np.sum(np.gradient(x, np.array([0, 1, 1.5, 3])))

    with pytest.raises(zp.NoDerivativeRule, match="varargs"):
        zp.gradient(active, X.copy())
    with pytest.raises(zp.NoDerivativeRule, match="varargs"):
        zp.jvp(active, (X.copy(),), (V,))
    (g,) = zp.gradient(constant, X.copy())
    assert np.allclose(g, _fd(constant), rtol=1e-6)


def branchy(x, kind="linear"):
    if kind == "previous":  # not taken: its call with no rule must not stop compilation
        return np.sum(np.nextafter(x, -np.inf))
    total = 0.0
    for v in x:
        if v > 5.0:  # never true here
            total = total + np.logspace(0.0, v, 3)[1]
        total = total + v * v
    return total


def test_a_call_with_no_rule_in_a_branch_that_does_not_run_compiles():
    (g,) = zp.gradient(branchy, X.copy())
    assert np.allclose(g, 2 * X)
    _, t = zp.jvp(branchy, (X.copy(),), (V,))
    assert t == pytest.approx(2 * X @ V)
    with pytest.raises(zp.NoDerivativeRule, match="nextafter"):
        zp.gradient(branchy, X.copy(), "previous")
    with pytest.raises(zp.NoDerivativeRule, match="logspace"):
        zp.gradient(branchy, X + 5.0)
