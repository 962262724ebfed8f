"""Fuzz regression (wrong_gradient), reduced by hand from a shrunk failure of `python -m fuzz --seed 2027`
(29 programs of that run failed with this signature, e.g. #135).

What zygote_py did:
    gradient arg0: zygote_py nan, finite differences 1.0
"""

import numpy as np

from fuzz.oracle import assert_correct


def f(x):
    return x + np.linalg.norm(x - x)


def make_args():
    return (0.3,)


def test_fuzz_regression():
    assert_correct(f, make_args())
