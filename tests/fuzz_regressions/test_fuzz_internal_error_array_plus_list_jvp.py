"""Fuzz regression (internal_error), shrunk from program #8931 of `python -m fuzz --seed 20261209`
(1 programs of that run failed this way).

`np.array(...) + [0, p0, p1]` is an array, not a concatenation: forward mode decided by
the operands' types and built a 3-item list tangent for a 2-item result (now by the
result's type, rules/jvp_common.jvp_add).

What zygote_py did:
                         ^^^^^^^^^^^^^^^^^
      File "zygote_py/rules/jvp_derived.py", line 172, in _pair_now
        return sum(_pair_now(ct[i], b) for i, b in enumerate(dx))
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/rules/jvp_derived.py", line 172, in <genexpr>
        return sum(_pair_now(ct[i], b) for i, b in enumerate(dx))
                             ~~^^^
    IndexError: index 2 is out of bounds for axis 0 with size 2
"""

import numpy as np
import pytest

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

def h0(p0, p1):
    p1 = [p0, p1]
    p1.insert(0, 0)
    return np.max(np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]) + p1, axis=1)

def f(a0):
    v10 = 0
    (t16 for t16 in h0(v10, a0['b']))
    acc17 = v10
    return acc17

def make_args():
    return ({'a': 0.92, 'b': 0.97},)


def test_fuzz_regression():
    assert_correct(f, make_args())
