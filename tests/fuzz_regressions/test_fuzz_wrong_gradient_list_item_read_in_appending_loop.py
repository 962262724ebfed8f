"""Fuzz regression (wrong_gradient, fixed), shrunk from program #405 of `python -m fuzz --seed 9001`
(3 programs of that run failed this way).

What zygote_py did:
    gradient arg0[(0,)]: zygote_py 1.72, finite differences 2.5800000000111023
"""

import numpy as np

from fuzz.oracle import assert_correct


def f(a0, a1):
    xs1 = [0]
    for i2 in range(a1, 0, -1):
        v3 = [a0, xs1[0]][1]
        xs1.append(np.dot(a0 / (2.0 + v3), a0))
    return sum(xs1)

def make_args():
    return (np.array([0.86, -0.52, -0.49]), 3)


def test_fuzz_regression():
    assert_correct(f, make_args())
