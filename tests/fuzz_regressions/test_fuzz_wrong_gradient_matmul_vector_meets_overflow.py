"""Fuzz regression (wrong_gradient), shrunk from program #7 of `python -m fuzz --seed 7`
(the overflow_products family, run on the code before the strong zero of products).

What zygote_py did:
    gradient arg1[(2,)]: zygote_py nan, finite differences 0.0

`a @ e` of two vectors meets e's overflowed entry (exp(1000) = inf); np.where drops
the infinite result, so its cotangent is 0, and the cotangent of a was 0 * e: nan
where e is inf.  Fixed by the strong zero of products (rules/strong_products.py):
a zero cotangent contributes 0 against an infinite operand.
"""

import numpy as np

from fuzz.oracle import assert_correct


class Layer:

    def __init__(self, W, b):
        pass


def f(a0, a1):
    e3 = np.exp([0.0, 0.0, 1000.0])
    p5 = np.matmul(a1, e3)
    return np.where(np.isfinite(p5), p5, 0.0)


def make_args():
    return ([Layer(np.array([[0.84, 0.01, 0.55], [-0.26, 0.7, 0.38]]), np.array([0.59, 0.89])),
             Layer(np.array([[-0.59, -0.69, -0.12], [0.5, 0.16, -0.62]]), np.array([-0.98, 0.94]))],
            np.array([-0.36, 0.85, -0.03]))


def test_fuzz_regression():
    assert_correct(f, make_args())
