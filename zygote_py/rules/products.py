"""Rules for the products and matrix functions not in linalg.py: kron, cross,
matvec, vecmat, multi_dot, matrix_power, and the NumPy 2 array-API functions of `np.linalg`
(trace, diagonal, matrix_transpose, matrix_norm, vector_norm) that work on the
last two axes.

Real arrays only.  Helpers may loop (over a chain of matrices, over powers);
rule bodies stay straight-line so that the compiler can inline them.
"""

from __future__ import annotations

import numpy as np

from zygote_py.rules.indexing import _diagonal_cotangent
from zygote_py.rules.linalg import _norm_cotangent, einsum_operand_cotangent, vector_norm_cotangent
from zygote_py.rules.registry import since, vjp
from zygote_py.rules.shapes import like_input
from zygote_py.rules.strong_products import has_nan, repair_needed, strong_contraction
from zygote_py.runtime import strong_zero, unbroadcast

# ---------------------------------------------------------------------------
# helpers


def _kron_view(g, a, b):
    """g with its axes split and grouped as (a's axes..., b's axes...), and the padded shapes:
    kron(a, b)[i*nb + j] = a[i] * b[j] along every axis."""
    nd = max(np.ndim(a), np.ndim(b))
    sa = (1,) * (nd - np.ndim(a)) + tuple(np.shape(a))
    sb = (1,) * (nd - np.ndim(b)) + tuple(np.shape(b))
    interleaved = np.reshape(g, [d for pair in zip(sa, sb) for d in pair])
    return np.transpose(interleaved, list(range(0, 2 * nd, 2)) + list(range(1, 2 * nd, 2))), sa, sb


def _kron_cotangent_a(g, a, b):
    """With the strong zero (rules/strong_products.py), as every product helper here."""
    r = _kron_cotangent_a_raw(g, a, b)
    if not repair_needed(r, g, b):
        return r
    return strong_contraction(lambda g_, b_: _kron_cotangent_a_raw(g_, a, b_), r, g, b)


def _kron_cotangent_b(g, a, b):
    r = _kron_cotangent_b_raw(g, a, b)
    if not repair_needed(r, g, a):
        return r
    return strong_contraction(lambda g_, a_: _kron_cotangent_b_raw(g_, a_, b), r, g, a)


def _kron_cotangent_a_raw(g, a, b):
    gt, sa, sb = _kron_view(g, a, b)
    nd = len(sa)
    ga = np.tensordot(gt, np.reshape(b, sb), axes=(list(range(nd, 2 * nd)), list(range(nd))))
    return np.reshape(ga, np.shape(a))


def _kron_cotangent_b_raw(g, a, b):
    gt, sa, sb = _kron_view(g, a, b)
    nd = len(sa)
    gb = np.tensordot(np.reshape(a, sa), gt, axes=(list(range(nd)), list(range(nd))))
    return np.reshape(gb, np.shape(b))


def _cross_moved(g, a, b, axisa, axisb, axisc):
    am = np.moveaxis(np.asarray(a), axisa, -1)
    bm = np.moveaxis(np.asarray(b), axisb, -1)
    if am.shape[-1] != 3 or bm.shape[-1] != 3:
        raise NotImplementedError("zygote_py: np.cross has a derivative rule for 3-vectors only "
                                  "(NumPy 2 deprecates 2-vectors)")
    return np.moveaxis(g, axisc, -1), am, bm


def _cross_cotangent_a(g, a, b, axisa, axisb, axisc):
    """c = a x b: <g, a x b> = <a, b x g>."""
    gm, am, bm = _cross_moved(g, a, b, axisa, axisb, axisc)
    return np.moveaxis(unbroadcast(np.cross(bm, gm), am), -1, axisa)


def _cross_cotangent_b(g, a, b, axisa, axisb, axisc):
    """c = a x b: <g, a x b> = <b, g x a>."""
    gm, am, bm = _cross_moved(g, a, b, axisa, axisb, axisc)
    return np.moveaxis(unbroadcast(np.cross(gm, am), bm), -1, axisb)


def _multi_dot_cotangents(g, arrays):
    """The cotangents of multi_dot's matrices, with the strong zero: each one with a nan
    is recomputed by `strong_contraction` over g and the other matrices."""
    out = _multi_dot_cotangents_raw(g, arrays)
    if not any(repair_needed(x, g, *arrays) for x in out):
        return out
    fixed = list(out)
    for i, x in enumerate(out):
        if has_nan(x):
            others = list(arrays[:i]) + list(arrays[i + 1:])

            def product(g_, *others_, i=i):
                swapped = list(others_[:i]) + [arrays[i]] + list(others_[i:])
                return _multi_dot_cotangents_raw(g_, swapped)[i]
            fixed[i] = strong_contraction(product, x, g, *others)
    return fixed if type(arrays) is list else tuple(fixed)


def _multi_dot_cotangents_raw(g, arrays):
    """A_i_bar = (A_0 ... A_{i-1})^T G (A_{i+1} ... A_n)^T; 1-D ends are row/column vectors."""
    mats = [np.asarray(x) for x in arrays]
    if mats[0].ndim == 1:
        mats[0] = mats[0][None, :]
    if mats[-1].ndim == 1:
        mats[-1] = mats[-1][:, None]
    g2 = np.reshape(g, (mats[0].shape[0], mats[-1].shape[1]))
    prefix = []
    left = None
    for m in mats:
        prefix.append(left)
        left = m if left is None else left @ m
    out = [None] * len(mats)
    right = None
    for i in range(len(mats) - 1, -1, -1):
        gi = g2 if right is None else g2 @ right.T
        if prefix[i] is not None:
            gi = prefix[i].T @ gi
        out[i] = np.reshape(gi, np.shape(arrays[i]))
        right = mats[i] if right is None else mats[i] @ right
    return out if type(arrays) is list else tuple(out)


def _matrix_power_cotangent(g, a, n):
    """A^n = B^m (B = A, m = n; or B = inv(A), m = -n): B_bar = sum_k (B^T)^k G (B^T)^(m-1-k)."""
    if n == 0:
        return None
    base = a if n > 0 else np.linalg.inv(a)
    bt = np.swapaxes(base, -1, -2)
    m = abs(n)
    powers = [np.broadcast_to(np.eye(a.shape[-1], dtype=np.result_type(a, float)), a.shape)]
    for _ in range(m - 1):
        powers.append(powers[-1] @ bt)
    gb = powers[0] @ g @ powers[m - 1]
    for k in range(1, m):
        gb = gb + powers[k] @ g @ powers[m - 1 - k]
    if n > 0:
        return gb
    return -(bt @ gb @ bt)


# ---------------------------------------------------------------------------
# rules


@vjp(np.kron)
def kron(g, y, a, b):
    """One helper per cotangent, so a constant operand's is never computed."""
    return _kron_cotangent_a(g, a, b), _kron_cotangent_b(g, a, b)


@vjp(np.cross, diff=("a", "b"))
def cross(g, y, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """3-vectors along axisa / axisb (or axis), broadcasting over the other axes."""
    if axis is not None:
        return _cross_cotangent_a(g, a, b, axis, axis, axis), _cross_cotangent_b(g, a, b, axis, axis, axis)
    return (_cross_cotangent_a(g, a, b, axisa, axisb, axisc),
            _cross_cotangent_b(g, a, b, axisa, axisb, axisc))


@vjp(since(np.linalg, "cross", "NumPy 2.0"), diff=("x1", "x2"))
def linalg_cross(g, y, x1, x2, *, axis=-1):
    return _cross_cotangent_a(g, x1, x2, axis, axis, axis), _cross_cotangent_b(g, x1, x2, axis, axis, axis)


@vjp(since(np, "matvec", "NumPy 2.2"), diff=("x1", "x2"))
def matvec(g, y, x1, x2, out=None, **kwargs):
    """y[..., i] = sum_j A[..., i, j] v[..., j], broadcasting over batches."""
    ga = g[..., :, None]
    return (unbroadcast(strong_zero(ga, ga * x2[..., None, :]), x1),
            unbroadcast(einsum_operand_cotangent(g, 1, "...ij,...j->...i", x1, x2), x2))


@vjp(since(np, "vecmat", "NumPy 2.2"), diff=("x1", "x2"))
def vecmat(g, y, x1, x2, out=None, **kwargs):
    """y[..., j] = sum_i v[..., i] A[..., i, j], broadcasting over batches."""
    gb = g[..., None, :]
    return (unbroadcast(einsum_operand_cotangent(g, 0, "...i,...ij->...j", x1, x2), x1),
            unbroadcast(strong_zero(gb, x1[..., :, None] * gb), x2))


@vjp(np.linalg.multi_dot, diff=("arrays",))
def multi_dot(g, y, arrays, *, out=None):
    """The cotangent is a list (tuple) with one matrix per input."""
    return _multi_dot_cotangents(g, arrays)


@vjp(np.linalg.matrix_power, diff=("a",))
def matrix_power(g, y, a, n):
    """Integer n of either sign (negative powers go through inv(a)); n = 0 gives zero."""
    return _matrix_power_cotangent(g, a, n)


@vjp(since(np.linalg, "trace", "NumPy 2.0"), diff=("x",))
def linalg_trace(g, y, x, *, offset=0, dtype=None):
    """The trace over the last two axes."""
    return _diagonal_cotangent(np.expand_dims(g, -1), x, offset, -2, -1)


@vjp(since(np.linalg, "diagonal", "NumPy 2.0"), diff=("x",))
def linalg_diagonal(g, y, x, *, offset=0):
    """The diagonal over the last two axes."""
    return _diagonal_cotangent(g, x, offset, -2, -1)


@vjp(since(np, "matrix_transpose", "NumPy 2.0"), since(np.linalg, "matrix_transpose", "NumPy 2.0"),
     diff=("x",))
def matrix_transpose(g, y, x):
    return np.swapaxes(g, -1, -2)


@vjp(since(np.linalg, "matrix_norm", "NumPy 2.0"), diff=("x",), underived=("ord",))
def matrix_norm(g, y, x, *, keepdims=False, ord="fro"):
    """Over the last two axes; the orders and tie rules of np.linalg.norm."""
    return like_input(_norm_cotangent(g, y, x, ord, (-2, -1), keepdims), x)


@vjp(since(np.linalg, "vector_norm", "NumPy 2.0"), diff=("x",), underived=("ord",))
def vector_norm(g, y, x, *, axis=None, keepdims=False, ord=2):
    """A tuple axis (or None) takes the norm of those axes flattened into one vector."""
    return like_input(vector_norm_cotangent(g, y, x, ord, axis, keepdims), x)
