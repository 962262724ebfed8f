"""Fuzz regression (wrong_gradient: wrong_jvp), from programs #135 and #169 of
`python -m fuzz --seed 6` (the forward-mode oracle, fuzz/forward_oracle.py), shrunk
by hand.

What zygote_py did:
    jvp: zygote_py -0.2549..., finite differences . tangent -0.5098...
    (and, for a matrix constant plus a moving vector, an IndexError in jvp_getitem)

The tangent of `G + x`, where only the smaller operand x moves and the constant G
broadcasts it larger, kept x's shape: np.sum then counted it once instead of once
per broadcast copy (half the derivative here), and indexing it as the (2, 3) result
failed.  jvp_add and jvp_sub now give the tangent the output's shape.
"""

import numpy as np

from fuzz.oracle import assert_correct

G_V = np.array([1.0, 1.0])
G_M = np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 0.9]])


def f(a0, a1):
    v1 = np.sum(G_V + a0, keepdims=True)[0]
    v2 = G_M - a1
    return v1 * a0 + np.sum(v2[:, 2]) * np.sum(v2[1]) + np.sum(np.sin(G_M + a0))


def make_args():
    return (0.566, np.array([-0.92, 0.19, -0.85]))


def test_fuzz_regression():
    assert_correct(f, make_args())
