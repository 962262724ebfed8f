"""Fuzz regression (internal_error), shrunk from program #1439 of `python -m fuzz --seed 20261204`
(1 programs of that run failed this way).

The back of the recursive `h0` at its base case never binds the pullbacks of the
other path's calls (`_zp_back`); forward mode over that back (zp.hessian) read them
at its entry.  Fixed: closure cells are read where they are used (codegen/emit.py);
tests/codegen/test_cells_read_at_use.py holds the shrunk program.

What zygote_py did:
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/runtime/forward_dispatch.py", line 452, in _python
        return compiled(*values, *extra)
               ^^^^^^^^^^^^^^^^^^^^^^^^^
      File "<zygote_py:h0_back_jvp:145>", line 4, in h0_back_jvp
        _zp_back_2 = _zp_back
                     ^^^^^^^^
    NameError: cannot access free variable '_zp_back' where it is not associated with a value in enclosing scope
"""

import math

import numpy as np

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

class Layer:

    def __init__(self, W, b):
        self.b = b

    def forward(self, v):
        pass

    @property
    def energy(self):
        pass
LAYER = Layer(np.array([[-0.35, -0.11, -0.02], [0.19, -0.54, 0.04]]), np.array([-0.4, -0.53]))
G_M = np.array([[0.17, -0.89, -0.29], [-0.72, -0.17, 0.7]])
G_S = 0.213

def h0(x, n):
    if n <= 0:
        return x
    return h0(x * 0.5, n - 1)

def f(a0, a1, a2):
    a2_x, a2_v = a2
    v2 = np.array([LAYER.energy for t3 in np.maximum(a2_v, -0.48)[1:]])
    acc4 = a0 * 1.0
    p5 = [np.prod(np.cos(a1 / (2.0 + np.sum(a1, axis=0, keepdims=True) ** 2))), math.sin(sum((a * b for a, b in zip(acc4, a0)))) * 2.0, a2_x]
    p5.remove(p5[1])
    del p5[0]
    v7 = sum(p5) + len(p5)
    k8 = 0
    acc9 = sum((np.prod(np.cos(a1)) for t11 in v2))
    while True:
        k8 += 1
        acc9 = acc9 * 0.7 + np.sin(sum([v7 for t10 in v2]) / (2.0 + np.sin(h0(acc9, 3))))
        if k8 >= 1 or acc9 > 1.23:
            break
    return v7 + acc9 + k8 * 0.1 + np.sum(np.sin(a2_v)) + np.sum(G_M) + np.sum(LAYER.b)

def make_args():
    return (np.array([-0.24, 0.24, -0.99]), np.array([[0.89, 0.07, -0.9], [0.5, 0.19, -0.3]]), (-0.72, np.array([-0.95, -0.64, 0.95])))


def test_fuzz_regression():
    assert_correct(f, make_args())
