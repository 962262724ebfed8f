"""Fuzz regression (wrong_gradient), shrunk from program #4815 of `python -m fuzz --seed 20261210`
(1 programs of that run failed this way).

What zygote_py did:
    hessian arg1 entry (4, 4): zygote_py np.float64(-1.4027762315673913), differences of the gradient np.float64(-3.399339082665875)
"""

import numpy as np
import pytest

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

def h0(p0, p1, p2=1.0):
    v1 = np.cos(p0)
    d8 = {'w': v1, 'z': 0.5}
    fn2 = lambda t4: t4 * d8['w']
    v3 = sum((t9 for t9 in v1)) * fn2(0.3)
    return np.square(v1) + v3

def f(a0, a1):
    v28 = h0(a1, a1) * -1.0
    buf29 = h0([1.0, 1.0, 1.0], v28)
    al31 = buf29
    al31[2] = a1.sum()
    v30 = buf29
    acc33 = v28.reshape(-1).reshape(3, 2).T
    acc33 *= v30
    return np.sum(acc33)

def make_args():
    return (2, np.array([[0.02, -0.11, -0.69], [0.74, -0.62, -0.01]]))


def test_fuzz_regression():
    assert_correct(f, make_args())
