"""Fuzz regression (internal_error), shrunk from program #5862 of `python -m fuzz --seed 20261201`
(1 programs of that run failed this way).

What zygote_py did:
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/runtime/forward_dispatch.py", line 438, in _python
        return compiled(*values, *extra)
               ^^^^^^^^^^^^^^^^^^^^^^^^^
      File "<zygote_py:f_back_jvp:593>", line 27, in f_back_jvp
        _zp_restore_region(buf20_1_1, ..., buf20_saved_1)
                           ^^^^^^^^^
    UnboundLocalError: cannot access local variable 'buf20_1_1' where it is not associated with a value
Fixed: the code generator wrote a pending expression of the enclosing block (a
cell read, an attribute read) inside the branch or loop body whose write flushed it,
so the name was unbound on the other paths. Expressions pending when a region that
writes starts are now written out before it (codegen/emit.py `region_flushes`).
"""

import numpy as np

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

def f(a0, a1, a2):
    k15 = 0
    buf20 = np.zeros(3)
    np.add.at(buf20, [0, 2, 0], 0)
    if a2.reshape(3, 2).sum() < 1.0:
        buf24 = 3
        buf24[i27] = [row28 for row28 in a2] * i27
    return np.mean(a1)

def make_args():
    return ((0.73, np.array([0.36, -0.23, 0.66])), np.array([0.68, -0.45, -0.7]), np.array([[-0.45, 0.5, -0.03], [0.62, -0.4, 0.79]]))



def test_fuzz_regression():
    assert_correct(f, make_args())
