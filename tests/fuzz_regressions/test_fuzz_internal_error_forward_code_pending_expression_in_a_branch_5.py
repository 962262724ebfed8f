"""Fuzz regression (internal_error), shrunk from program #8136 of `python -m fuzz --seed 20261201`
(1 programs of that run failed this way).

What zygote_py did:
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/runtime/forward_dispatch.py", line 438, in _python
        return compiled(*values, *extra)
               ^^^^^^^^^^^^^^^^^^^^^^^^^
      File "<zygote_py:f_back_jvp:1679>", line 32, in f_back_jvp
        t_6 = (a0_bar, None, None)
               ^^^^^^
    UnboundLocalError: cannot access local variable 'a0_bar' where it is not associated with a value
Fixed: the code generator wrote a pending expression of the enclosing block (a
cell read, an attribute read) inside the branch or loop body whose write flushed it,
so the name was unbound on the other paths. Expressions pending when a region that
writes starts are now written out before it (codegen/emit.py `region_flushes`).
"""

import math

import numpy as np

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass
G_M = np.array([[0.57]])

def f(a0, a1, a2):
    acc2 = G_M
    if not acc2:
        buf3 = np(3)
        np.multiply(Layer.half_square(a1), v1, out=buf3)
    k7 = 0
    acc8 = math.log1p(math.hypot(a1, 0.5) * math.hypot(a1, 0.5))
    while True:
        k7 += 1
        break
    return np.sum(np.sin(a0))

def make_args():
    return (np.array([-0.29, -0.64, -0.09]), -0.587, 1)



def test_fuzz_regression():
    assert_correct(f, make_args())
