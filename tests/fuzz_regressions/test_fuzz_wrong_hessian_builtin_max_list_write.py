"""Fuzz regression (wrong_gradient), shrunk from program #154 of `python -m fuzz --seed 20261203`
(3 programs of that run failed this way).

What zygote_py did:
    hessian arg0 entry (0, 0): zygote_py np.float64(0.0), differences of the gradient np.float64(0.3527999999988762)
Fixed: forward mode over builtin max's cotangent helper, which writes into a list
(`out[i] = g`), left the list's tangent at zero, so the Hessian was 0: list item writes
became legal in reverse mode on one branch while the other assumed they were refused.
Forward mode now refuses writes into lists and dicts with derivatives.
"""

import numpy as np

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

def f(a0):
    v4 = max((a0 * np.array([[1.0, 0.42, 1.0]]))[0, 1], a0)
    v8 = v4 * sum((t9 for t9 in v4 * np.array([1.0])))
    return v8

def make_args():
    return (-0.446,)



def test_fuzz_regression():
    assert_correct(f, make_args())
