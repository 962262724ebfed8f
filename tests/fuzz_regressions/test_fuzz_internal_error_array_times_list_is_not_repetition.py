"""Fuzz regression (internal_error), shrunk from program #922 of `python -m fuzz --seed 86006`
(1 programs of that run failed this way).

What zygote_py did:
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/rules/operators.py", line 57, in _repeat_rule
        return _repeat_cotangents(g, a, b)
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^
      File "zygote_py/rules/operators.py", line 43, in _repeat_cotangents
        for k in range(int(times)):
                       ^^^^^^^^^^
    TypeError: only 0-dimensional arrays can be converted to Python scalars

`np.tanh(p1) * p1` with p1 a list is NumPy's elementwise product, not list repetition:
the sequence form of the rule is chosen from the result (a list or tuple), not from an
operand being one (it raised TypeError in the repetition rule).
"""

import numpy as np

from fuzz.oracle import assert_correct


def h0(p0, p1):
    p1 = [p0, p0, p1]
    v3 = p1.pop()
    return np.tanh(p1) * p1

def f(a0, a1):
    u4, u5 = h0(1.0, a1)
    return u5

def make_args():
    return (2, np.array([-0.25, -0.59]))


def test_fuzz_regression():
    assert_correct(f, make_args())
