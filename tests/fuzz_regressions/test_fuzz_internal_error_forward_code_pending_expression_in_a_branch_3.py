"""Fuzz regression (internal_error), shrunk from program #8418 of `python -m fuzz --seed 20261201`
(1 programs of that run failed this way).

What zygote_py did:
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/runtime/forward_dispatch.py", line 438, in _python
        return compiled(*values, *extra)
               ^^^^^^^^^^^^^^^^^^^^^^^^^
      File "<zygote_py:f_back_jvp:2621>", line 26, in f_back_jvp
        _zp_restore_region(buf8_1_1, 0, buf8_saved_1)
                           ^^^^^^^^
    UnboundLocalError: cannot access local variable 'buf8_1_1' where it is not associated with a value
Fixed: the code generator wrote a pending expression of the enclosing block (a
cell read, an attribute read) inside the branch or loop body whose write flushed it,
so the name was unbound on the other paths. Expressions pending when a region that
writes starts are now written out before it (codegen/emit.py `region_flushes`).
"""

import numpy as np

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass
G_V = 1.0

def f(a0, a1, a2):
    p1 = [G_V]
    p1.extend([1.0])
    v3 = p1[1]
    buf8 = np.zeros(3)
    buf8[0] = v3
    if v3 < -1.0:
        buf10 = 3
        np.multiply([1.0 for t14 in v9], v9, out=buf10)
    return np.mean(a0)

def make_args():
    return (np.array([[0.3, 0.35, -0.98], [0.37, -0.19, -0.3]]), np.array([[0.93, 0.34, -0.7], [0.42, -0.97, 0.45]]), np.array([[0.23, 0.75, -0.61], [0.43, 0.97, 0.52]]))



def test_fuzz_regression():
    assert_correct(f, make_args())
