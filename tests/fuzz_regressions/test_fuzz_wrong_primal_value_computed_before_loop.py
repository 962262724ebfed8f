"""Fuzz regression (wrong_primal), reduced by hand from a shrunk failure of `python -m fuzz --seed 2027`
(6 programs of that run failed with this signature, e.g. #103).

What zygote_py did:
    withgradient value 1.6775825618903728, plain Python 1.3403023058681398
"""

import numpy as np

from fuzz.oracle import assert_correct


def f(x):
    v = np.array(1.0)
    c = np.cos(v)
    for t in (1, 1):
        v = 0.5
    return v + c + x


def make_args():
    return (0.3,)


def test_fuzz_regression():
    assert_correct(f, make_args())
