"""Fuzz regression (wrong_gradient), reduced by hand from a shrunk failure of `python -m fuzz --seed 2026`
(30 programs of that run failed with this signature, e.g. #126).

What zygote_py did:
    gradient arg0[(0,)]: zygote_py 0.0, finite differences 1.0000000000555112
"""

import numpy as np

from fuzz.oracle import assert_correct


def f(x):
    return sum({k: t for k, t in zip("abc", x)}.values())


def make_args():
    return (np.array([0.32, 0.47, -0.2]),)


def test_fuzz_regression():
    assert_correct(f, make_args())
