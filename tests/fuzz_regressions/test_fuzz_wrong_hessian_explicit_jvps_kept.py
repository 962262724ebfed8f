"""Fuzz regression (wrong_gradient), shrunk from program #690 of `python -m fuzz --seed 20261302`
(17 programs of that run failed this way).

A Hessian through `np.where(np.isfinite(p), p, 0)` of an overflowed product was nan: importing
rules/jvp_derived.py early (from jvp_structural.py) attached jvps derived by transposition,
which lose the strong zero, to rules whose explicit jvps were set after it.

What zygote_py did:
    hessian arg0 entry (1, 4): zygote_py np.float64(nan), differences of the gradient np.float64(0.0)
"""

import numpy as np
import pytest

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

def f(a0):
    e1 = np.exp([0.0, 1000.0, 0.0] + a0[1])
    a2 = np.cos(a0[..., None][:, 1, 0]) * np.cos(a0[..., None][:, 1, 0])
    p3 = np.outer(a2, e1)
    v4 = np.sum(np.where(np.isfinite(p3), p3, 0.0))
    v4 = v4 + v4
    return np.mean(a0 * a0) + v4 + np.sum(a0)

def make_args():
    return (np.array([[0.35, 0.01, -0.82], [0.92, -0.13, 0.91]]),)


def test_fuzz_regression():
    assert_correct(f, make_args())
