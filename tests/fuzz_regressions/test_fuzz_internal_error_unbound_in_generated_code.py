"""Fuzz regression (internal_error), shrunk from program #6303 of `python -m fuzz --seed 20261210`
(1 programs of that run failed this way).

What zygote_py did:
               ^^^^^^^^^^^^^^^^^^^^^^^^^
      File "<zygote_py:f_grad:2287>", line 11, in f_grad
        dy_1 = _zp_check_scalar(a0_1, _zp_return_loc)
                                ^^^^
      File "program.py", line 10, in f
        if a0 > 1.0 and h1(a0, a0):
        ^^^^^^^^^^^^^^^^^^^^^^^^^^
    UnboundLocalError: cannot access local variable 'a0_1' where it is not associated with a value
"""

import numpy as np
import pytest

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

def h1(p0, p1):
    p1 -= 'ij,i->j'

def f(a0, a1):
    if a0 > 1.0 and h1(a0, a0):
        pass
    buf5 = a0
    v6 = buf5
    return v6

def make_args():
    return (-0.418, np.array([[-0.54, -0.6, -0.08], [-0.37, -0.56, -0.47]]))


def test_fuzz_regression():
    assert_correct(f, make_args())
