"""Fuzz regression (internal_error), shrunk from program #8094 of `python -m fuzz --seed 20261209`
(1 programs of that run failed this way).

The gradient code of the `for` (with its early `return`) carries the `while` condition's
temporary `tmp`, unassigned before the loop's first trip; forward mode over that code
(zp.hessian) carried it into the `while` under another name, a plain copy that read the
unassigned variable.  Fixed: such a copy reads `locals().get(name, UNBOUND)` and unbinds
its target again (codegen/emit.py: unbound_copies); tests/codegen/test_unbound_copies.py
holds the minimal forms.

What zygote_py did:
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/runtime/forward_dispatch.py", line 453, in _python
        return compiled(*values, *extra)
               ^^^^^^^^^^^^^^^^^^^^^^^^^
      File "<zygote_py:f_pullback_jvp:454>", line 209, in f_pullback_jvp
        _zp_tape_1_1, _zp_tape_2_1, tmp_23_1, _zp_break_1, _zp_tape_1_dot_1 = _zp_tape_1, _zp_tape_2, tmp_23, False, _zp_tape_1_dot
                                                                                                      ^^^^^^
    UnboundLocalError: cannot access local variable 'tmp_23' where it is not associated with a value
"""

import math

import numpy as np

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

@dataclass
class Pair:
    a: float
    b: object

    def combine(self):
        pass

def h0(*xs, scale=1.0):
    total = 0.0
    for x in xs:
        total = total + np.exp(np.sin(x))
    return total * scale

def h1(p0):
    return np.stack([p0, p0 * 0.5])

def f(a0, a1, a2):
    acc9 = np.sin(np.min(a2, axis=1)) * 1.0
    acc9 -= sum(itertools.chain(a2[0] / (2.0 + np.sin(a2[1, 1])), a0[:2]))
    acc9 += math.exp(math.sin(math.log1p(a0[0] * a2[1, 1])))
    v10 = acc9
    v11 = (np.stack([t * a0 for t in v10]).sum(axis=0) + a0) / (2.0 + np.sin(a2[1, 1] + np.linalg.det(a2 @ a2.T + np.eye(2))))
    acc12 = v11 * 1.0
    acc12 += a2[0] / (2.0 + np.sin(np.maximum(a0, 0.37)))
    for t14, t13 in enumerate(np.array([t15 for t15 in v10])):
        acc12 = acc12 * 0.5 + np.abs(np.exp(np.sin(acc12)) - -0.1)
        k16 = 0
        while k16 < 2 and sum((a * b for a, b in zip(a0, acc12))) < 3.0:
            k16 += 1
            t13 = t13 * 0.9 + t13
        v18 = t13 - sum([t19 for t19 in np.max(a2, axis=-1)])
        v18 *= math.cos(math.exp(math.sin(abs(v18 - 0.05))))
        return v18 - sum((sum(row) for row in a2))

def make_args():
    return (np.array([-0.73, 0.12, 0.61]), 1, np.array([[0.48, -0.52, 0.19], [0.03, 0.32, 0.21]]))


def test_fuzz_regression():
    assert_correct(f, make_args())
