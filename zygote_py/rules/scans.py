"""Rules for scans and sequence operators: cumprod (and cumulative_prod,
nancumprod), cumulative_sum, nancumsum, diff, ediff1d, convolve, correlate,
interp, trapezoid and polyval.

The cotangent of a scan is a reversed scan of g; cumprod is exact where the
input has zeros (the first zero of a lane gets the product of its neighbours,
everything after it zero).  Linear operators (diff, convolve, correlate,
trapezoid) get their transposes.  interp is differentiable in x (the slope of
the segment x falls in; zero outside [xp[0], xp[-1]] and taken from the right
segment at a knot), in the knots xp (moving a segment's ends moves t), fp and the
left/right fill values.
"""

from __future__ import annotations

import numpy as np

from zygote_py.rules.registry import since, vjp, vjp_method
from zygote_py.rules.shapes import like_input

# ---------------------------------------------------------------------------
# helpers


def _revcumsum(x, axis):
    return np.flip(np.cumsum(np.flip(x, axis), axis), axis)


def _cumprod_cotangent(g, y, a, axis):
    """a_bar[k] = sum_{j >= k} g[j] prod_{i <= j, i != k} a[i], exact with zeros."""
    a = np.asarray(a)
    if axis is None:
        return np.reshape(_cumprod_cotangent(g, np.ravel(y), np.ravel(a), 0), a.shape)
    if np.all(a):
        return _revcumsum(g * y, axis) / a
    zeros_so_far = np.cumsum(a == 0, axis=axis)
    before = zeros_so_far == 0  # strictly before the lane's first zero (y is 0 from it on)
    first = (a == 0) & (zeros_so_far == 1)
    ga = np.where(before, _revcumsum(g * y, axis) / np.where(before, a, 1.0), 0.0)
    # the first zero: sum_{j >= z} g[j] (product of a[:j+1] with a[z] taken as 1)
    skip_zero = np.cumprod(np.where(first, 1.0, a), axis=axis)
    return ga + np.where(first, _revcumsum(g * skip_zero, axis), 0.0)


def _drop_initial(v, axis, include_initial):
    """cumulative_sum/prod(include_initial=True) put the identity first: drop it."""
    if not include_initial:
        return v
    ax = 0 if axis is None else axis
    return np.take(v, np.arange(1, np.shape(v)[ax]), axis=ax)


def _diff_cotangents(g, a, n, axis, prepend, append):
    """Transpose of n first differences, then split off prepend / append."""
    for _ in range(n):
        g = -np.diff(g, axis=axis, prepend=0.0, append=0.0)
    ax = axis % g.ndim
    size = np.shape(a)[ax]
    npre = 0 if prepend is None else (1 if np.ndim(prepend) == 0 else np.shape(prepend)[ax])
    ga = np.take(g, np.arange(npre, npre + size), axis=ax)
    gpre = gapp = None
    if prepend is not None:
        gpre = np.take(g, np.arange(npre), axis=ax)
        gpre = float(np.sum(gpre)) if np.ndim(prepend) == 0 else np.reshape(gpre, np.shape(prepend))
    if append is not None:
        gapp = np.take(g, np.arange(npre + size, g.shape[ax]), axis=ax)
        gapp = float(np.sum(gapp)) if np.ndim(append) == 0 else np.reshape(gapp, np.shape(append))
    return ga, gpre, gapp


def _ediff1d_cotangents(g, ary, to_end, to_begin):
    nb = 0 if to_begin is None else int(np.size(to_begin))
    ne = 0 if to_end is None else int(np.size(to_end))
    mid = g[nb:g.shape[0] - ne]
    ga = np.reshape(-np.diff(mid, prepend=0.0, append=0.0), np.shape(ary))
    gend = None if to_end is None else like_input(np.reshape(g[g.shape[0] - ne:], np.shape(to_end)),
                                                  to_end)
    gbegin = None if to_begin is None else like_input(np.reshape(g[:nb], np.shape(to_begin)),
                                                      to_begin)
    return ga, gend, gbegin


def _full_output(g, a, v, mode):
    """g placed in convolve's 'full' output (zeros outside what `mode` kept)."""
    short = min(np.size(a), np.size(v))
    offset = {"full": 0, "same": (short - 1) // 2, "valid": short - 1}[mode]
    full = np.zeros(np.size(a) + np.size(v) - 1, dtype=np.result_type(g, np.float64))
    full[offset:offset + np.size(g)] = g
    return full


def _interp_segments(x, xp, fp):
    """For each x: its segment's left knot index, the segment's width and slope, the
    position t in it, and the masks of points below, above and inside [xp[0], xp[-1]]."""
    xa = np.asarray(x, dtype=np.float64)
    xp = np.asarray(xp, dtype=np.float64)
    fpa = np.asarray(fp, dtype=np.float64)
    idx = np.clip(np.searchsorted(xp, xa, side="right") - 1, 0, xp.size - 2)
    width = xp[idx + 1] - xp[idx]
    safe = np.where(width == 0, 1.0, width)  # repeated knots: a jump, no slope
    t = (xa - xp[idx]) / safe
    slope = (fpa[idx + 1] - fpa[idx]) / safe
    below = xa < xp[0]
    above = xa > xp[-1]
    return xa, idx, safe, t, slope, below, above, ~(below | above)


def _interp_cotangents(g, x, xp, fp, left, right, period):
    """y = fp_i + (fp_{i+1} - fp_i) t, t = (x - xp_i) / (xp_{i+1} - xp_i) inside the knots:
    dy/dx = slope, dy/dfp = (1 - t, t), dy/dxp = slope (t - 1, -t); the fill values outside."""
    if period is not None:
        raise NotImplementedError("zygote_py: no derivative rule for np.interp(period=...)")
    xa, idx, _, t, slope, below, above, inside = _interp_segments(x, xp, fp)
    n = np.size(xp)
    g = np.broadcast_to(g, xa.shape)
    gi = np.where(inside, g, 0.0)
    gx = gi * slope
    flat = np.ravel(idx)
    gfp = (np.bincount(flat, np.ravel(gi * (1.0 - t)), minlength=n)
           + np.bincount(flat + 1, np.ravel(gi * t), minlength=n))
    gxp = (np.bincount(flat, np.ravel(gi * slope * (t - 1.0)), minlength=n)
           + np.bincount(flat + 1, np.ravel(-gi * slope * t), minlength=n))
    g_below = float(np.sum(np.where(below, g, 0.0)))
    g_above = float(np.sum(np.where(above, g, 0.0)))
    gleft = gright = None
    if left is None:
        gfp[0] += g_below
    else:
        gleft = g_below
    if right is None:
        gfp[-1] += g_above
    else:
        gright = g_above
    gx = float(gx) if np.ndim(x) == 0 else gx
    return gx, like_input(gxp, xp), like_input(gfp, fp), gleft, gright


def interp_jvp(dx, dxp, dfp, dleft, dright, y, x, xp, fp, left=None, right=None, period=None):
    """The same derivatives, applied to tangents (None: zero)."""
    _, idx, _, t, slope, below, above, _ = _interp_segments(x, xp, fp)
    dfpa = np.zeros(np.size(fp)) if dfp is None else np.asarray(dfp, dtype=np.float64)
    dxpa = np.zeros(np.size(xp)) if dxp is None else np.asarray(dxp, dtype=np.float64)
    dxa = 0.0 if dx is None else np.asarray(dx, dtype=np.float64)
    inner = (slope * dxa + (1.0 - t) * dfpa[idx] + t * dfpa[idx + 1]
             + slope * ((t - 1.0) * dxpa[idx] - t * dxpa[idx + 1]))
    fill_below = dfpa[0] if left is None else (0.0 if dleft is None else dleft)
    fill_above = dfpa[-1] if right is None else (0.0 if dright is None else dright)
    out = np.where(below, fill_below, np.where(above, fill_above, inner))
    return float(out) if np.ndim(x) == 0 else out


def _trapezoid_cotangents(g, y, x, dx, axis):
    """I = sum_k d_k (y_k + y_{k+1}) / 2 along axis, d = diff(x) or dx."""
    ym = np.moveaxis(np.asarray(y), axis, -1)
    gk = np.asarray(g)[..., None]
    n = ym.shape[-1]
    if x is None:
        ends = np.ones(n)
        ends[[0, -1]] = 0.5
        gy = gk * (dx * ends)
        gdx = float(np.sum(gk * (ym * ends)))
        return np.moveaxis(gy, -1, axis), None, gdx
    xm = np.asarray(x) if np.ndim(x) == 1 else np.moveaxis(np.asarray(x), axis, -1)
    d = np.diff(xm, axis=-1)
    zero = np.zeros(d.shape[:-1] + (1,))
    gy = gk * ((np.concatenate([zero, d], axis=-1) + np.concatenate([d, zero], axis=-1)) / 2)
    gd = gk * ((ym[..., 1:] + ym[..., :-1]) / 2)
    gx = -np.diff(gd, axis=-1, prepend=0.0, append=0.0)
    if np.ndim(x) == 1:
        gx = np.reshape(np.sum(gx, axis=tuple(range(gx.ndim - 1))), np.shape(x))
    else:
        gx = np.moveaxis(gx, -1, axis)
    return np.moveaxis(gy, -1, axis), gx, None


def _polyval_cotangents(g, p, x):
    """y = sum_i p_i x^(N-1-i): p_bar_i = sum g x^(N-1-i), x_bar = g p'(x)."""
    pa = np.asarray(p, dtype=np.float64)
    xa = np.asarray(x, dtype=np.float64)
    gb = np.broadcast_to(g, np.broadcast_shapes(np.shape(g), xa.shape))
    powers = xa[..., None] ** np.arange(pa.size - 1, -1, -1)
    gp = np.tensordot(gb, np.broadcast_to(powers, gb.shape + (pa.size,)), axes=gb.ndim)
    gx = like_input(g * np.polyval(np.polyder(pa), x), x) if pa.size > 1 else None
    return like_input(gp, p), gx


# ---------------------------------------------------------------------------
# rules


@vjp(np.cumprod, diff=("a",))
def cumprod(g, y, a, axis=None, dtype=None, out=None):
    """Exact where a has zeros (see the module notes); axis=None scans the flattened array."""
    return like_input(_cumprod_cotangent(g, y, a, axis), a)


@vjp_method(np.ndarray, "cumprod", diff=("self",))
def ndarray_cumprod(g, y, self, axis=None, dtype=None, out=None):
    return _cumprod_cotangent(g, y, self, axis)


@vjp(since(np, "cumulative_sum", "NumPy 2.1"), diff=("x",))
def cumulative_sum(g, y, x, *, axis=None, dtype=None, out=None, include_initial=False):
    gs = _drop_initial(g, axis, include_initial)
    return np.reshape(_revcumsum(gs, 0 if axis is None else axis), np.shape(x))


@vjp(since(np, "cumulative_prod", "NumPy 2.1"), diff=("x",))
def cumulative_prod(g, y, x, *, axis=None, dtype=None, out=None, include_initial=False):
    ys = _drop_initial(y, axis, include_initial)
    gs = _drop_initial(g, axis, include_initial)
    return _cumprod_cotangent(gs, ys, x, 0 if axis is None else axis)


@vjp(np.nancumsum, diff=("a",))
def nancumsum(g, y, a, axis=None, dtype=None, out=None):
    """NaN entries count as 0 and get a zero cotangent."""
    ga = np.reshape(_revcumsum(np.ravel(g), 0), np.shape(a)) if axis is None else _revcumsum(g, axis)
    return like_input(np.where(np.isnan(a), 0.0, ga), a)


@vjp(np.nancumprod, diff=("a",))
def nancumprod(g, y, a, axis=None, dtype=None, out=None):
    """NaN entries count as 1 and get a zero cotangent."""
    ga = _cumprod_cotangent(g, y, np.where(np.isnan(a), 1.0, a), axis)
    return like_input(np.where(np.isnan(a), 0.0, ga), a)


@vjp(np.diff, diff=("a", "prepend", "append"))
def diff(g, y, a, n=1, axis=-1, prepend=None, append=None):
    """The transpose of differencing; prepend/append (scalars too) get their slices."""
    return _diff_cotangents(g, a, n, axis, prepend, append)


@vjp(np.ediff1d, diff=("ary", "to_end", "to_begin"))
def ediff1d(g, y, ary, to_end=None, to_begin=None):
    return _ediff1d_cotangents(g, ary, to_end, to_begin)


@vjp(np.convolve)
def convolve(g, y, a, v, mode="full"):
    """1-D, modes 'full', 'same' and 'valid': g (in the full output) correlated with
    the other operand."""
    full = _full_output(g, a, v, mode)
    return np.correlate(full, v, "valid"), np.correlate(full, a, "valid")


@vjp(np.correlate)
def correlate(g, y, a, v, mode="valid"):
    """1-D real arrays, modes 'full', 'same' and 'valid': correlate(a, v) is
    convolve(a, v[::-1])."""
    full = _full_output(g, a, v, mode)
    return np.correlate(full, v[::-1], "valid"), np.correlate(full, a, "valid")[::-1]


@vjp(np.interp, diff=("x", "xp", "fp", "left", "right"), unsupported=("period",), jvp=interp_jvp)
def interp(g, y, x, xp, fp, left=None, right=None, period=None):
    """x, the knots xp, the values fp and the fills; period= has no rule."""
    return _interp_cotangents(g, x, xp, fp, left, right, period)


@vjp(since(np, "trapezoid", "NumPy 2.0"), diff=("y_", "x", "dx"))
def trapezoid(g, y, y_, x=None, dx=1.0, axis=-1):
    """(The primal's first parameter is named y_ here: y is the output.)  The samples,
    the sample points x (1-D, or shaped like the samples) and the spacing dx."""
    return _trapezoid_cotangents(g, y_, x, dx, axis)


@vjp(np.polyval)
def polyval(g, y, p, x):
    """Coefficients p (highest power first, an array or a list) and points x."""
    return _polyval_cotangents(g, p, x)
