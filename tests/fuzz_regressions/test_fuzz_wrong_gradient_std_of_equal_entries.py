"""Fuzz regression (wrong_gradient), shrunk from program #1820 of `python -m fuzz --seed 60003`
(1 programs of that run failed this way).

What zygote_py did:
    gradient arg0: zygote_py -1.0, finite differences 0.0

np.std of equal entries is rounding noise (about 1e-17), and its rule divided the
deviations (noise too) by it: a cotangent of noise.  Zero spread up to rounding now takes
the subgradient 0 (runtime/helpers.py: zero_spread).
"""

import numpy as np

from fuzz.oracle import assert_correct


G_V = [1.0, 1.0, 1.0]

def f(a0, a1, a2):
    acc1 = np.cos(G_V)
    acc1 += np.std([a0 for t2 in G_V])
    return np.mean(acc1)

def make_args():
    return (0.368, np.array([[-0.62, 0.15, 0.06], [-0.42, 0.58, -0.92]]), np.array([[0.86, -0.01, 0.62], [-0.8, 0.92, -0.05]]))


def test_fuzz_regression():
    assert_correct(f, make_args())
