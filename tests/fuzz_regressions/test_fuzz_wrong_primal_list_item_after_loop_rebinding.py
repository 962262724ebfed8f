"""Fuzz regression (wrong_primal), reduced by hand from a shrunk failure of `python -m fuzz --seed 2026`
(3 programs of that run failed with this signature, e.g. #759).

What zygote_py did:
    withgradient value 1.6099999999999999, plain Python 6.11
"""

import numpy as np

from fuzz.oracle import assert_correct

G = [1.0, 2.0]


def f(x):
    v = np.dot(G, G)
    xs = [v]
    for t in [1.0, 1.0]:
        v = 0.5
    return v + sum(xs) + x


def make_args():
    return (0.61,)


def test_fuzz_regression():
    assert_correct(f, make_args())
