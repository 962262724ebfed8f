"""Fuzz regression (internal_error), shrunk from program #5473 of `python -m fuzz --seed 20261210`
(1 programs of that run failed this way).

What zygote_py did:
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/runtime/forward_dispatch.py", line 453, in _python
        return compiled(*values, *extra)
               ^^^^^^^^^^^^^^^^^^^^^^^^^
      File "<zygote_py:f_pullback_jvp:786>", line 183, in f_pullback_jvp
        _zp_break_1_1, t_22_1, _zp_break_3 = False, t_22, False
                                                    ^^^^
    UnboundLocalError: cannot access local variable 't_22' where it is not associated with a value
"""

import numpy as np
import pytest

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

def h0(p0):
    hs1 = []
    h2 = np.append(p0, 0.5)[np.array([0, 0, 2])][::-1]
    h2 = np.tanh(np.exp2(h2 / (2.0 + np.sin(np.sum(p0)))))
    hs1.append(h2)
    v4 = sum(hs1)
    xs5 = [-max(np.sum(p0), 0.61), np.sum(p0), np.sum(p0) / (2.0 + np.sin(np.sum(p0)))]
    return xs5[0]

def f(a0, a1):
    a0 = a0 * 0.5 + np.hstack([np.vstack([a0[0], a0[0]])[:, :1], a0.reshape(-1).reshape(2, 3)[:, 1:]])
    v7 = np.tanh(2.0 ** (a0[1, 1] / (2.0 + np.sin(a1[0]))))
    v8 = np.minimum(a0, np.where(a0 > 0.09, a0, a0) / (2.0 + np.sin(v7)))
    k9 = 0
    while k9 < 1:
        k9 += 1
        v7 = v7 * 0.9 + v7
        v10 = sum(sorted(np.squeeze((np.sign(v7 * np.array([-0.83, 0.4, -0.44])) * (v7 * np.array([-0.83, 0.4, -0.44])))[None, :, None]), reverse=True)[:2])
        k11 = 0
        while k11 < 3 and h0(np.array([0.57, -0.48])) < 3.0:
            if v10 > -0.17:
                break
        break
    return v7 + np.sum(v8 ** 2) + k9 * 0.1 + sum(a1) + np.mean(v8 * v8)

def make_args():
    return (np.array([[0.23, 0.15, -0.95], [-0.1, -0.18, -0.8]]), [-0.39])


def test_fuzz_regression():
    assert_correct(f, make_args())
