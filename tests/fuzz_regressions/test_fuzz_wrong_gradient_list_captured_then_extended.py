"""Fuzz regression (wrong_gradient), shrunk from program #3501 of `python -m fuzz --seed 20261302`
(1 programs of that run failed this way).

A lambda captured a list that the function then extended in place: the closure's
derivative went to the list as it was when the lambda was made (1.0 where 2.0 is right).
A list captured by a nested function value is now not updated under its name afterwards.

What zygote_py did:
    gradient arg0[1][(1,)]: zygote_py 1.0, finite differences 2.0000000003053113
"""

import numpy as np
import pytest

import zygote_py as zp

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

def h0(fn, x):
    return fn(x)

def f(a0, a1):
    a0_x, a0_v = a0
    xs7 = [a0_v[1]]
    v8 = h0(lambda q9: xs7[-1], lambda q10: v6)
    xs7.extend([a1])
    return sum(xs7) + v8

def make_args():
    return ((-0.47, np.array([0.5, -0.25, 0.22])), 3)


def test_fuzz_regression():
    # refused, never the gradient of the list as it was when the lambda was made
    with pytest.raises(zp.MutationError, match="captured by a nested function"):
        zp.gradient(f, *make_args())
