"""Fuzz regression (internal_error), shrunk from program #745 of `python -m fuzz --seed 20261203`
(1 programs of that run failed this way).

The list `u5` gets two cotangents: an array from np.sin (a NumPy rule) and a list
`[g, None]` from the item read `p1[0]`; `accum` added them with `+`, which NumPy
cannot do with a None item.  Fixed: they add item by item (tree.accumulate).

What zygote_py did:
        p1_bar_1 = _zp_accum(p1_bar, t_3)
                   ^^^^^^^^^^^^^^^^^^^^^^
      File "program.py", line 10, in h0
        v3 = p1[0]
      File "zygote_py/runtime/helpers.py", line 416, in accum
        return a + b
               ~~^~~
    TypeError: unsupported operand type(s) for +: 'float' and 'NoneType'
"""

import numpy as np

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass
G_V = 1.0

def h0(p0, p1):
    p1 = [0]
    p1.extend([dict(a=p0, b=p0)['b']])
    v3 = p1[0]
    return (v3, p1)

def f(a0, a1, a2):
    u4, u5 = h0(a2.get('a', 0.5), G_V)
    acc7 = u4
    return np.sum(np.sin(u5)) + acc7

def make_args():
    return (np.array([[-0.53, 0.15, 0.48], [0.91, -0.02, 0.03]]), [0.99, -0.16], {'a': 0.02, 'b': 0.84})


def test_fuzz_regression():
    assert_correct(f, make_args())
