"""Rules for statistics over axes: the NaN-ignoring reductions (nansum, nanmean,
nanmax, nanmin, nanprod, nanvar, nanstd), ptp, average (with weights), and the
order statistics median, quantile and percentile.

Conventions (the same as reductions.py): `axis` may be None, an int (negative
too) or a tuple, with `keepdims` either way.  NaN entries get a zero
cotangent.  Ties in nanmax/nanmin/ptp split the cotangent evenly among the
tied elements.  median/quantile/percentile use the sorted order (a stable
argsort): the cotangent goes to the one or two elements the interpolation
reads, and among tied values to the one a stable sort puts there.  Only
method='linear' (the default) and unweighted quantiles have a rule; q itself
is treated as a constant.
"""

from __future__ import annotations

import numpy as np

from zygote_py.rules.reductions import _norm_axes, _prod_cotangent, _unsupported
from zygote_py.rules.registry import vjp
from zygote_py.rules.shapes import like_input
from zygote_py.runtime import expand_reduced, reduced_size, unbroadcast, zero_spread

# ---------------------------------------------------------------------------
# helpers


def _fdtype(a):
    """The dtype cotangents of a are computed in (float32 stays float32)."""
    dtype = np.asarray(a).dtype
    return dtype if dtype.kind == "f" else np.float64


def _keep(v, axis, keepdims):
    """A reduction's output (or cotangent) with the reduced axes put back as size 1."""
    return v if keepdims or axis is None else np.expand_dims(v, axis)


def _nan_cotangent(gk, a, weight=1.0):
    """gk * weight broadcast over a, zero where a is NaN."""
    return np.where(np.isnan(a), 0.0, gk * weight)


def _nanmoment_cotangent(g, y, a, axis, keepdims, ddof, std):
    """nanvar: 2 (a - mean) / (count - ddof) over the non-NaN entries; nanstd: / (2 std),
    and 0 where the spread is 0."""
    a = np.asarray(a)
    valid = ~np.isnan(a)
    count = np.sum(valid, axis=axis, keepdims=True, dtype=_fdtype(a))
    centered = a - np.nanmean(a, axis=axis, keepdims=True)
    gk = _keep(g, axis, keepdims)
    dof = np.maximum(count - ddof, 0)  # as NumPy: never below 0 (a value of inf or nan)
    if std is None:
        scale = gk / dof
        return np.where(valid, centered * (2.0 * scale), 0.0)
    # zero spread (one valid entry, or all equal up to rounding): the cotangent 0 (a
    # single entry's std is constantly 0), not rounding noise divided by itself
    spread = _keep(std, axis, keepdims)
    flat = zero_spread(spread, np.where(valid, a, 0.0), axis)
    scale = gk / (dof * np.where(flat, 1.0, spread))
    out = np.where(valid & ~flat, centered * scale, 0.0)
    # (NumPy 1.x promotes the Python float 1.0 above: keep a float32 input's precision)
    return out.astype(np.result_type(centered, gk), copy=False)


def _extremes_cotangent(gk, a, yk, axis):
    hit = np.equal(a, yk)
    return hit * (gk / np.sum(hit, axis=axis, keepdims=True, dtype=_fdtype(a)))


def _ptp_cotangent(g, a, axis, keepdims):
    a = np.asarray(a)
    gk = _keep(g, axis, keepdims)
    hi = np.max(a, axis=axis, keepdims=True)
    lo = np.min(a, axis=axis, keepdims=True)
    return _extremes_cotangent(gk, a, hi, axis) - _extremes_cotangent(gk, a, lo, axis)


def _weight_axes(a, axis):
    """The axes of a that lower-rank weights follow (NumPy: the `axis` argument)."""
    return tuple(int(x) % a.ndim for x in (axis if isinstance(axis, tuple) else (axis,)))


def _average_cotangents(g, y, a, axis, weights, returned, keepdims):
    """y = sum(a w) / sum(w): a_bar = g w / sw, w_bar = g (a - y) / sw (+ the returned sw's)."""
    gy, gsw = g if returned else (g, None)
    avg = y[0] if returned else y
    a = np.asarray(a)
    if weights is None:
        if gy is None:
            return None, None
        return expand_reduced(gy / reduced_size(a, axis), a, axis, keepdims), None
    w = np.asarray(weights)
    aligned = w.shape != a.shape
    wb = w
    if aligned:
        padded = np.reshape(w, w.shape + (1,) * (a.ndim - w.ndim))
        wb = np.moveaxis(padded, tuple(range(w.ndim)), _weight_axes(a, axis))
    sw = np.sum(np.broadcast_to(wb, a.shape), axis=axis, keepdims=True)
    ga = None
    gw = None
    if gy is not None:
        gk = _keep(gy, axis, keepdims)
        ga = np.broadcast_to(gk * wb / sw, a.shape)
        gw = gk * (a - _keep(avg, axis, keepdims)) / sw
    if gsw is not None:
        gs = np.broadcast_to(_keep(gsw, axis, keepdims), a.shape)
        gw = gs if gw is None else gw + gs
    if gw is not None:
        gw = unbroadcast(gw, wb)
        if aligned:
            gw = np.reshape(np.moveaxis(gw, _weight_axes(a, axis), tuple(range(w.ndim))), w.shape)
    return ga, gw


def _quantile_cotangent(g, a, q, axis, keepdims, method, weights):
    """Linear interpolation between the sorted elements at floor and ceil of q (n - 1)."""
    if method != "linear" or weights is not None:
        _unsupported(f"quantiles with method={method!r} or weights")
    a = np.asarray(a)
    axes = _norm_axes(axis, a.ndim)
    kept = tuple(i for i in range(a.ndim) if i not in axes)
    perm = kept + axes
    moved = np.transpose(a, perm)
    lead = moved.shape[: len(kept)]
    flat = np.reshape(moved, lead + (-1,))
    n = flat.shape[-1]
    order = np.argsort(flat, axis=-1, kind="stable")
    qs = np.ravel(np.asarray(q, dtype=np.float64))
    pos = qs * (n - 1)
    lo = np.floor(pos).astype(np.intp)
    hi = np.minimum(lo + 1, n - 1)
    t = pos - lo
    weights_sorted = np.zeros((qs.size, n))
    np.add.at(weights_sorted, (np.arange(qs.size), lo), 1.0 - t)
    np.add.at(weights_sorted, (np.arange(qs.size), hi), t)
    gq = np.reshape(g, (qs.size,) + lead)
    g_sorted = np.tensordot(gq, weights_sorted, axes=([0], [0]))
    ga = np.zeros(flat.shape, dtype=a.dtype if a.dtype.kind == "f" else np.float64)
    np.put_along_axis(ga, order, g_sorted, axis=-1)
    return np.transpose(np.reshape(ga, moved.shape), np.argsort(perm))


# ---------------------------------------------------------------------------
# rules


@vjp(np.bincount, diff=("weights",))
def bincount(g, y, x, weights=None, minlength=0):
    """Counts carry no derivative; with weights=, each weight gets g at its bin."""
    return None if weights is None else like_input(np.asarray(g)[np.asarray(x)], weights)


@vjp(np.nansum, diff=("a",))
def nansum(g, y, a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    gk = _keep(g, axis, keepdims)
    if where is not None:
        gk = np.where(where, gk, 0.0)
    return like_input(_nan_cotangent(gk, a), a)


@vjp(np.nanmean, diff=("a",), unsupported=("where",))
def nanmean(g, y, a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    """g / (number of non-NaN entries) on each non-NaN entry."""
    if where is not None:
        _unsupported("np.nanmean(..., where=...)")
    count = np.sum(~np.isnan(a), axis=axis, keepdims=True, dtype=_fdtype(a))
    return like_input(_nan_cotangent(_keep(g, axis, keepdims), a, 1.0 / count), a)


@vjp(np.nanmax, np.nanmin, diff=("a",), unsupported=("initial", "where"))
def nanmax(g, y, a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Ties split evenly; NaN entries never equal the result, so they get zero."""
    if where is not None or initial is not None:
        _unsupported("np.nanmax/np.nanmin(..., initial= or where=)")
    ga = _extremes_cotangent(_keep(g, axis, keepdims), a, _keep(y, axis, keepdims), axis)
    return like_input(ga, a)


@vjp(np.nanprod, diff=("a",), unsupported=("where",))
def nanprod(g, y, a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """NaN counts as 1 (and gets zero); exact where the other entries have zeros."""
    if where is not None:
        _unsupported("np.nanprod(..., where=...)")
    a_ones = np.where(np.isnan(a), 1.0, a)
    ga = np.where(np.isnan(a), 0.0, _prod_cotangent(g, y, a_ones, axis, keepdims, initial))
    return like_input(ga, a)


@vjp(np.nanvar, diff=("a",), unsupported=("where", "mean"))
def nanvar(g, y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
           mean=None, correction=None):
    if where is not None or mean is not None:
        _unsupported("np.nanvar(..., where= or mean=)")
    ddof_ = ddof if correction is None else correction
    return like_input(_nanmoment_cotangent(g, y, a, axis, keepdims, ddof_, None), a)


@vjp(np.nanstd, diff=("a",), unsupported=("where", "mean"))
def nanstd(g, y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
           mean=None, correction=None):
    if where is not None or mean is not None:
        _unsupported("np.nanstd(..., where= or mean=)")
    ddof_ = ddof if correction is None else correction
    return like_input(_nanmoment_cotangent(g, y, a, axis, keepdims, ddof_, y), a)


@vjp(np.ptp, diff=("a",))
def ptp(g, y, a, axis=None, out=None, keepdims=False):
    """max - min: ties at either end split evenly."""
    return like_input(_ptp_cotangent(g, a, axis, keepdims), a)


@vjp(np.average, diff=("a", "weights"))
def average(g, y, a, axis=None, weights=None, returned=False, *, keepdims=False):
    """Weights the same shape as a, or 1-D along an int (or tuple) axis; with
    returned=True the output and g are (average, sum of weights)."""
    return _average_cotangents(g, y, a, axis, weights, returned, keepdims)


@vjp(np.median, diff=("a",))
def median(g, y, a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The middle element (odd count) or half to each of the middle two (even count)."""
    return like_input(_quantile_cotangent(g, a, 0.5, axis, keepdims, "linear", None), a)


@vjp(np.quantile, diff=("a",), underived=("q", "weights"))
def quantile(g, y, a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    """method='linear' only; q (scalar or array) is a constant."""
    return like_input(_quantile_cotangent(g, a, q, axis, keepdims, method, weights), a)


@vjp(np.percentile, diff=("a",), underived=("q", "weights"))
def percentile(g, y, a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    """np.quantile at q / 100."""
    return like_input(_quantile_cotangent(g, a, np.true_divide(q, 100), axis, keepdims, method,
                                          weights), a)
