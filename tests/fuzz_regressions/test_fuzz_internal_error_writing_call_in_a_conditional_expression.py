"""Fuzz regression (internal_error), shrunk from program #410 of `python -m fuzz --seed 20261401`
(1 programs of that run failed this way).

h0 writes into its argument's array, which rebinds the argument's names (a0); inside a
conditional expression that rebinding escaped the `if` op as a value of its region, and the
generated code read a0_1 where the other side ran.  Fixed: a conditional expression whose
side binds names is merged as an `if` statement (frontend/lower_stmt.py: if_value);
tests/frontend/test_conditional_expression_bindings.py holds the walrus forms, one of
which was a silently wrong gradient.

What zygote_py did:
               ^^^^^^^^^^^^^^^^^^^^^^^^^
      File "<zygote_py:f_grad:7098>", line 29, in f_grad
        a0 = a0_1
             ^^^^
      File "program.py", line 11, in f
        v17 = (h0(a0) if t18 > 1.0 else t18 for t18 in np.sum([a0], axis=1))
        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
    UnboundLocalError: cannot access local variable 'a0_1' where it is not associated with a value
"""

import numpy as np

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

def h0(p0):
    v1 = p0
    v1 *= v1

def f(a0, a1, a2):
    v17 = (h0(a0) if t18 > 1.0 else t18 for t18 in np.sum([a0], axis=1))
    return np.sum(a1)

def make_args():
    return (np.array([-0.57, 0.6, 0.42]), np.array([[-0.39, 0.67, 0.98], [0.95, 0.1, -0.9]]), np.array([[0.33, 0.55, 0.9], [0.07, 0.83, -0.24]]))


def test_fuzz_regression():
    assert_correct(f, make_args())
