"""Fuzz regression (internal_error), shrunk from program #761 of `python -m fuzz --seed 20261302`
(1 programs of that run failed this way).

np.maximum of a list: the rule's body compared the raw list with `>=`.  Fixed: a ufunc's
(or an elementwise rule's) list operand is given to its rule as NumPy's array of it, in
reverse mode (run-time dispatch) and forward mode (derived jvps); see
tests/rules/test_list_operands.py.

What zygote_py did:
        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/runtime/flat_calls.py", line 274, in back
        outs = rule.vjp(g, y, *args)
               ^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/rules/numpy_elementwise.py", line 189, in maximum
        ga = g * (a >= b)
                  ^^^^^^
    TypeError: '>=' not supported between instances of 'list' and 'float'
"""

import numpy as np

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

def h0(p0, p1, p2=1.0):
    p1 = [1, p2]
    p1.insert(0, np.maximum(p1, 1.0)[1])
    v3 = p1[0]
    return [v3 for t9 in p0]

def f(a0, a1, a2):
    p10 = [max([a0[0]])]
    p11 = p10.copy()
    v12 = p11[0]
    p14 = [sum((t17 for t17 in h0(a1, a0, p2=v12)))]
    v16 = p14[0]
    return v16

def make_args():
    return (np.array([-0.22, 0.77, 0.55]), np.array([[-0.84, 0.11, 0.71], [-0.65, 0.2, -0.18]]), {'a': 0.33, 'b': 0.29})


def test_fuzz_regression():
    assert_correct(f, make_args())
