"""Fuzz regression (wrong_gradient), shrunk from program #62 of `python -m fuzz --seed 7`
(the overflow_products family, run on the code before the strong zero of products).

What zygote_py did:
    gradient arg2[(0, 0)]: zygote_py nan, finite differences 0.0

`np.dot(a, e)` with an overflowed scalar e (exp(1000) = inf) is inf everywhere;
np.where drops it, so every cotangent entry is 0, and a's cotangent 0 * e was nan.
Fixed by the strong zero of products (rules/strong_products.py).
"""

import numpy as np

from fuzz.oracle import assert_correct


def f(a0, a1, a2):
    e3 = np.exp(1000.0)
    p5 = np.dot(a2, e3)
    v6 = np.sum(np.where(np.isfinite(p5), p5, 0.0))
    fs7 = [lambda p8: 1.5]
    return sum((v6 for fn10 in fs7)) + np.sum(a2 * a1)


def make_args():
    return (0.257, np.array([-0.06, -0.73, -0.41]), np.array([[0.98, -0.96, 0.42], [0.01, 0.35, -0.58]]))


def test_fuzz_regression():
    assert_correct(f, make_args())
