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
