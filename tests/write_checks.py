"""Checking gradients of functions that write into arrays: central differences on copies
(the functions write into their arguments), and the caller's arrays after a gradient call
compared with a plain call's."""

import numpy as np

import zygote_py as zp


def _copies(args):
    return [np.array(a, dtype=float, copy=True) if isinstance(a, np.ndarray) else a for a in args]


def fd_gradient(f, args, k, h=1e-6):
    base = _copies(args)
    x = base[k]
    if not isinstance(x, np.ndarray):
        plus, minus = _copies(args), _copies(args)
        plus[k] = x + h
        minus[k] = x - h
        return (f(*plus) - f(*minus)) / (2 * h)
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        plus, minus = _copies(args), _copies(args)
        plus[k][idx] += h
        minus[k][idx] -= h
        grad[idx] = (f(*plus) - f(*minus)) / (2 * h)
    return grad


def check_writes(f, *args, atol=1e-6, argnums=None):
    """zp.gradient(f) against central differences for every float argument; the arguments
    after the gradient call hold what a plain call leaves; the value is the plain value."""
    plain_args = _copies(args)
    expected_value = f(*plain_args)
    grad_args = _copies(args)
    value, grads = zp.withgradient(f, *grad_args)
    np.testing.assert_allclose(value, expected_value, rtol=1e-12, atol=1e-12)
    for after, plain in zip(grad_args, plain_args):
        if isinstance(plain, np.ndarray):
            np.testing.assert_array_equal(after, plain)
    argnums = range(len(args)) if argnums is None else argnums
    for k in argnums:
        if not isinstance(args[k], (np.ndarray, float)):
            continue
        expected = fd_gradient(f, args, k)
        got = grads[k]
        if got is None:
            got = np.zeros_like(expected)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=atol,
                                   err_msg=f"gradient of argument {k}")
    return grads


def fd_jvp(f, args, tangents, h=1e-6):
    """Central differences of f along the tangents, each call on fresh copies."""
    plus = [a + h * t if t is not None else a for a, t in zip(_copies(args), tangents)]
    minus = [a - h * t if t is not None else a for a, t in zip(_copies(args), tangents)]
    return (np.asarray(f(*plus)) - np.asarray(f(*minus))) / (2 * h)


def check_jvp_writes(f, *args, seed=0, rtol=1e-6, atol=1e-8):
    """zp.jvp(f) against central differences along a random direction for every float
    argument; the arguments after the call hold what a plain call leaves, the value is
    the plain value, and the tangents passed in are not changed."""
    rng = np.random.default_rng(seed)
    tangents = [rng.normal(size=np.shape(a)) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
                else (float(rng.normal()) if isinstance(a, float) else None) for a in args]
    kept = [None if t is None else np.array(t, copy=True) for t in tangents]
    plain_args = _copies(args)
    expected_value = f(*plain_args)
    jvp_args = _copies(args)
    value, tangent = zp.jvp(f, tuple(jvp_args), tuple(tangents))
    np.testing.assert_allclose(value, expected_value, rtol=1e-12, atol=1e-12)
    for after, plain in zip(jvp_args, plain_args):
        if isinstance(plain, np.ndarray):
            np.testing.assert_array_equal(after, plain)
    for t, k in zip(tangents, kept):
        if t is not None:
            np.testing.assert_array_equal(t, k)  # the caller's tangents are left alone
    np.testing.assert_allclose(tangent, fd_jvp(f, args, tangents), rtol=rtol, atol=atol)
    return tangent


def check_hessian_writes(f, x, h=1e-5, rtol=1e-5, atol=1e-7):
    """zp.hessian(f, x) (forward mode over the compiled gradient) against central
    differences of reverse-mode gradients, each taken on fresh copies."""
    got = zp.hessian(f, np.array(x, copy=True))
    x = np.asarray(x, dtype=float)
    cols = []
    for j in range(x.size):
        e = np.zeros(x.size)
        e[j] = h
        e = e.reshape(x.shape)
        up = zp.gradient(f, x + e)[0]
        down = zp.gradient(f, x - e)[0]
        cols.append(((up - down) / (2 * h)).ravel())
    want = np.stack(cols, axis=-1).reshape(x.shape + x.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    return got
