"""Fuzz regression (wrong_gradient), shrunk from program #8020 of `python -m fuzz --seed 20261209`
(1 programs of that run failed this way).

h0 is called twice with different active arguments, so its gradient code calls two
pullbacks, held in cells `_zp_h0_pullback` and `_zp_h0_pullback_2`.  The forward code
zp.hessian runs over that gradient code bound the second pullback under the name
`_zp_h0_pullback`, hiding the first one's cell, and both calls ran the second's.
Fixed: a bound object's name is never one of the function's cells, globals or locals
(codegen/exprs.py: Binder); tests/codegen/test_bound_names.py holds the minimal forms.

What zygote_py did:
    hessian arg0 entry (0, 0): zygote_py np.float64(0.0), differences of the gradient np.float64(-0.38472855817817114)
"""

import numpy as np

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

class Layer:

    @classmethod
    def half_square(cls, t):
        return t

def h0(p0, p1):
    return (p0, np.arcsinh(p0))

def f(a0):
    u3, u4 = h0(Layer.half_square(a0), 1.0)
    u7, u8 = h0(-1.0, a0)
    return u4 + u7 + a0

def make_args():
    return (0.689,)


def test_fuzz_regression():
    assert_correct(f, make_args())
