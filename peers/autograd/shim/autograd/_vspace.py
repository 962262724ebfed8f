"""The vector-space arithmetic a gradient check needs, on plain values.

autograd checks a VJP in the space of the argument: random directions of the
argument's structure and dtype, an inner product, and (for complex values) the
covector, which is the complex conjugate.  Here those work on what zygote_py
takes and returns: floats, complex numbers, arrays, and tuples, lists and
dicts of them.  zygote_py's `None` (a zero cotangent) is read as zeros.
"""

from __future__ import annotations

import numpy as np

import zygote_py as zp


def _map(fn, *trees):
    first = trees[0]
    if isinstance(first, (tuple, list)):
        out = [_map(fn, *parts) for parts in zip(*trees)]
        return tuple(out) if isinstance(first, tuple) else out
    if isinstance(first, dict):
        return {k: _map(fn, *(t[k] for t in trees)) for k in first}
    return fn(*trees)


def _leaf_randn(x):
    shape = np.shape(x)
    real = np.random.randn(*shape)
    if np.iscomplexobj(x):
        real = real + 1j * np.random.randn(*shape)
    return real


def randn_like(x):
    """A random direction with x's structure, shapes and (real or complex) kind."""
    return _map(_leaf_randn, x)


def zeros_where_none(g, like):
    """g with every None (zygote_py's zero) replaced by zeros shaped like its primal."""
    if g is None:
        return _map(lambda leaf: np.zeros_like(leaf, dtype=np.result_type(leaf, float))[()], like)
    if isinstance(like, (tuple, list)) and isinstance(g, (tuple, list)) and len(g) == len(like):
        out = [zeros_where_none(gi, xi) for gi, xi in zip(g, like)]
        return tuple(out) if isinstance(like, tuple) else out
    if isinstance(like, dict) and isinstance(g, dict) and g.keys() == like.keys():
        return {k: zeros_where_none(g[k], like[k]) for k in like}
    return g


def dense(g, like):
    """zeros_where_none, written so that zygote_py differentiates through it: the operators
    and checks that call it run transformed inside a function being differentiated
    (nested derivatives).  The zeros depend on like's shape only (zp.stop_gradient)."""
    if g is None:
        return zeros_where_none(None, zp.stop_gradient(like))
    if isinstance(like, tuple) and isinstance(g, (tuple, list)) and len(g) == len(like):
        return tuple([dense(gi, xi) for gi, xi in zip(g, like)])
    if isinstance(like, list) and isinstance(g, (tuple, list)) and len(g) == len(like):
        return [dense(gi, xi) for gi, xi in zip(g, like)]
    if isinstance(like, dict) and isinstance(g, dict) and g.keys() == like.keys():
        return {k: dense(g[k], like[k]) for k in like}
    return g


def same_structure(g, like) -> bool:
    """Whether g has like's containers and its leaves' shapes."""
    if isinstance(like, (tuple, list)):
        return (type(g) is type(like) and len(g) == len(like)
                and all(same_structure(a, b) for a, b in zip(g, like)))
    if isinstance(like, dict):
        return isinstance(g, dict) and g.keys() == like.keys() and all(
            same_structure(g[k], like[k]) for k in like)
    return not isinstance(g, (tuple, list, dict)) and np.shape(g) == np.shape(like)


def covector(x):
    return _map(np.conj, x)


def add(x, y):
    return _map(lambda a, b: a + b, x, y)


def scale(x, c):
    return _map(lambda a: a * c, x)


def inner(x, y) -> float:
    """The real inner product sum(Re(conj(x) * y)) over all leaves."""
    total = 0.0
    leaves_x, leaves_y = [], []
    _map(lambda a, b: (leaves_x.append(a), leaves_y.append(b)), x, y)
    for a, b in zip(leaves_x, leaves_y):
        total += float(np.real(np.vdot(np.ravel(a), np.ravel(b))))
    return total

