"""np.einsum with constant subscripts: one cotangent helper per active operand
(ad/reverse/calls.py: operand_cotangents), checked against finite differences.

Covers the forms the static path takes (two and three operands, a constant operand
read from a global, one value passed twice with equal and with different letters,
`optimize=`, inside a loop, broadcasting size-1 axes, diagonals, letters summed in
one operand, ellipses, complex operands) and the forms it leaves to run-time
dispatch (subscripts in a variable, the sublist form), which must still be right.
"""

from __future__ import annotations

import numpy as np
import pytest
from corpus.finite_diff import numerical_gradient

import zygote_py as zp

rng = np.random.default_rng(17)
WEIGHTS = rng.standard_normal(4)  # a constant operand, read as a global
SCALE = rng.standard_normal((4, 2))


def _check(f, *args):
    got = zp.gradient(f, *args)
    fd = numerical_gradient(f, args)
    for g, n in zip(got, fd):
        np.testing.assert_allclose(g, n, rtol=1e-6, atol=1e-8)
    return got


def _two(a, b):
    return np.sum(np.sin(np.einsum("ij,jk->ik", a, b)))


def _three_with_global(a, d):
    return np.sum(np.einsum("ij,ijk,j->ik", a, d, WEIGHTS) ** 2)


def _same_value_same_letters(d):
    return np.sum(np.sqrt(np.einsum("ijk,ijk->ij", d, d) + 0.1))


def _same_value_other_letters(a):
    return np.sum(np.einsum("ij,jk->ik", a, a) ** 2)


def _optimize_given(a, b, c):
    return np.sum(np.einsum("ij,jk,kl->il", a, b, c, optimize=True) ** 2)


def _in_a_loop(x, w):
    for _ in range(3):
        x = np.tanh(np.einsum("bi,ij->bj", x, w))
    return np.sum(x**2)


def _broadcast_size_one(a, b):
    return np.sum(np.einsum("ij,ij->ij", a, b) ** 2)


def _diagonal(a):
    return np.sum(np.einsum("iij->j", a) ** 3)


def _summed_in_one_operand(a, b):
    return np.sum(np.einsum("ij,k->i", a, b) ** 2)


def _ellipsis(a, b):
    return np.sum(np.einsum("...ij,...jk->...ik", a, b) ** 2)


def _four_pairwise(a, b, c, d):
    # the cotangents contract four operands two at a time (rules/linalg.py: _pairwise_steps)
    return np.sum(np.cos(np.einsum("ij,jk,k,il->kl", a, b, c, d)))


def _three_broadcast_and_summed(a, b, c):
    # a size-1 letter broadcast against another operand; m summed inside b alone
    return np.sum(np.einsum("ij,jkm,ik->ik", a, b, c) ** 2)


def _subscripts_in_a_variable(a, b, spec):
    return np.sum(np.einsum(spec, a, b) ** 2)


def _sublist_form(a, b):
    return np.sum(np.einsum(a, [0, 1], b, [1, 2]) ** 2)


CASES = [
    (_two, (rng.standard_normal((3, 4)), rng.standard_normal((4, 2)))),
    (_three_with_global, (rng.standard_normal((3, 4)), rng.standard_normal((3, 4, 2)))),
    (_same_value_same_letters, (rng.standard_normal((4, 4, 3)),)),
    (_same_value_other_letters, (rng.standard_normal((3, 3)),)),
    (_optimize_given, (rng.standard_normal((2, 3)), rng.standard_normal((3, 4)),
                       rng.standard_normal((4, 2)))),
    (_in_a_loop, (rng.standard_normal((2, 3)), 0.5 * rng.standard_normal((3, 3)))),
    (_broadcast_size_one, (rng.standard_normal((1, 3)), rng.standard_normal((2, 3)))),
    (_diagonal, (rng.standard_normal((3, 3, 2)),)),
    (_summed_in_one_operand, (rng.standard_normal((3, 4)), rng.standard_normal(5))),
    (_ellipsis, (rng.standard_normal((2, 1, 3, 4)), rng.standard_normal((5, 4, 2)))),
    (_sublist_form, (rng.standard_normal((3, 4)), rng.standard_normal((4, 2)))),
    (_four_pairwise, (rng.standard_normal((3, 4)), rng.standard_normal((4, 2)),
                      rng.standard_normal(2), rng.standard_normal((3, 5)))),
    (_three_broadcast_and_summed, (rng.standard_normal((3, 4)), rng.standard_normal((4, 1, 2)),
                                   rng.standard_normal((3, 5)))),
]


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_einsum_gradient_matches_finite_differences(f, args):
    _check(f, *args)


def test_subscripts_in_a_variable_still_dispatch_while_running():
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    got = zp.gradient(_subscripts_in_a_variable, a, b, "ij,jk->ik")
    fd = numerical_gradient(lambda a, b: _subscripts_in_a_variable(a, b, "ij,jk->ik"), (a, b))
    for g, n in zip(got[:2], fd):
        np.testing.assert_allclose(g, n, rtol=1e-6, atol=1e-8)


def test_only_active_operands_get_a_cotangent_and_a_repeated_operand_one():
    a, d = rng.standard_normal((3, 4)), rng.standard_normal((3, 4, 2))
    source = zp.grad_source(_three_with_global, args=(a, d))
    assert source.count("_zp_einsum_operand_cotangent(") == 2  # a and d, never WEIGHTS
    assert "_zp_call(np.einsum" not in source
    source = zp.grad_source(_same_value_same_letters, args=(d,))
    assert source.count("_zp_einsum_operand_cotangent(") == 1  # d's two cotangents are one, twice


def _inactive_first(b):
    return np.sum(np.einsum("ij,jk->ik", np.ones((3, 4)), b * SCALE) ** 2)


def test_an_inactive_first_operand_is_left_alone():
    b = rng.standard_normal((4, 2))
    _check(_inactive_first, b)
    assert zp.grad_source(_inactive_first, args=(b,)).count("_zp_einsum_operand_cotangent(") == 1


def test_complex_operands_match_finite_differences():
    c = rng.standard_normal((4, 2)) + 1j * rng.standard_normal((4, 2))

    def f(a):
        return np.real(np.sum(np.abs(np.einsum("ij,jk->ik", a, c)) ** 2))

    _check(f, rng.standard_normal((3, 4)))


def test_forward_mode_over_einsum_still_matches():
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    da, db = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    _, tangent = zp.jvp(_two, (a, b), (da, db))
    eps = 1e-6
    fd = (_two(a + eps * da, b + eps * db) - _two(a - eps * da, b - eps * db)) / (2 * eps)
    np.testing.assert_allclose(tangent, fd, rtol=1e-6)


def test_pairwise_contractions_give_the_direct_einsums_cotangents():
    """The cotangent einsums of three or more operands run two operands at a time; the
    result is the one-loop np.einsum's to rounding, for every operand of N-body's einsum."""
    from zygote_py.rules.linalg import _pairwise_steps, einsum_operand_cotangent

    a, d, w = rng.standard_normal((5, 5)), rng.standard_normal((5, 5, 3)), rng.standard_normal(5)
    g = rng.standard_normal((5, 3))
    direct = [np.einsum("ik,ijk,j->ij", g, d, w), np.einsum("ik,ij,j->ijk", g, a, w),
              np.einsum("ik,ij,ijk->j", g, a, d)]
    for k, expected in enumerate(direct):
        got = einsum_operand_cotangent(g, k, "ij,ijk,j->ik", a, d, w)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    assert _pairwise_steps("ik,ijk,j->ij", ((5, 3), (5, 5, 3), (5,))) == (
        (0, 1, "ik,ijk->ij"), (0, 1, "j,ij->ij"))
    assert _pairwise_steps("ii,ij,j->i", ((2, 2), (2, 3), (3,))) is None  # a diagonal: one call
