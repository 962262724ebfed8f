"""Rules for reductions and scans: sum, mean, prod, max/min, var, std, cumsum,
as NumPy functions and as ndarray methods.

`axis` may be None, an int (negative too) or a tuple; `keepdims` either way.
A reduction's cotangent is the output cotangent with the reduced axes put back
(`np.expand_dims` takes negative and tuple axes relative to the input's ndim)
and broadcast against the input.

Ties in max/min: the cotangent is split evenly among all tied maximal
(minimal) elements, so that the rule is the average of the one-sided
derivatives (as in JAX and PyTorch's amax).

A list or float argument (np.sum([a, b])) gets a cotangent of the same form
(see `like_input`).
"""

from __future__ import annotations

import numpy as np

from zygote_py.rules.registry import vjp, vjp_method
from zygote_py.rules.shapes import like_input
from zygote_py.runtime import degrees_of_freedom, expand_reduced, reduced_size, shape_of, zero_spread


def _unsupported(what):
    raise NotImplementedError(f"zygote_py: no derivative rule for {what}")


def _masked_mean_cotangent(g, a, axis, keepdims, where):
    """Cotangent of np.mean(a, axis, where=mask): g / count over the selected entries."""
    a = np.asarray(a)
    mask = np.broadcast_to(where, a.shape)
    count = np.sum(mask, axis=axis, keepdims=True)
    gk = g if keepdims or axis is None else np.expand_dims(g, axis)
    return np.where(mask, gk / count, 0.0)


def _prod_cotangent(g, y, a, axis, keepdims, initial):
    """Cotangent of np.prod: g * prod(others), exact also where a has zeros."""
    a = np.asarray(a)
    gk = g if keepdims or axis is None else np.expand_dims(g, axis)
    if np.all(a):
        yk = y if keepdims or axis is None else np.expand_dims(y, axis)
        return gk * yk / a
    # Product of all other elements: exclusive cumulative products from both ends.
    axes = _norm_axes(axis, a.ndim)
    keep = tuple(i for i in range(a.ndim) if i not in axes)
    perm = keep + axes
    moved = a.transpose(perm)
    lead = moved.shape[: len(keep)]
    flat = moved.reshape(lead + (-1,))
    ones = np.ones(lead + (1,), dtype=flat.dtype)
    left = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    right = np.flip(
        np.cumprod(np.concatenate([ones, np.flip(flat, -1)[..., :-1]], axis=-1), axis=-1), -1
    )
    others = (left * right).reshape(moved.shape).transpose(np.argsort(perm))
    if initial is not None:
        others = others * initial
    return gk * others


def _norm_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        return tuple(sorted(int(a) % ndim for a in axis))
    return (int(axis) % ndim,)


# ---------------------------------------------------------------------------
# sum, mean


@vjp(np.sum, underived=("initial",))
def sum_(g, y, a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    if where is None:
        ga = expand_reduced(g, a, axis, keepdims)
    else:
        gk = g if keepdims or axis is None else np.expand_dims(g, axis)
        ga = np.broadcast_to(np.where(where, gk, 0.0), shape_of(a))
    return like_input(ga, a)  # arrays pass straight through


@vjp_method(np.ndarray, "sum", underived=("initial",))
def ndarray_sum(g, y, self, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    if where is None:
        return expand_reduced(g, self, axis, keepdims)
    gk = g if keepdims or axis is None else np.expand_dims(g, axis)
    return np.broadcast_to(np.where(where, gk, 0.0), self.shape)


@vjp(np.mean)
def mean(g, y, a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    if where is None:
        ga = expand_reduced(g / reduced_size(a, axis), a, axis, keepdims)
    else:
        ga = _masked_mean_cotangent(g, a, axis, keepdims, where)
    return like_input(ga, a)  # arrays pass straight through


@vjp_method(np.ndarray, "mean")
def ndarray_mean(g, y, self, axis=None, dtype=None, out=None, keepdims=False, where=None):
    if where is None:
        return expand_reduced(g / reduced_size(self, axis), self, axis, keepdims)
    return _masked_mean_cotangent(g, self, axis, keepdims, where)


# ---------------------------------------------------------------------------
# prod


@vjp(np.prod, unsupported=("where",), underived=("initial",))
def prod(g, y, a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Exact where a has zeros (the product of the other elements)."""
    if where is not None:
        _unsupported("np.prod(..., where=...)")
    ga = _prod_cotangent(g, y, a, axis, keepdims, initial)
    return like_input(ga, a)  # arrays pass straight through


@vjp_method(np.ndarray, "prod", unsupported=("where",), underived=("initial",))
def ndarray_prod(g, y, self, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    if where is not None:
        _unsupported("ndarray.prod(..., where=...)")
    return _prod_cotangent(g, y, self, axis, keepdims, initial)


# ---------------------------------------------------------------------------
# max, min


@vjp(np.max, np.amax, np.min, np.amin, unsupported=("where",), underived=("initial",))
def amax(g, y, a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Ties split the cotangent evenly among all the extremal elements."""
    if where is not None:
        _unsupported("np.max/np.min(..., where=...)")
    gk = g if keepdims or axis is None else np.expand_dims(g, axis)
    yk = y if keepdims or axis is None else np.expand_dims(y, axis)
    hit = np.equal(a, yk)
    count = np.sum(hit, axis=axis, keepdims=True, dtype=y.dtype)
    if initial is not None:
        count = np.maximum(count, 1)
    ga = hit * (gk / count)
    return like_input(ga, a)  # arrays pass straight through


@vjp_method(np.ndarray, "max", "min", unsupported=("where",), underived=("initial",))
def ndarray_max(g, y, self, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Ties split the cotangent evenly among all the extremal elements."""
    if where is not None:
        _unsupported("ndarray.max/min(..., where=...)")
    gk = g if keepdims or axis is None else np.expand_dims(g, axis)
    yk = y if keepdims or axis is None else np.expand_dims(y, axis)
    hit = self == yk
    count = hit.sum(axis=axis, keepdims=True, dtype=y.dtype)
    if initial is not None:
        count = np.maximum(count, 1)
    return hit * (gk / count)


# ---------------------------------------------------------------------------
# var, std


@vjp(np.var, unsupported=("where",), underived=("mean",))
def var(g, y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None,
        correction=None):
    if where is not None:
        _unsupported("np.var(..., where=...)")
    n = degrees_of_freedom(a, axis, ddof, correction)  # 0: inf or nan, as the value
    gk = g if keepdims or axis is None else np.expand_dims(g, axis)
    centered = a - (np.mean(a, axis=axis, keepdims=True) if mean is None else mean)
    ga = centered * (gk * (2.0 / n))
    return like_input(ga, a)  # arrays pass straight through


@vjp_method(np.ndarray, "var", unsupported=("where",), underived=("mean",))
def ndarray_var(g, y, self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None,
                mean=None, correction=None):
    if where is not None:
        _unsupported("ndarray.var(..., where=...)")
    n = degrees_of_freedom(self, axis, ddof, correction)
    gk = g if keepdims or axis is None else np.expand_dims(g, axis)
    centered = self - (self.mean(axis=axis, keepdims=True) if mean is None else mean)
    return centered * (gk * (2.0 / n))


@vjp(np.std, unsupported=("where",), underived=("mean",))
def std(g, y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None,
        correction=None):
    """With zero spread the cotangent is 0 (a subgradient, as autograd's), not nan."""
    if where is not None:
        _unsupported("np.std(..., where=...)")
    n = degrees_of_freedom(a, axis, ddof, correction)
    gk = g if keepdims or axis is None else np.expand_dims(g, axis)
    yk = y if keepdims or axis is None else np.expand_dims(y, axis)
    centered = a - (np.mean(a, axis=axis, keepdims=True) if mean is None else mean)
    # zero spread (up to rounding): the subgradient 0 is taken, not 0 / 0 or noise / noise
    flat = zero_spread(yk, a, axis)
    ga = np.where(flat, 0.0, centered * (gk / (n * np.where(flat, 1.0, yk))))
    return like_input(ga, a)  # arrays pass straight through


@vjp_method(np.ndarray, "std", unsupported=("where",), underived=("mean",))
def ndarray_std(g, y, self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None,
                mean=None, correction=None):
    if where is not None:
        _unsupported("ndarray.std(..., where=...)")
    n = degrees_of_freedom(self, axis, ddof, correction)
    gk = g if keepdims or axis is None else np.expand_dims(g, axis)
    yk = y if keepdims or axis is None else np.expand_dims(y, axis)
    centered = self - (self.mean(axis=axis, keepdims=True) if mean is None else mean)
    flat = zero_spread(yk, self, axis)  # 0 at zero spread (up to rounding), as np.std
    return np.where(flat, 0.0, centered * (gk / (n * np.where(flat, 1.0, yk))))


# ---------------------------------------------------------------------------
# cumsum


@vjp(np.cumsum)
def cumsum(g, y, a, axis=None, dtype=None, out=None):
    """The reversed cumulative sum of g; axis=None scans the flattened array."""
    if axis is None:
        return np.reshape(np.flip(np.cumsum(np.flip(g))), shape_of(a))
    return np.flip(np.cumsum(np.flip(g, axis), axis), axis)


@vjp_method(np.ndarray, "cumsum")
def ndarray_cumsum(g, y, self, axis=None, dtype=None, out=None):
    if axis is None:
        return np.flip(np.cumsum(np.flip(g))).reshape(self.shape)
    return np.flip(np.cumsum(np.flip(g, axis), axis), axis)
