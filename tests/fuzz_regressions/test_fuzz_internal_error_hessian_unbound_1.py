"""Fuzz regression (internal_error), shrunk from program #2069 of `python -m fuzz --seed 20261210`
(1 programs of that run failed this way).

What zygote_py did:
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/runtime/forward_dispatch.py", line 453, in _python
        return compiled(*values, *extra)
               ^^^^^^^^^^^^^^^^^^^^^^^^^
      File "<zygote_py:f_grad_jvp:640>", line 119, in f_grad_jvp
        t_13_1, _zp_break_3 = t_13, False
                              ^^^^
    UnboundLocalError: cannot access local variable 't_13' where it is not associated with a value
"""

import math

import numpy as np
import pytest

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

def f(a0):
    v1 = np.take(np.array([math.hypot(t2, 0.5) for t2 in a0[0] / (2.0 + np.sin(a0[0]))]), [0, 2])
    vs3 = [np.array([-0.32, -0.91, 0.42]) / (2.0 + np.sin(np.arcsinh(np.append(v1, 0.5)))), a0.T[:, 0]]
    k4 = 0
    while k4 < 2:
        k4 += 1
        v5 = np.tanh(np.abs(a0 - -0.04)) * a0
        k6 = 0
        while k6 < 2 and max(v5[1, 1], v5[1, 1]) < 3.0:
            k6 += 1
            v7 = np.minimum(np.hstack([(a0 + v5)[:, :1], np.maximum(v5, -0.09)[:, 1:]]), (v5 + v5) / (2.0 + np.sin(np.sum(sum(vs3)))))
            v8 = np.cos(np.sin(v5).T.T).reshape(-1).reshape(2, 3)
            if np.sum(v1) / (2.0 + np.sin(np.sum(v1))) > 0.28:
                break
        if sum([t9 for t9 in a0[0]]) > 0.34:
            break
    v10 = np.exp(np.sin(np.tanh(np.append(v1, 0.5))))
    return np.sum(vs3[-1]) + k4 * 0.1 + np.sum(v10 ** 2) + np.mean(a0 * a0)

def make_args():
    return (np.array([[0.78, -0.83, -0.63], [-0.56, -0.6, 0.62]]),)


def test_fuzz_regression():
    assert_correct(f, make_args())
