"""Fuzz regression (wrong_gradient), shrunk from program #862 of `python -m fuzz --seed 83003`
(1 programs of that run failed this way).

What zygote_py did:
    gradient arg1[(1,)]: zygote_py nan, finite differences 0.0

np.where selects 1.0 where cosh(a1 * a1) overflows; the unselected side gets a
cotangent of exactly 0, and cosh's rule multiplied it by sinh(...) = inf: 0 * inf was
nan (JAX and PyTorch give nan here too).  Fixed by the strong zero (runtime/helpers.py
`strong_zero`): a zero cotangent contributes exactly 0 whatever the local derivative.
"""

import numpy as np
from fuzz.oracle import assert_correct

G_S = 1.0

def f(a0, a1):
    d1 = {'a': G_S, 'b': G_S}
    for t2 in d1.values():
        a1 = a1 + a1 + a1
        a1 = np.square(a1)
    v8 = np.where([t9 - t9 for t9 in a1], np.cosh(a1 * a1), 1.0)
    v13 = v8
    return np.sum(v13)

def make_args():
    return (1, np.array([0.18, 0.54, 0.55]))


def test_fuzz_regression():
    assert_correct(f, make_args())
