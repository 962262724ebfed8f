"""`x * x` and `x + x`: one value passed as both operands of a rule declared symmetric
(meta `symmetric`) gets one cotangent, doubled (ad/reverse/calls.py: _twin_arguments),
checked against finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from corpus.finite_diff import numerical_gradient

import zygote_py as zp

rng = np.random.default_rng(5)


def _square_and_double(x):
    return np.sum(x * x + (x + x) * np.sin(x))


def _in_a_loop(x):
    for _ in range(3):
        x = np.sin(x) * x + 0.5 * np.cos(x) / (1 + x * x)
    return x


def _numpy_functions(x):
    return np.sum(np.multiply(x, x) * np.add(x, x))


def _twin_and_other(x, y):
    return np.sum(x * x * y + y * y)


CASES = [
    (_square_and_double, (rng.standard_normal((2, 3)),)),
    (_in_a_loop, (0.3,)),
    (_in_a_loop, (rng.standard_normal(4) * 0.5,)),
    (_numpy_functions, (rng.standard_normal(5),)),
    (_twin_and_other, (rng.standard_normal(3), rng.standard_normal((2, 3)))),
]


@pytest.mark.parametrize("f, args", CASES)
def test_gradient_matches_finite_differences(f, args):
    if f is _in_a_loop and isinstance(args[0], np.ndarray):
        got = zp.gradient(lambda x: np.sum(_in_a_loop(x)), *args)
        fd = numerical_gradient(lambda x: np.sum(_in_a_loop(x)), args)
    else:
        got, fd = zp.gradient(f, *args), numerical_gradient(f, args)
    for g, n in zip(got, fd):
        np.testing.assert_allclose(g, n, rtol=1e-6, atol=1e-8)


def test_one_cotangent_computed_for_both_operands():
    source = zp.grad_source(_square_and_double, args=CASES[0][1])
    assert source.count("* 2") >= 2
