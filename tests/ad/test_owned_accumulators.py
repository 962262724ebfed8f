"""A loop that reads a value from outside it adds that value's cotangent into an
accumulator the adjoint owns, in place (runtime/helpers.py: accum_owned), checked
against finite differences: weights read every step, one read twice a step, broadcasting
into the accumulator, nested loops, a cotangent that is also returned, forward mode and
second derivatives over the same code."""

from __future__ import annotations

import numpy as np
import pytest
from corpus.finite_diff import numerical_gradient

import zygote_py as zp

rng = np.random.default_rng(23)


def _rnn(w, u, b, xs):
    h = np.zeros((2, 3))
    for t in range(xs.shape[0]):
        h = np.tanh(h @ w + xs[t] @ u + b)
    return np.sum(h**2)


def _read_twice_a_step(w, x):
    for _ in range(3):
        x = np.sin(x * w) + x * w  # w's cotangent gets two parts a step
    return np.sum(x)


def _nested(w, x):
    for _ in range(2):
        for _ in range(2):
            x = np.tanh(x * w + w)
        x = x * w
    return np.sum(x**2)


def _scalar_weight(s, x):
    for _ in range(3):
        x = np.sin(x * s)
    return np.sum(x)


def _the_input_is_returned_too(w):
    total = 0.0
    for _ in range(3):
        total = total + np.sum(np.cos(w) * w)
    return total + np.sum(w)


CASES = [
    (_rnn, (0.5 * rng.standard_normal((3, 3)), rng.standard_normal((4, 3)),
            rng.standard_normal(3), rng.standard_normal((5, 2, 4)))),
    (_read_twice_a_step, (rng.standard_normal(4) * 0.5, rng.standard_normal((3, 4)))),
    (_nested, (rng.standard_normal(3) * 0.5, rng.standard_normal((2, 3)))),
    (_scalar_weight, (0.7, rng.standard_normal(3))),
    (_the_input_is_returned_too, (rng.standard_normal(4),)),
]


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_gradient_matches_finite_differences(f, args):
    got = zp.gradient(f, *args)
    for g, n in zip(got, numerical_gradient(f, args)):
        np.testing.assert_allclose(g, n, rtol=1e-6, atol=1e-8)


def test_the_accumulator_is_added_into_in_place():
    source = zp.grad_source(_rnn, args=CASES[0][1])
    assert source.count("_zp_accum_owned(") == 3


def test_the_gradient_is_a_fresh_array_each_call():
    args = CASES[0][1]
    first = zp.gradient(_rnn, *args)
    kept = [g.copy() for g in first[:3]]
    second = zp.gradient(_rnn, *args)
    for a, b, c in zip(first[:3], second[:3], kept):
        assert a is not b
        np.testing.assert_array_equal(a, c)  # the second call did not add into the first's


HESSIAN_X = rng.standard_normal((2, 3))


def _nested_in_w(w):
    return _nested(w, HESSIAN_X)


def test_second_derivatives_over_the_loop():
    w = rng.standard_normal(3) * 0.5
    hess = zp.hessian(_nested_in_w, w)
    eps = 1e-5
    for i in range(3):
        e = np.zeros(3)
        e[i] = eps
        col = (zp.gradient(_nested_in_w, w + e)[0] - zp.gradient(_nested_in_w, w - e)[0]) / (2 * eps)
        np.testing.assert_allclose(hess[:, i], col, rtol=1e-5, atol=1e-7)
