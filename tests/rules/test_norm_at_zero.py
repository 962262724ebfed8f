"""At a zero argument the 2-norm's cotangent is the least-norm subgradient, 0:
a function that is smooth there (norm of x - x) gets its true derivative."""

import numpy as np

import zygote_py as zp
from rules import norm_cases as cases


def _central(f, x, h=1e-6):
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = h
        out[i] = (f(x + step) - f(x - step)) / (2 * h)
    return out


def test_norm_of_a_zero_difference():
    (g,) = zp.gradient(cases.plus_norm_of_difference, 0.3)
    assert g == 1.0


def test_row_norms_with_a_zero_row_match_finite_differences():
    x = np.array([[3.0, 4.0], [1.0, 2.0]])
    (g,) = zp.gradient(cases.row_norms_with_a_zero_row, x)
    np.testing.assert_allclose(g, _central(cases.row_norms_with_a_zero_row, x), rtol=1e-7, atol=1e-9)
    assert np.all(np.isfinite(g))
