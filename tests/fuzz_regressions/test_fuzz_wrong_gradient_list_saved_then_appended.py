"""Fuzz regression (wrong_gradient, fixed), shrunk from program #102 of `python -m fuzz --seed 9001`
(3 programs of that run failed this way).

What zygote_py did:
    gradient arg0[(0,)]: zygote_py 2.9601331556824833, finite differences 4.920266311376285
"""

import numpy as np

from fuzz.oracle import assert_correct


def f(a0):
    xs1 = [a0[0]]
    k9 = 0
    while k9 < 4:
        k9 += 1
        xs1.append(np.sin(xs1[0]))
    return sum(xs1)

def make_args():
    return (np.array([0.2, 0.72, -0.38]),)


def test_fuzz_regression():
    assert_correct(f, make_args())
