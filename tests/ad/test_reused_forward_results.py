"""cos's adjoint reads the forward's `np.sin(x)` of the same value instead of computing
it again (ad/reverse/calls.py: _reuse_forward_results), checked against finite
differences: numbers anywhere, arrays outside loops; and the forms it must leave alone:
arrays in a loop, a `sin` in another block, a forward that writes into an array or calls
code that might."""

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


def _invariant_in_loop(x):
    total = 0.0
    for k in range(3):
        total = total + k * np.sum(np.sin(x) * np.cos(x))
    return total


def _rotation(t):
    c, s = np.cos(t), np.sin(t)
    return np.sum(c * s + np.sinh(t) * np.cosh(t) + np.exp(t) * np.sqrt(np.exp(t)))


def _rotation_beside_a_loop(t):
    c, s = np.cos(t), np.sin(t)
    y = c * s
    for _ in range(3):
        y = y * 0.5 + t
    return np.sum(y)


def _rotation_in_branch(t, flag):
    if flag:
        y = np.sin(t) * np.cos(t)
    else:
        y = t * t
    return np.sum(y)


def _cos_written(t):
    c = np.cos(t)
    c[0] = 5.0
    return np.sum(np.sin(t) * c)


def _cos_sorted_through_a_view(t):
    c = np.cos(t)
    v = c[::-1]
    v.sort()
    return np.sum(np.sin(t) * c)


def _halve_in_place(a):
    a *= 0.5
    return a


def _cos_passed_on(t):
    c = np.cos(t)
    _halve_in_place(c)
    return np.sum(np.sin(t) * c)


def _cos_beside_an_impure_call(t):
    c = np.cos(t)
    print(end="")  # (impure: the forward is not known to leave c alone, so c is not reused)
    return np.sum(np.sin(t) * c)


_T = np.linspace(0.1, 1.3, 6)

CASES = [
    (_scalar_loop, (0.3,)),
    (_straight, (0.7,)),
    (_in_another_block, (0.4, True)),
    (_in_another_block, (0.4, False)),
    (_arrays, (np.linspace(-1.0, 1.0, 4),)),
    (_invariant_in_loop, (np.linspace(-1.0, 1.0, 4),)),
    (_rotation, (_T,)),
    (_rotation_beside_a_loop, (_T,)),
    (_rotation_in_branch, (_T, True)),
    (_rotation_in_branch, (_T, False)),
    (_cos_written, (_T,)),
    (_cos_sorted_through_a_view, (_T,)),
    (_cos_passed_on, (_T,)),
    (_cos_beside_an_impure_call, (_T,)),
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


@pytest.mark.parametrize("f", [_arrays, _invariant_in_loop])
def test_arrays_are_computed_again_rather_than_kept(f):
    # (in a loop, keeping them would take a tape slot of an array a step)
    backward = _backward_code(zp.grad_source(f, args=(np.linspace(-1.0, 1.0, 4),)))
    assert "np.sin" in backward or "np.cos" in backward


def _adjoint_code(source: str) -> str:
    backward = source.split("_zp_check_scalar(")[1]  # (what runs after the forward)
    return "\n".join(line for line in backward.splitlines() if not line.strip().startswith("#"))


@pytest.mark.parametrize("f, args", [(_rotation, (_T,)), (_rotation_in_branch, (_T, True)),
                                     (_rotation_beside_a_loop, (_T,))])
def test_arrays_outside_loops_are_read_from_the_forward(f, args):
    adjoint = _adjoint_code(zp.grad_source(f, args=args))
    for name in ("np.sin", "np.cos", "np.sinh", "np.cosh", "np.exp"):
        assert name + "(" not in adjoint, name


@pytest.mark.parametrize("f", [_cos_written, _cos_sorted_through_a_view, _cos_passed_on,
                               _cos_beside_an_impure_call])
def test_an_array_the_forward_may_change_is_computed_again(f):
    # (the adjoint of sin must see cos(t), not the array c became)
    adjoint = _adjoint_code(zp.grad_source(f, args=(_T,)))
    assert "np.cos(" in adjoint
