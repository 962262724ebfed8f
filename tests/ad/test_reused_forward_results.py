"""cos's adjoint reads the forward's `np.sin(x)` of the same number instead of computing
it again (ad/reverse/calls.py: _reuse_forward_results), checked against finite
differences, with the forms it must leave alone: arrays, a `sin` in another block."""

from __future__ import annotations

import numpy as np
import pytest
from corpus.finite_diff import numerical_gradient

import zygote_py as zp


def _scalar_loop(x):
    for _ in range(4):
        x = np.sin(x) * x + 0.5 * np.cos(x) / (1 + x * x)
    return x


def _straight(x):
    return np.cos(x) * np.sin(x) + np.exp(x) * np.tanh(np.cosh(x)) + np.sinh(x) + np.sqrt(np.exp(x))


def _in_another_block(x, flag):
    if flag:
        s = np.sin(x)
    else:
        s = 0.0
    return np.cos(x) + s * x


def _arrays(x):
    for _ in range(3):
        x = np.sin(x) * x + np.cos(x)
    return np.sum(x)


CASES = [
    (_scalar_loop, (0.3,)),
    (_straight, (0.7,)),
    (_in_another_block, (0.4, True)),
    (_in_another_block, (0.4, False)),
    (_arrays, (np.linspace(-1.0, 1.0, 4),)),
]


@pytest.mark.parametrize("f, args", CASES)
def test_gradient_matches_finite_differences(f, args):
    got = zp.gradient(f, *args)
    fd = numerical_gradient(f, args)
    np.testing.assert_allclose(got[0], fd[0], rtol=1e-6, atol=1e-8)


def _backward_code(source: str) -> str:
    backward = source.split("# grad of: for")[1]  # (the backward loop, and what follows)
    return "\n".join(line for line in backward.splitlines() if not line.strip().startswith("#"))


def test_the_adjoint_reads_sin_and_cos_from_the_forward():
    backward = _backward_code(zp.grad_source(_scalar_loop, args=(0.3,)))
    assert "np.sin" not in backward and "np.cos" not in backward


def test_arrays_are_computed_again_rather_than_kept():
    backward = _backward_code(zp.grad_source(_arrays, args=CASES[-1][1]))
    assert "np.sin" in backward or "np.cos" in backward
