"""Rules for the methods of NumPy's ufuncs: `np.add.reduce(x)`, `np.logaddexp.reduce(x)`,
`np.multiply.accumulate(x)`, `np.add.outer(a, b)` and the like.

One rule per method serves every ufunc: `self` is the ufunc (the receiver of the
method call, a constant by the time the cotangent is computed) and the helper
below picks its cotangent.  A ufunc a method here has no cotangent for raises
NoDerivativeRule naming it (`numpy.divide.reduce`), never a zero.

reduce    add, subtract, multiply, maximum/minimum/fmax/fmin (ties split the
          cotangent evenly, as np.max does), logaddexp, logaddexp2, hypot.
          `axis` defaults to 0, as in NumPy; None and tuples as for np.sum.
accumulate  add, subtract, multiply (exact with zeros, as np.cumprod).
outer     add, subtract, multiply, divide.

`out=` and `where=` are refused: no derivative is defined through them here.
"""

from __future__ import annotations

import numpy as np

from zygote_py.errors import NoDerivativeRule
from zygote_py.rules.reductions import _norm_axes, _prod_cotangent
from zygote_py.rules.registry import qualified_name, vjp, vjp_method
from zygote_py.runtime import unbroadcast
from zygote_py.rules.scans import _cumprod_cotangent, _revcumsum
from zygote_py.rules.shapes import like_input


def _refuse(ufunc, method):
    raise NoDerivativeRule(
        f"no derivative rule for {qualified_name(ufunc)}.{method}, which is called with an "
        "active argument",
        hint="write it with the equivalent NumPy function (np.sum, np.cumsum, ...), or register "
        "a rule with @zp.adjoint")


def _reduce_cotangent(ufunc, g, y, a, axis, keepdims, initial):
    a_in = a
    a = np.asarray(a)
    axes = _norm_axes(axis, a.ndim)
    gk = np.asarray(g) if keepdims else np.expand_dims(g, axes)
    yk = np.asarray(y) if keepdims else np.expand_dims(y, axes)
    if ufunc is np.add:
        ga = np.broadcast_to(gk, a.shape)
    elif ufunc is np.subtract:
        # a0 - a1 - ... (or initial - a0 - a1 - ...): one axis only, as NumPy allows
        ga = np.broadcast_to(-gk, a.shape).copy()
        if initial is None and a.shape[axes[0]] > 0:
            first = [slice(None)] * a.ndim
            first[axes[0]] = 0
            ga[tuple(first)] = -ga[tuple(first)]
    elif ufunc is np.multiply:
        ga = _prod_cotangent(gk, yk, a, axes, True, initial)
    elif ufunc in (np.maximum, np.minimum, np.fmax, np.fmin):
        hit = np.equal(a, yk)
        count = np.sum(hit, axis=axes, keepdims=True, dtype=np.result_type(y, np.float64))
        ga = hit * (gk / np.maximum(count, 1))
    elif ufunc is np.logaddexp:
        ga = gk * np.exp(a - yk)
    elif ufunc is np.logaddexp2:
        ga = gk * np.exp2(a - yk)
    elif ufunc is np.hypot:
        ga = gk * np.where(yk == 0, 0.0, a / np.where(yk == 0, 1.0, yk))
    else:
        _refuse(ufunc, "reduce")
    return like_input(np.asarray(ga), a_in)


def _accumulate_cotangent(ufunc, g, y, a, axis):
    a_in = a
    a = np.asarray(a)
    g = np.asarray(g)
    axis = axis % a.ndim
    if ufunc is np.add:
        ga = _revcumsum(g, axis)
    elif ufunc is np.subtract:
        # y_k = a_0 - a_1 - ... - a_k: a_0 gets every g, a_j (j >= 1) minus the later ones
        ga = -_revcumsum(g, axis)
        first = [slice(None)] * a.ndim
        first[axis] = 0
        ga[tuple(first)] = -ga[tuple(first)]
    elif ufunc is np.multiply:
        ga = _cumprod_cotangent(g, y, a, axis)
    else:
        _refuse(ufunc, "accumulate")
    return like_input(ga, a_in)


def _outer_cotangents(ufunc, g, y, A, B):
    a, b = np.asarray(A), np.asarray(B)
    a_wide = np.reshape(a, a.shape + (1,) * b.ndim)  # a[..., None, ...]: outer = ufunc(a_wide, b)
    if ufunc is np.add:
        da, db = g, g
    elif ufunc is np.subtract:
        da, db = g, -g
    elif ufunc is np.multiply:
        da, db = g * b, g * a_wide
    elif ufunc is np.divide:
        da, db = g / b, -g * a_wide / (b * b)
    else:
        _refuse(ufunc, "outer")
    b_axes = tuple(range(a.ndim, a.ndim + b.ndim))
    ga = np.sum(np.broadcast_to(da, np.shape(g)), axis=b_axes)
    gb = np.sum(np.broadcast_to(db, np.shape(g)), axis=tuple(range(a.ndim)))
    return like_input(np.asarray(ga), A), like_input(np.asarray(gb), B)


@vjp_method(np.ufunc, "reduce", diff=("array",), unsupported=("out", "where"),
            underived=("initial",))
def ufunc_reduce(g, y, self, array, axis=0, dtype=None, out=None, keepdims=False, initial=None,
                 where=None):
    return _reduce_cotangent(self, g, y, array, axis, keepdims, initial)


@vjp_method(np.ufunc, "accumulate", diff=("array",), unsupported=("out",))
def ufunc_accumulate(g, y, self, array, axis=0, dtype=None, out=None):
    return _accumulate_cotangent(self, g, y, array, axis)


@vjp_method(np.ufunc, "outer", diff=("A", "B"), unsupported=("out", "where"))
def ufunc_outer(g, y, self, A, B, out=None, where=None, **kwargs):
    return _outer_cotangents(self, g, y, A, B)


# -- ufunc.at as a value: `np.multiply.at(a, idx, b)` is lowered to a[...] = ufunc_at(...) ----
def ufunc_at(ufunc, a, index, b):
    """A copy of a with `ufunc.at(copy, index, b)` applied: NumPy's unbuffered in-place
    method (every repeat of an index applies again) as a value.  Lowering writes
    `np.multiply.at(a, idx, b)` as `a[...] = ufunc_at(np.multiply, a, idx, b)`
    (frontend/lower_writes.py); np.add.at and np.subtract.at are written as scatters."""
    out = np.array(a, copy=True)
    ufunc.at(out, index, b)
    return out


_AT_UFUNCS = (np.multiply, np.divide)


def _at_targets(a, index, b):
    """(flat position written, value applied) of each application, in NumPy's order."""
    a = np.asarray(a)
    positions = np.arange(a.size).reshape(a.shape)[index]
    values = np.broadcast_to(b, np.shape(positions))
    return np.ravel(positions), np.ravel(values), np.shape(positions)


def _exclusive_products(targets, values):
    """For each application, the product of the other values applied to the same element
    (exact with zeros: prefix and suffix products within each group, no division)."""
    n = len(targets)
    dtype = np.result_type(values, np.float64)
    out = np.ones(n, dtype=dtype)
    if n == 0:
        return out
    order = np.argsort(targets, kind="stable")
    grouped, v = targets[order], values[order].astype(dtype)
    first = np.ones(n, dtype=bool)
    first[1:] = grouped[1:] != grouped[:-1]
    last = np.ones(n, dtype=bool)
    last[:-1] = first[1:]
    index = np.arange(n)
    rank = index - np.maximum.accumulate(np.where(first, index, 0))
    rank_from_end = np.minimum.accumulate(np.where(last, index, n - 1)[::-1])[::-1] - index
    before, after = np.ones(n, dtype=dtype), np.ones(n, dtype=dtype)
    for r in range(1, int(rank.max()) + 1):  # one step per repeat of the most repeated element
        here = np.nonzero(rank == r)[0]
        before[here] = before[here - 1] * v[here - 1]
    for r in range(1, int(rank_from_end.max()) + 1):
        here = np.nonzero(rank_from_end == r)[0]
        after[here] = after[here + 1] * v[here + 1]
    out[order] = before * after
    return out


def _ufunc_at_cotangents(ufunc, g, y, a, index, b):
    if ufunc not in _AT_UFUNCS or np.iscomplexobj(a) or np.iscomplexobj(b) or \
            np.iscomplexobj(g):  # (lowering only makes it for multiply and divide)
        raise NoDerivativeRule(f"no derivative rule for numpy.{ufunc.__name__}.at on these "
                               "values (real multiply and divide have one)",
                               hint="write it with real arrays, or register a rule with "
                               "@zp.adjoint")
    a_arr = np.asarray(a)
    targets, values, shape = _at_targets(a_arr, index, b)
    g = np.broadcast_to(np.asarray(g, dtype=np.result_type(g, np.float64)), a_arr.shape)
    flat_g = np.ravel(g)
    # the product (or quotient) each element got: ufunc_at, whose rule is this one, so that
    # the gradient code calling this is differentiated again (zp.hessian) like any other
    factor = ufunc_at(ufunc, np.ones(a_arr.size, dtype=flat_g.dtype), targets, values)
    ga = g * factor.reshape(a_arr.shape)
    if ufunc is np.multiply:
        gv = flat_g[targets] * np.ravel(a_arr)[targets] * _exclusive_products(targets, values)
    else:  # y = a / (b1 b2 ...): d y / d b_j = -y / b_j
        gv = -flat_g[targets] * np.ravel(y)[targets] / values
    gb = unbroadcast(np.reshape(gv, shape), b)
    return like_input(np.asarray(ga), a), gb


@vjp(ufunc_at, diff=("a", "b"), name="numpy.ufunc.at")
def ufunc_at_rule(g, y, ufunc, a, index, b):
    return _ufunc_at_cotangents(ufunc, g, y, a, index, b)
