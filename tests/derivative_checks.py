"""Central finite differences in float64 for functions of one vector, and the checks of
zp.gradient, zp.jvp and zp.hessian against them that many tests make."""

import numpy as np
import pytest

import zygote_py as zp


def fd_gradient(f, x, h=1e-6):
    """The central-difference gradient of f at x, one coordinate at a time."""
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


def fd_hessian(f, x, h=1e-6):
    """The central differences of zp.gradient of f at x, row by row."""
    return np.stack([(zp.gradient(f, x + h * e)[0] - zp.gradient(f, x - h * e)[0]) / (2 * h)
                     for e in np.eye(len(x))])


def assert_gradient_and_jvp(f, x, v, rtol=1e-6, atol=1e-8, value=False):
    """zp.gradient (and, with value=True, zp.withgradient's value) and zp.jvp along v agree
    with central differences."""
    want = fd_gradient(f, x)
    y, (g,) = zp.withgradient(f, x.copy())
    if value:
        assert y == pytest.approx(f(x))
    assert np.allclose(g, want, rtol=rtol, atol=atol)
    _, t = zp.jvp(f, (x.copy(),), (v,))
    assert t == pytest.approx(want @ v, rel=rtol, abs=atol)


def assert_hessian(f, x, atol=1e-5):
    assert np.allclose(zp.hessian(f, x.copy()), fd_hessian(f, x), atol=atol)
