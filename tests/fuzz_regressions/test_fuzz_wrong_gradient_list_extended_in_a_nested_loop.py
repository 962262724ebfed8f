"""Fuzz regression (wrong_gradient), shrunk from program #1959 of `python -m fuzz --seed 87007`
(1 programs of that run failed this way).

What zygote_py did:
    gradient arg0[(0,)]: zygote_py 3.0, finite differences 9.000000000111022

The while loop saves xs4 on its tape for `sum(xs4)`; the inner for loop's carried
list is the same object, and was extended in place, so the tape's list grew too
and the adjoint of `sum` saw the longer list.  A value a tape or pullback keeps
now marks the loop and branch values it flows into unchanged: they are never
updated in place (codegen/naming.py: spread_kept).
"""

import numpy as np

from fuzz.oracle import assert_correct

G_M = np.array([[1.0, 0.6, 1.0]])

def f(a0, a1, a2):
    v1 = 1.0
    xs4 = [v1]
    k7 = 0
    while k7 < 4:
        k7 += 1
        u5 = sum(xs4)
        for i8 in range(3):
            xs4.extend([G_M[0].dot(a0)])
    return u5

def make_args():
    return (np.array([0.7, -0.11, 0.6]), np.array([[0.05, -0.72, 0.66], [-0.75, 0.57, -0.28]]), 3)


def test_fuzz_regression():
    assert_correct(f, make_args())
