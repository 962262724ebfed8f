"""Checking forward mode (zp.jvp) and forward over reverse (zp.hessian) of functions that
write into objects, lists and dicts: a write changes the object, so every evaluation --
the jvp, each finite difference, the Hessian, each gradient the Hessian is compared with
-- gets the fresh objects `make()` builds (make() returns the function of x to check)."""

import numpy as np

import zygote_py as zp

H = 1e-6


def check_jvp(make, x, v, rtol=1e-6, atol=1e-8):
    """zp.jvp of make()'s function at x along v against central differences of plain runs;
    the value is the plain value.  Returns the tangent."""
    expected_value = make()(x)
    value, tangent = zp.jvp(make(), (x,), (v,))
    np.testing.assert_allclose(value, expected_value, rtol=1e-12, atol=1e-12)
    fd = (np.asarray(make()(x + H * v)) - np.asarray(make()(x - H * v))) / (2 * H)
    np.testing.assert_allclose(tangent, fd, rtol=rtol, atol=atol)
    return tangent


def fd_hessian(make, x, h=1e-5):
    """Central differences of zp.gradient (itself checked against differences of values in
    the reverse-mode tests), one column per element of x, each on fresh objects."""
    n = x.size
    out = np.zeros((n, n))
    for j in range(n):
        e = np.zeros(n)
        e[j] = h
        plus = zp.gradient(make(), (x + e.reshape(x.shape)))[0]
        minus = zp.gradient(make(), (x - e.reshape(x.shape)))[0]
        out[:, j] = np.ravel((plus - minus) / (2 * h))
    return out


def check_hessian(make, x, rtol=1e-5, atol=1e-7):
    """zp.hessian of make()'s function at x against central differences of its gradient,
    and symmetric.  Returns the Hessian."""
    hess = np.asarray(zp.hessian(make(), x)).reshape(x.size, x.size)
    np.testing.assert_allclose(hess, fd_hessian(make, x), rtol=rtol, atol=atol)
    np.testing.assert_allclose(hess, hess.T, rtol=1e-9, atol=1e-10)
    return hess
