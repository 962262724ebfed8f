"""Fuzz regression (wrong_gradient), shrunk from program #1417 of `python -m fuzz --seed 20261302`
(17 programs of that run failed this way).

The same import-order defect as test_fuzz_wrong_hessian_explicit_jvps_kept.py, another program.

What zygote_py did:
    hessian arg1 entry (0, 0): zygote_py np.float64(nan), differences of the gradient np.float64(0.7791900624498637)
"""

import numpy as np
import pytest

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

def f(a0, a1):
    acc1 = a1[0]
    d8 = {'w': [t9 for t9 in acc1], 'z': 0.5}
    fn3 = lambda t5: d8['z']
    v4 = fn3(acc1) * fn3(0.3)
    e10 = np.exp([0.0, 0.0, 1000.0])
    a11 = acc1.sum() + 0.5
    p12 = np.outer(a11, e10)
    v13 = np.where(np.isfinite(p12), p12, 0.0)
    acc14 = acc1 * a1
    acc14 -= a1
    acc14 += np.tanh(v13)
    return np.mean(acc14) + v4

def make_args():
    return (2, np.array([[-0.18, -0.36, -0.38], [-0.51, -0.82, -0.5]]))


def test_fuzz_regression():
    assert_correct(f, make_args())
