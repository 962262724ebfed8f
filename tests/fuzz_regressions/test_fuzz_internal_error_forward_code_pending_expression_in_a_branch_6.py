"""Fuzz regression (internal_error), shrunk from program #7819 of `python -m fuzz --seed 20261201`
(1 programs of that run failed this way).

What zygote_py did:
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/runtime/forward_dispatch.py", line 438, in _python
        return compiled(*values, *extra)
               ^^^^^^^^^^^^^^^^^^^^^^^^^
      File "<zygote_py:f_jvp:1850>", line 28, in f_jvp
        t_10 = _zp_jvp_call(_zp_add, None, (acc8_1, sum(_zp_acc)), (acc8_dot, None), (None, None), _zp_SourceLoc)
                                            ^^^^^^
    UnboundLocalError: cannot access local variable 'acc8_1' where it is not associated with a value
Fixed: the code generator wrote a pending expression of the enclosing block (a
cell read, an attribute read) inside the branch or loop body whose write flushed it,
so the name was unbound on the other paths. Expressions pending when a region that
writes starts are now written out before it (codegen/emit.py `region_flushes`).
"""

import numpy as np

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

def h1(p0):
    v1 = p0
    for t2 in v1:
        t2 -= 1.5
    return np.dot(np.sum(p0, axis=1), np.dot(p0, [1.0, 1.0, 1.0]))

def f(a0, a1):
    v7 = np.array([[1.0, 1.0, 1.0]])
    acc8 = a1 * 1.0
    acc8 *= np.sum(a1[np.newaxis], axis=1)
    acc8 += sum([h1(v7) for t9 in a1 - v7[:, 2] if t9 > 0.2])
    v10 = h1(v7)
    v15 = [acc8 for t in [v10 for t16 in acc8]]
    return v10

def make_args():
    return ([np.array([0.83, 0.13, 0.24]), np.array([0.63, 0.02, -0.78])], np.array([0.47, -0.78, -0.23]))



def test_fuzz_regression():
    assert_correct(f, make_args())
