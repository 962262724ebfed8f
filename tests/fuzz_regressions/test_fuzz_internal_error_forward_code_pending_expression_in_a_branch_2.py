"""Fuzz regression (internal_error), shrunk from program #1724 of `python -m fuzz --seed 20261201`
(2 programs of that run failed this way).

What zygote_py did:
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/runtime/forward_dispatch.py", line 438, in _python
        return compiled(*values, *extra)
               ^^^^^^^^^^^^^^^^^^^^^^^^^
      File "<zygote_py:f_grad_jvp:58>", line 116, in f_grad_jvp
        dy_1 = _zp_check_scalar(acc18, _zp_return_loc_1)
                                       ^^^^^^^^^^^^^^^^
    UnboundLocalError: cannot access local variable '_zp_return_loc_1' where it is not associated with a value
Fixed: the code generator wrote a pending expression of the enclosing block (a
cell read, an attribute read) inside the branch or loop body whose write flushed it,
so the name was unbound on the other paths. Expressions pending when a region that
writes starts are now written out before it (codegen/emit.py `region_flushes`).
"""

import numpy as np

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

def f(a0):
    if a0 < -0.28:
        a0 -= np.arctan(min(-0.17, -0.12))
    else:
        k17 = 0
        acc18 = dict(a=a0 * a0, b=a0 ** 2)['b']
        while True:
            k17 += 1
            acc18 = acc18 * 0.7 + np.sin(np.sum((acc18 * np.array([[0.09, -0.13, 0.68], [-0.15, 0.98, 0.59]]))[acc18 * np.array([[-0.76, -0.63, 0.62], [-0.33, -0.15, 0.18]]) > 0.1]) * -0.69)
            if k17 >= 4 or acc18 > 1.6:
                break
        return acc18

def make_args():
    return (-0.122,)



def test_fuzz_regression():
    assert_correct(f, make_args())
