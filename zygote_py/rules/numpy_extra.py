"""Rules for the NumPy functions of issue 15 that no other module covers: the strided read
patterns (np.lib.stride_tricks.sliding_window_view and as_strided), np.block, np.cov and
np.corrcoef, np.trapz (NumPy < 2.4), np.gradient, np.real_if_close, and the general
eigen-decomposition np.linalg.eig / eigvals, whose results are complex (docs/complex.md's
covector convention).

- A window view or a strided view reads each output entry from one entry of x: the
  cotangent scatter-adds g into the entries read, so overlapping windows add up.  Which
  entry an output reads is decided from the real arrays' byte offsets; as_strided that
  reads memory outside x (or from an x that itself overlaps) is refused.  Writing into
  such a view is refused by the transform already (in-place writes).
- np.block copies every entry of its pieces once: g is cut back into the pieces.
- np.cov: C = Xc diag(w) Xc^T / f with Xc = X - mean (the weighted mean) and f the
  normalisation; X_bar = (G + G^T) Xc diag(w) / f, mapped back to m and y.  The weights
  are constants (refused when they depend on the inputs).  corrcoef(x) is C / (s s^T),
  s = sqrt(diag C).
- np.gradient is linear in f along each axis, with a stencil of at most three
  consecutive samples per output (central differences inside, one-sided at the edges,
  uniform or coordinate spacing).  Its coefficients are read off np.gradient itself,
  applied to the three combs (index % 3 == j): the three stencil columns of a row have
  distinct residues, so each comb's result at that row is one coefficient.  The
  cotangent scatter-adds g through those coefficients; the spacings are constants.
- np.real_if_close returns a's real part when every imaginary part is negligible, else a
  itself: the cotangent is that of np.real or of the identity, as the output shows.
- eig: A = V diag(w) V^-1 with each column of V of unit norm and its largest entry real
  (LAPACK's choice).  With P = V^-1 dA V: dw = diag(P), dV = V (F o P) + V diag(c), F_ij =
  1 / (w_j - w_i), and c the correction that keeps each column's norm and its largest
  entry's phase.  The reverse rule is that map's transpose: A_bar = V^-T (diag(w_bar) +
  F o (V^T V_bar')) V^T, V_bar' being V_bar plus the gauge correction's transpose; the
  real part for a real A.  Eigenvector cotangents need distinct eigenvalues.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided as _as_strided
from numpy.lib.stride_tricks import sliding_window_view as _sliding_window_view

from zygote_py.errors import NoDerivativeRule
from zygote_py.rules import registry
from zygote_py.rules.factorizations import output_parts
from zygote_py.rules.registry import since, vjp
from zygote_py.rules.scans import _trapezoid_cotangents
from zygote_py.rules.shapes import like_input

# ---------------------------------------------------------------------------
# strided reads


def _scatter_add(read, g, size):
    """sum of g over the entries of a flat array of `size` that each output entry read."""
    keys = np.ravel(read)
    values = np.ravel(np.broadcast_to(g, np.shape(read)))
    out = np.bincount(keys, weights=np.real(values), minlength=size).astype(np.float64)
    if np.iscomplexobj(values):
        out = out + 1j * np.bincount(keys, weights=np.imag(values), minlength=size)
    return out


def _window_cotangent(g, x, window_shape, axis):
    xa = np.asarray(x)
    ids = np.arange(xa.size).reshape(xa.shape)
    read = _sliding_window_view(ids, window_shape, axis)
    return _like_kind(_scatter_add(read, g, xa.size).reshape(xa.shape), xa)


def _strided_entries(x, shape, strides):
    """For each entry of as_strided(x, shape, strides): the flat index of the entry of x it
    reads, from byte offsets; refused when that is not an entry of x."""
    xa = np.asarray(x)
    shape = xa.shape if shape is None else tuple(shape)
    strides = xa.strides if strides is None else tuple(strides)
    own = np.zeros(xa.shape, dtype=np.int64)
    for axis, stride in enumerate(xa.strides):
        own = own + np.reshape(np.arange(xa.shape[axis]) * stride,
                               [-1 if k == axis else 1 for k in range(xa.ndim)])
    offsets = np.zeros(shape, dtype=np.int64)
    for axis, stride in enumerate(strides):
        offsets = offsets + np.reshape(np.arange(shape[axis]) * stride,
                                       [-1 if k == axis else 1 for k in range(len(shape))])
    own = np.ravel(own)
    order = np.argsort(own, kind="stable")
    sorted_own = own[order]
    if sorted_own.size and np.any(np.diff(sorted_own) == 0):
        raise NoDerivativeRule(
            "as_strided of an array whose own entries overlap in memory (a broadcast view) "
            "has no derivative rule", None, "pass a copy: as_strided(np.ascontiguousarray(x), ...)")
    position = np.clip(np.searchsorted(sorted_own, offsets), 0, max(sorted_own.size - 1, 0))
    if offsets.size and (sorted_own.size == 0 or np.any(sorted_own[position] != offsets)):
        raise NoDerivativeRule(
            "as_strided reads memory outside its argument's entries here, so its derivative is "
            "not defined", None,
            "keep every strided read inside x (or use np.lib.stride_tricks.sliding_window_view)")
    return order[position]


def _strided_cotangent(g, x, shape, strides):
    xa = np.asarray(x)
    read = _strided_entries(xa, shape, strides)
    return _like_kind(_scatter_add(read, g, xa.size).reshape(xa.shape), xa)


def _like_kind(ct, x):
    """A real argument's cotangent is real (docs/complex.md)."""
    return ct if np.iscomplexobj(x) else np.real(ct)


def sliding_window_view_jvp(dx, y, x, window_shape, axis=None, *, subok=False, writeable=False):
    return _sliding_window_view(dx, window_shape, axis)


def as_strided_jvp(dx, y, x, shape=None, strides=None, subok=False, writeable=True):
    xa = np.asarray(x)
    read = _strided_entries(xa, shape, strides)
    return np.ravel(np.asarray(dx))[read]


# ---------------------------------------------------------------------------
# np.block


def _block_leaves(arrays):
    """The leaves of np.block's nested lists, depth first (the order np.block reads)."""
    if type(arrays) is list:
        return [leaf for item in arrays for leaf in _block_leaves(item)]
    return [arrays]


def _block_rebuild(arrays, pieces):
    """arrays' nesting with its leaves replaced, in order, by pieces (consumed)."""
    if type(arrays) is list:
        return [_block_rebuild(item, pieces) for item in arrays]
    return pieces.pop(0)


def _block_cotangent(g, arrays):
    """np.block of the leaves' flat positions says where each output entry came from."""
    leaves = _block_leaves(arrays)
    sizes = [int(np.size(leaf)) for leaf in leaves]
    starts = np.cumsum([0] + sizes)
    ids = [np.arange(start, start + size).reshape(np.shape(leaf))
           for start, size, leaf in zip(starts, sizes, leaves)]
    source = np.block(_block_rebuild(arrays, list(ids)))
    flat = np.zeros(int(starts[-1]), dtype=np.result_type(g, np.float64))
    flat[np.ravel(source)] = np.ravel(g)
    pieces = [_piece_cotangent(flat[start:start + size], leaf)
              for start, size, leaf in zip(starts, sizes, leaves)]
    return _block_rebuild(arrays, pieces)


def _piece_cotangent(flat, leaf):
    piece = _like_kind(flat.reshape(np.shape(leaf)), leaf)
    if isinstance(leaf, (float, int)):
        return float(piece)
    if isinstance(leaf, complex):
        return complex(piece)
    return piece


def block_jvp(darrays, y, arrays):
    """np.block of the tangents (zeros where a piece has none)."""
    leaves = _block_leaves(arrays)
    tangents = _block_leaves(darrays) if darrays is not None else [None] * len(leaves)
    filled = [np.zeros(np.shape(leaf)) if d is None else d for d, leaf in zip(tangents, leaves)]
    return np.block(_block_rebuild(arrays, filled))


# ---------------------------------------------------------------------------
# np.cov, np.corrcoef


def _cov_layout(m, y, rowvar):
    """NumPy's X: m (and y) as rows of variables, and how to undo it for each."""
    xm = np.array(m, ndmin=2, dtype=np.result_type(m, np.float64))
    flip_m = not rowvar and xm.shape[0] != 1
    if flip_m:
        xm = xm.T
    parts = [(xm, flip_m, m)]
    if y is not None:
        xy = np.array(y, ndmin=2, dtype=np.result_type(y, np.float64))
        flip_y = not rowvar and xy.shape[0] != 1
        if flip_y:
            xy = xy.T
        parts.append((xy, flip_y, y))
    return parts


def _cov_weights(n, bias, ddof, fweights, aweights):
    """w (one per observation) and the normalisation f, as np.cov computes them."""
    w = np.ones(n)
    if fweights is not None:
        w = w * np.asarray(fweights, dtype=np.float64)
    if aweights is not None:
        w = w * np.asarray(aweights, dtype=np.float64)
    if ddof is None:
        ddof = 0 if bias else 1
    v1 = np.sum(w)
    if aweights is None:
        fact = v1 - ddof
    else:
        fact = v1 - ddof * np.sum(w * np.asarray(aweights, dtype=np.float64)) / v1
    return w, v1, fact


def _cov_cotangents(g, m, y, rowvar, bias, ddof, fweights, aweights):
    parts = _cov_layout(m, y, rowvar)
    x = np.concatenate([p[0] for p in parts], axis=0)
    w, v1, fact = _cov_weights(x.shape[1], bias, ddof, fweights, aweights)
    centered = x - (x @ w / v1)[:, None]
    gm = np.reshape(np.asarray(g), (x.shape[0], x.shape[0]))
    gx = (gm + gm.T) @ (centered * w) / fact
    out = []
    row = 0
    for xpart, flipped, original in parts:
        piece = gx[row:row + xpart.shape[0]]
        row += xpart.shape[0]
        piece = piece.T if flipped else piece
        out.append(like_input(_like_kind(np.reshape(piece, np.shape(original)), original), original))
    return out[0], (out[1] if y is not None else None)


def _corrcoef_cotangents(g, x, y, rowvar):
    """R = C / (s s^T), s = sqrt(diag C): C's cotangent, then np.cov's."""
    c = np.cov(x, y, rowvar)
    if np.ndim(c) == 0:  # one variable: R = C / C = 1 (NumPy returns 1.0, or nan at C = 0)
        return _cov_cotangents(0.0 * np.asarray(g), x, y, rowvar, False, None, None, None)
    s = np.sqrt(np.real(np.diag(c)))
    outer = s[:, None] * s[None, :]
    r = c / outer
    gc = g / outer
    gs = -(np.sum(g * r, axis=1) + np.sum(g * r, axis=0)) / s
    gc = gc + np.diag(gs / (2.0 * s))
    return _cov_cotangents(gc, x, y, rowvar, False, None, None, None)


def cov_jvp(dm, dy, y_out, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None,
            aweights=None, *, dtype=None):
    """C is quadratic in X: dC = dXc W Xc^T / f + its transpose."""
    parts = _cov_layout(m, y, rowvar)
    x = np.concatenate([p[0] for p in parts], axis=0)
    tangents = [dm, dy][:len(parts)]
    dx = np.concatenate([np.zeros(p[0].shape) if d is None else
                         (np.array(d, ndmin=2).T if p[1] else np.array(d, ndmin=2))
                         for d, p in zip(tangents, parts)], axis=0)
    w, v1, fact = _cov_weights(x.shape[1], bias, ddof, fweights, aweights)
    centered = x - (x @ w / v1)[:, None]
    dcentered = dx - (dx @ w / v1)[:, None]
    half = (dcentered * w) @ centered.T / fact
    return np.reshape(half + half.T, np.shape(y_out))


def corrcoef_jvp(dx, dy, r, x, y=None, rowvar=True, *, dtype=None):
    c = np.cov(x, y, rowvar)
    dc = cov_jvp(dx, dy, c, x, y, rowvar)
    if np.ndim(c) == 0:
        return 0.0 * dc
    s = np.sqrt(np.diag(c))
    ds = np.diag(dc) / (2.0 * s)
    return dc / np.outer(s, s) - r * (ds[:, None] / s[:, None] + ds[None, :] / s[None, :])


# ---------------------------------------------------------------------------
# forward rules for the scans' trapezoid (and trapz) and polyval


# np.trapezoid from NumPy 2.0, np.trapz before (the same function)
_TRAPEZOID = getattr(np, "trapezoid", None) or getattr(np, "trapz", None)


def trapezoid_jvp(dy_, dx_points, ddx, y, y_, x=None, dx=1.0, axis=-1):
    """Linear in the samples, in the sample points' differences and in dx."""
    out = 0.0
    if dy_ is not None:
        out = out + _TRAPEZOID(dy_, x, dx, axis)
    if x is not None and dx_points is not None:
        out = out + _TRAPEZOID(y_, dx_points, dx, axis)
    if x is None and ddx is not None:
        out = out + _TRAPEZOID(y_, None, 1.0, axis) * ddx
    return out


def polyval_jvp(dp, dx, y, p, x):
    out = 0.0
    if dp is not None:
        out = out + np.polyval(dp, x)
    if dx is not None and np.size(p) > 1:
        out = out + np.polyval(np.polyder(np.asarray(p, dtype=np.float64)), x) * dx
    return out


# ---------------------------------------------------------------------------
# np.gradient, np.real_if_close


def _gradient_axes(f, axis):
    ndim = np.ndim(f)
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    return tuple(int(a) % ndim for a in axes)


def _gradient_spacings(varargs, count):
    """One spacing argument (a scalar or a coordinate array) per differentiated axis."""
    if len(varargs) == 0:
        return (1.0,) * count
    if len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        return (varargs[0],) * count
    return tuple(varargs)  # one per axis (np.gradient checks the count)


def _stencil_transpose(g_axis, n, spacing, edge_order):
    """D^T g along the first axis of g_axis, D being np.gradient's (n, n) matrix along an
    axis of length n (at most three consecutive non-zero columns per row)."""
    combs = [(np.arange(n) % 3 == j).astype(float) for j in range(3)]
    coefficients = np.stack([np.gradient(comb, spacing, edge_order=edge_order) for comb in combs])
    rows = np.arange(n)
    width = min(3, n)
    start = np.clip(rows - 1, 0, n - width)
    out = np.zeros(g_axis.shape, dtype=np.result_type(g_axis, float))
    trailing = (slice(None),) + (None,) * (g_axis.ndim - 1)
    for m in range(width):
        cols = start + m
        weights = coefficients[cols % 3, rows]
        np.add.at(out, cols, weights[trailing] * g_axis)
    return out


def _gradient_cotangent(g, y, f, varargs, axis, edge_order):
    f = np.asarray(f)
    axes = _gradient_axes(f, axis)
    spacings = _gradient_spacings(varargs, len(axes))
    parts = (g,) if len(axes) == 1 else tuple(g)
    out = np.zeros(f.shape, dtype=np.result_type(f, float))
    for ax, spacing, part in zip(axes, spacings, parts):
        if part is None:
            continue
        moved = np.moveaxis(np.broadcast_to(part, f.shape), ax, 0)
        out = out + np.moveaxis(_stencil_transpose(moved, f.shape[ax], spacing, edge_order), 0, ax)
    return out


def gradient_jvp(df, y, f, *varargs, axis=None, edge_order=1):
    """Linear in f: np.gradient of the tangent, with the same spacings."""
    return np.gradient(df, *varargs, axis=axis, edge_order=edge_order)


def real_if_close_jvp(da, y, a, tol=100):
    return da if np.iscomplexobj(y) else np.real(da)


# ---------------------------------------------------------------------------
# np.linalg.eig, eigvals


def _eig_gauge_covector(gv, v):
    """The transpose of the correction c that keeps each column of V at unit norm with its
    largest entry real: Re(s c) with s_k = sum_i gv_ik v_ik, pulled back to dV_raw."""
    s = np.sum(gv * v, axis=-2, keepdims=True)
    largest = np.argmax(np.abs(v), axis=-2)[..., None, :]
    v_largest = np.take_along_axis(v, largest, axis=-2)
    rows = np.arange(v.shape[-2])[:, None]
    at_largest = rows == largest
    phase = np.where(at_largest, -1j * np.imag(s) / np.real(v_largest), 0.0)
    return -np.real(s) * np.conj(v) + phase


def _eig_cotangent(gw, gv, a, w, v):
    vt = np.swapaxes(v, -1, -2)
    pbar = np.zeros(w.shape + w.shape[-1:], dtype=np.result_type(w, v, np.complex128))
    if gw is not None:
        pbar = pbar + np.asarray(gw)[..., None] * np.eye(w.shape[-1])
    if gv is not None:
        gaps = w[..., None, :] - w[..., :, None]  # w_j - w_i
        off = ~np.eye(w.shape[-1], dtype=bool)
        if np.any(off & (gaps == 0)):
            raise NoDerivativeRule(
                "np.linalg.eig's eigenvectors have no derivative at a repeated eigenvalue", None,
                "use only the eigenvalues (np.linalg.eigvals), or np.linalg.eigh for a symmetric matrix")
        f = np.where(off, 1.0 / np.where(off, gaps, 1.0), 0.0)
        gv_raw = np.asarray(gv) + _eig_gauge_covector(np.asarray(gv), v)
        pbar = pbar + f * (vt @ gv_raw)
    abar = np.linalg.solve(vt, pbar @ vt)
    return _like_kind(abar, a)


def eig_jvp(da, y, a):
    w, v = y
    p = np.linalg.solve(v, da @ v)
    dw = np.diagonal(p, axis1=-2, axis2=-1)
    gaps = w[..., None, :] - w[..., :, None]
    off = ~np.eye(w.shape[-1], dtype=bool)
    f = np.where(off, 1.0 / np.where(off, gaps, 1.0), 0.0)
    dv = v @ (f * p)
    largest = np.argmax(np.abs(v), axis=-2)[..., None, :]
    c = -np.real(np.sum(np.conj(v) * dv, axis=-2, keepdims=True)) \
        - 1j * np.imag(np.take_along_axis(dv, largest, axis=-2)) / \
        np.real(np.take_along_axis(v, largest, axis=-2))
    dv = dv + v * c
    if not np.iscomplexobj(w):  # a real spectrum: NumPy returns real w and V
        return np.real(dw), np.real(dv)
    return dw, dv


def eigvals_jvp(da, y, a):
    return eig_jvp(da, np.linalg.eig(a), a)[0]


# ---------------------------------------------------------------------------
# rules


@vjp(_sliding_window_view, diff=("x",), complex_ok=True, jvp=sliding_window_view_jvp)
def sliding_window_view(g, y, x, window_shape, axis=None, *, subok=False, writeable=False):
    """Overlapping windows: each entry of x gets the sum of g over the windows reading it."""
    return _window_cotangent(g, x, window_shape, axis)


@vjp(_as_strided, diff=("x",), complex_ok=True, jvp=as_strided_jvp)
def as_strided(g, y, x, shape=None, strides=None, subok=False, writeable=True):
    """Reads only: the entry each output reads is found from byte offsets (overlap adds up);
    refused when a read falls outside x's own entries."""
    return _strided_cotangent(g, x, shape, strides)


@vjp(np.block, complex_ok=True, jvp=block_jvp)
def block(g, y, arrays):
    """Nested lists of arrays and numbers: g cut back into the pieces."""
    return _block_cotangent(g, arrays)


@vjp(np.cov, diff=("m", "y"), underived=("fweights", "aweights"), jvp=cov_jvp)
def cov(g, c, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        *, dtype=None):
    """(The output is c here: y is the primal's second operand.)  X_bar = (G + G^T) Xc W / f;
    the weights are constants."""
    return _cov_cotangents(g, m, y, rowvar, bias, ddof, fweights, aweights)


@vjp(np.corrcoef, diff=("x", "y"), jvp=corrcoef_jvp)
def corrcoef(g, r, x, y=None, rowvar=True, *, dtype=None):
    """Through C / (s s^T), s = sqrt(diag(C)), then np.cov's rule."""
    return _corrcoef_cotangents(g, x, y, rowvar)


@vjp(np.gradient, diff=("f",), jvp=gradient_jvp, underived=("varargs",))
def gradient(g, y, f, *varargs, axis=None, edge_order=1):
    """Linear in f (one array, or a sequence of them, one per axis); the spacings are
    constants."""
    return _gradient_cotangent(g, y, f, varargs, axis, edge_order)


@vjp(np.real_if_close, complex_ok=True, jvp=real_if_close_jvp)
def real_if_close(g, y, a, tol=100):
    """a itself, or its real part when every imaginary part is within tol eps of 0."""
    if np.iscomplexobj(a) and not np.iscomplexobj(y):
        return like_input(np.real(g), a)
    return g


@vjp(since(np, "trapz", "NumPy < 2.4"), diff=("y_", "x", "dx"), jvp=trapezoid_jvp)
def trapz(g, y, y_, x=None, dx=1.0, axis=-1):
    """np.trapezoid's former name (removed in NumPy 2.4): the same rule."""
    return _trapezoid_cotangents(g, y_, x, dx, axis)


@vjp(np.linalg.eig, diff=("a",), complex_ok=True, jvp=eig_jvp)
def eig(g, y, a):
    """Complex w and V (real where the spectrum is); V's cotangent needs distinct
    eigenvalues and respects LAPACK's normalisation (unit columns, largest entry real)."""
    gw, gv = output_parts(g, y)
    return _eig_cotangent(gw, gv, a, y[0], y[1])


@vjp(np.linalg.eigvals, diff=("a",), complex_ok=True, jvp=eigvals_jvp)
def eigvals(g, y, a):
    """A_bar = V^-T diag(w_bar) V^T (its real part for a real a)."""
    w, v = np.linalg.eig(a)
    return _eig_cotangent(g, None, a, w, v)


if hasattr(np, "trapezoid"):  # NumPy 2.0+ (np.trapz's rule carries it before)
    registry.jvp(np.trapezoid)(trapezoid_jvp)
registry.jvp(np.polyval)(polyval_jvp)
