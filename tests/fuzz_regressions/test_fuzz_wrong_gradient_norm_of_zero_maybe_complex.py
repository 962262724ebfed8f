"""Fuzz regression (wrong_gradient), shrunk from program #1184 of `python -m fuzz --seed 82002`.

What zygote_py did:
    gradient arg1[(0,)]: zygote_py nan, finite differences 0.0

`np.einsum` of a module global may be complex as far as the compiler knows, so
`np.linalg.norm` of its result takes the rule's complex form, which divided by
the norm without the real rule's zero guard: nan at `norm(w - w)`.  Both forms
now take the subgradient 0 there.
"""

import numpy as np

from fuzz.oracle import assert_correct

G_M = np.array([[1.0]])


def f(a0, a1, a2):
    v3 = a1
    v4 = np.einsum('ij,i->j', G_M, v3)
    p6 = [np.linalg.norm(v4 - v4)]
    v8 = sum(p6)
    return v8


def complex_zero(z):
    return np.linalg.norm(z - z) + np.linalg.norm(np.zeros(2) * z[0], axis=0)


def test_fuzz_regression():
    assert_correct(f, (np.array([0.13, -0.36, 0.04]), np.array([-0.97, 0.66, 0.68]),
                       np.array([-0.06, 0.81])))


def test_a_complex_zero_has_the_zero_subgradient():
    import zygote_py as zp

    (g,) = zp.gradient(complex_zero, np.array([0.5 + 1.0j, -0.2j]))
    np.testing.assert_array_equal(g, np.zeros(2, dtype=complex))
