"""Fuzz regression (wrong_primal), shrunk from program #37 of `python -m fuzz --seed 7`
(1 programs of that run failed this way).

What zygote_py did:
    withgradient value -1.5, plain Python -3.0

`v7 = v1; v7 += 1.5` rebinds v7 when v1 holds a number, but the lowering of
in-place writes gave every name holding v1's value the written one (right for an
ndarray, written in place).  Other names now take `same_if_written(old, new)`,
decided while running.
"""

import numpy as np
import pytest

from fuzz.oracle import assert_correct


import itertools

def f(a0, a1):
    v1 = sum((sum([t4 for t4 in a1 if t4]) for j3, t2 in enumerate(a1)))
    v7 = v1
    v7 += 1.5
    return v1

def make_args():
    return (np.array([[0.61, -0.86, 0.15], [-0.37, -0.77, -0.94]]), np.array([-0.11, -0.42, -0.47]))


def test_fuzz_regression():
    assert_correct(f, make_args())


def number_alias(a1):
    v1 = np.sum(a1)
    v7 = v1
    v7 += 1.5
    return v1 * v7


def array_alias(a):
    v1 = a * 1.0
    v7 = v1
    v7 += 1.5  # written in place: v1 sees it
    return np.sum(v1 * v1)


def test_other_names_keep_a_rebound_number_and_see_a_written_array():
    a = np.array([-0.11, -0.42, -0.47])
    assert_correct(number_alias, (a,))
    assert_correct(array_alias, (a,))
    import zygote_py as zp

    s = np.sum(a)
    assert zp.withgradient(number_alias, a)[0] == pytest.approx(s * (s + 1.5))
    assert zp.withgradient(array_alias, a)[0] == pytest.approx(np.sum((a + 1.5) ** 2))
