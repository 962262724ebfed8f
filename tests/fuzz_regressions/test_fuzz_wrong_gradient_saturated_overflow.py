"""Fuzz regression (wrong_gradient), shrunk from program #1254 of `python -m fuzz --seed 88008`
(1 programs of that run failed this way).

What zygote_py did:
    gradient arg1[(0, 0)]: zygote_py nan, finite differences 0.0

np.expm1 overflows to inf, np.tanh saturates to 1, and the chain multiplied tanh's
derivative (exactly 0) by expm1's (inf): nan.  Fixed by the strong zero
(runtime/helpers.py `strong_zero`): a zero cotangent contributes exactly 0 through
expm1's rule, as finite differences say.
"""

import numpy as np
from fuzz.oracle import assert_correct


def f(a0, a1):
    v4 = [1.0, 1.0, 1.0]
    k5 = 0
    while k5 < 2:
        k5 += 1
        for i6 in range(4, 0, -1):
            v4 = np.cumsum(v4) + np.array([a1[0], v4]).mean(axis=0)
    hs11 = []
    h12 = np.expm1(v4)
    h12 = np.tanh(h12)
    hs11.append(h12)
    v14 = sum(hs11)
    return np.sum(v14)

def make_args():
    return ([np.array([-0.08, -0.14, 0.75]), np.array([0.49, -0.2, -0.49])], np.array([[0.89, 0.4, 0.85], [-0.25, -0.94, -0.33]]))


def test_fuzz_regression():
    # reverse mode only: forward mode does not promise the strong zero (an infinite
    # tangent times tanh's zero derivative is nan there; docs/limitations.md)
    assert_correct(f, make_args(), forward=False)
