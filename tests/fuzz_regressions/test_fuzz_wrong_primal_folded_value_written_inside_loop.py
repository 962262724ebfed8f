"""Fuzz regression (wrong_primal), reduced by hand from program #1794 of
`python -m fuzz --seed 31337` (2 programs of that run failed this way).

What zygote_py did:
    withgradient value 3.0, plain Python 4.0

`v7 = 1.0 + v6` is used once, after the loop, so the emitter folds it into its
use; the loop rebinds `v6`, and the folded expression was written out from
inside the loop body (just before the rebinding), i.e. computed from the
loop's `v6`.  It is now written out before the loop starts.
"""

import numpy as np

from fuzz.oracle import assert_correct


def f(x):
    v6 = np.ones(2)
    v7 = 1.0 + v6
    for t8 in (1, 2):
        v6 = v6 * 0.5
        v15 = [v7 for t16 in v6]
    return np.sum(v7) * x


def g(a0):
    v2 = 1.0
    v3 = np.array([1.0])
    acc6 = 1.0
    acc6 += v3
    for t7 in (v2, v2):
        v3 = v3 * 0.5
        u11, *u13, u12 = (v3, t7, (acc6 for t14 in v3), [t15 for t15 in v3 if t15])
    return np.sum(acc6)


def test_fuzz_regression():
    assert_correct(f, (0.7,))


def test_fuzz_regression_augmented_assignment_before_loop():  # program #878
    assert_correct(g, ([np.array([0.11, -0.24, -0.9]), np.array([0.2, -0.02, 0.12])],))
