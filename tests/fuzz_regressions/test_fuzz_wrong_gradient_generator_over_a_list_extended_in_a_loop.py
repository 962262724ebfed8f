"""Fuzz regression (wrong_gradient), shrunk from program #6588 of `python -m fuzz --seed 20261210`
(3 programs of that run failed this way).

What zygote_py did:
    gradient arg0[(0, 0)]: zygote_py -2.578836, finite differences -7.736508000455021
"""

import numpy as np
import pytest

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

def f(a0, a1):
    hs1 = []
    v4 = hs1
    acc6 = a0
    xs9 = [np.dot(v4, v4)]
    for i11 in range(2):
        xs9.extend([sum((t12 for t12 in xs9)), np.linalg.det(acc6 @ acc6.T)])
    return sum(xs9)

def make_args():
    return (np.array([[-0.51, 0.45, 0.27], [0.91, 0.97, 0.69]]), [np.array([-0.92, 0.23, -0.72]), np.array([-0.6, 0.26, 0.92])])


def test_fuzz_regression():
    assert_correct(f, make_args())
