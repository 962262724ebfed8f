"""Fuzz regression (internal_error), shrunk from program #2243 of `python -m fuzz --seed 85005`
(1 programs of that run failed this way).

What zygote_py did:
        ^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/runtime/helpers.py", line 233, in accum
        return accumulate(a, b)
               ^^^^^^^^^^^^^^^^
      File "zygote_py/tree/cotangents.py", line 61, in accumulate
        return a + b
               ~~^~~
    TypeError: unsupported operand type(s) for +: 'NoneType' and 'float'

np.exp2 of a list gives the list an array cotangent; added to the list cotangent of its
items it raised TypeError (tree/cotangents.py accumulate: now item by item, as a list).
"""

import numpy as np

from fuzz.oracle import assert_correct


def h0(p0, p1, p2=1.0):
    p1 = [dict(a=[p2 for t4 in [1.0] if t4], b=1)['b'], p2]
    p1.insert(0, np.exp2(p1))
    v3 = p1[0] + p1[1]
    d6 = {'a': p0, 'b': v3}
    return d6['b']

def f(a0, a1, a2):
    v14 = h0(a1, 1.0, p2=np.max(a1))
    return np.sum(v14)

def make_args():
    return (np.array([-0.76, 0.71, 0.27]), np.array([0.31, 0.49, 0.27]), -0.631)


def test_fuzz_regression():
    assert_correct(f, make_args())
