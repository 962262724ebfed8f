"""Rules for the helpers that rule bodies call, so that a spliced adjoint can be
differentiated again (second derivatives).

A rule body such as matmul's `matmul_cotangent_a(g, a, b)` puts a helper call
into generated code.  Differentiating that code needs the helper's own rule.
Each helper is treated as a primitive of all its inputs (the cotangent and the
primal values it reads); the chain rule through those primal values is the
outer transform's business.

The product helpers are bilinear, which gives their rules in closed form:
`matmul_cotangent_a(ct, a, b)` is the derivative of <ct, a @ b> in a, so for
any h shaped like a, <h, matmul_cotangent_a(ct, a, b)> = <ct, h @ b>.  Its
cotangent in ct is therefore g @ b, and in b it is matmul's b-cotangent of
g @ b at ct.  The same holds for np.dot.
"""

from __future__ import annotations

import math

import numpy as np

from zygote_py.rules import (
    factorizations,
    indexing,
    linalg,
    operators,
    shapes,
    statistics,
    structure,
)
from zygote_py.rules.linalg import (
    dot_cotangent_a,
    dot_cotangent_b,
    matmul_cotangent_a,
    matmul_cotangent_b,
)
from zygote_py.rules.reductions import _norm_axes
from zygote_py.rules.registry import declare_complex_ok, vjp
from zygote_py.runtime import strong_zero, unbroadcast, zeros_if_none
from zygote_py.runtime.transposes import dense_like, item_of

# ---------------------------------------------------------------------------
# products (bilinear: see the module docstring)


@vjp(linalg.matmul_cotangent_a, diff=("ct", "b"))
def matmul_cotangent_a_(g, y, ct, a, b):
    """<h, ct @ b.T> = <ct, h @ b>: the cotangent of ct is g @ b."""
    return g @ b, matmul_cotangent_b(ct, g, b)


@vjp(linalg.matmul_cotangent_b, diff=("ct", "a"))
def matmul_cotangent_b_(g, y, ct, a, b):
    """<h, a.T @ ct> = <ct, a @ h>: the cotangent of ct is a @ g."""
    return a @ g, matmul_cotangent_a(ct, a, g)


@vjp(linalg.dot_cotangent_a, diff=("ct", "b"))
def dot_cotangent_a_(g, y, ct, a, b):
    """As matmul_cotangent_a, for np.dot."""
    return np.dot(g, b), dot_cotangent_b(ct, g, b)


@vjp(linalg.dot_cotangent_b, diff=("ct", "a"))
def dot_cotangent_b_(g, y, ct, a, b):
    """As matmul_cotangent_b, for np.dot."""
    return np.dot(a, g), dot_cotangent_a(ct, a, g)


@vjp(linalg.outer_cotangent_a, diff=("ct", "b"))
def outer_cotangent_a_(g, y, ct, a, b):
    """<h, C_a(ct, b)> = <ct, outer(h, b)>."""
    return np.reshape(np.outer(g, b), np.shape(ct)), linalg.outer_cotangent_b(ct, g, b)


@vjp(linalg.outer_cotangent_b, diff=("ct", "a"))
def outer_cotangent_b_(g, y, ct, a, b):
    """<h, C_b(ct, a)> = <ct, outer(a, h)>."""
    return np.reshape(np.outer(a, g), np.shape(ct)), linalg.outer_cotangent_a(ct, a, g)


@vjp(linalg.inner_cotangent_a, diff=("ct", "b"))
def inner_cotangent_a_(g, y, ct, a, b):
    """<h, C_a(ct, b)> = <ct, inner(h, b)>."""
    return np.inner(g, b), linalg.inner_cotangent_b(ct, g, b)


@vjp(linalg.inner_cotangent_b, diff=("ct", "a"))
def inner_cotangent_b_(g, y, ct, a, b):
    return np.inner(a, g), linalg.inner_cotangent_a(ct, a, g)


@vjp(linalg.tensordot_cotangent_a, diff=("ct", "b"))
def tensordot_cotangent_a_(g, y, ct, a, b, axes):
    """<h, C_a(ct, b)> = <ct, tensordot(h, b, axes)>."""
    return np.tensordot(g, b, axes), linalg.tensordot_cotangent_b(ct, g, b, axes)


@vjp(linalg.tensordot_cotangent_b, diff=("ct", "a"))
def tensordot_cotangent_b_(g, y, ct, a, b, axes):
    return np.tensordot(a, g, axes), linalg.tensordot_cotangent_a(ct, a, g, axes)


def _einsum_operand_cotangent_parts(h, ct, k, subscripts, operands):
    """The cotangents of ct and of every operand but the k-th (see einsum_operand_cotangent_)."""
    swapped = (*operands[:k], h, *operands[k + 1:])
    parts = [None if j == k else linalg.einsum_operand_cotangent(ct, j, subscripts, *swapped)
             for j in range(len(operands))]
    return np.einsum(subscripts, *swapped), tuple(parts)


@vjp(linalg.einsum_operand_cotangent, diff=("ct", "operands"))
def einsum_operand_cotangent_(g, y, ct, k, subscripts, *operands):
    """E(ops) = einsum(subscripts, *ops) is linear in each operand and the helper is
    C_k(ct, ops) = d<ct, E(ops)>/d ops[k], so <h, C_k(ct, ops)> = <ct, E(ops with ops[k]
    replaced by h)>: the cotangent of ct is that einsum, and the cotangent of another
    operand j is C_j at ct of the swapped operands.  ops[k] itself does not enter."""
    return _einsum_operand_cotangent_parts(g, ct, k, subscripts, operands)


@vjp(linalg._multiply_last_first, diff=("x", "y"))
def multiply_last_first_(g, r, x, y):
    """x * y laid out last axis first (an einsum cotangent kernel): a product's rule, the
    strong zero included; forward mode takes it as bilinear (rules/jvp_structural.py)."""
    return unbroadcast(strong_zero(g, g * y), x), unbroadcast(strong_zero(g, g * x), y)


# ---------------------------------------------------------------------------
# powers


def _log_where_positive(a):
    """log(a) where a > 0, else 0 (the exponent cotangent takes a**b's log as 0 there)."""
    if isinstance(a, (float, int)):
        return math.log(a) if a > 0 else 0.0
    a = np.asarray(a)
    return np.where(a > 0, np.log(np.where(a > 0, a, 1.0)), 0.0)


def _reciprocal_where_positive(a):
    """1 / a where a > 0, else 0: the derivative of _log_where_positive."""
    if isinstance(a, (float, int)):
        return 1.0 / a if a > 0 else 0.0
    a = np.asarray(a)
    return np.where(a > 0, 1.0 / np.where(a > 0, a, 1.0), 0.0)


@vjp(operators._pow_exponent_cotangent, diff=("ct", "power", "a"))
def pow_exponent_cotangent(g, y, ct, power, a):
    """ct * power * log(a) where a > 0 (else 0), with power = a**b: a product of three factors."""
    log_a = _log_where_positive(a)
    return (unbroadcast(g * power * log_a, ct), unbroadcast(g * ct * log_a, power),
            unbroadcast(g * ct * power * _reciprocal_where_positive(a), a))


# ---------------------------------------------------------------------------
# indexing and argument forms


@vjp(structure._take_along_axis_cotangent, diff=("g",))
def take_along_axis_cotangent(h, y, g, arr, indices, axis):
    """g scattered (added) into arr's shape at indices along axis is linear in g: its
    cotangent gathers h back, as np.take_along_axis does (axis None: over the flat array)."""
    if axis is None:
        return np.reshape(np.ravel(h)[np.ravel(indices) % np.size(arr)], np.shape(g))
    return np.take_along_axis(h, indices, axis)


# a gather, right for complex values as written (a complex arr's cotangent, or forward mode
# over the complex take_along_axis rule's body)
declare_complex_ok(structure._take_along_axis_cotangent)


@vjp(indexing._index_cotangent, diff=("ct",))
def index_cotangent(g, y, ct, a, index):
    """A cotangent written at a[index] into zeros: its cotangent is g gathered back at index."""
    return item_of(g, index, ct)


def jvp_add_index_cotangent(d_acc, d_ct, y, acc, ct, a, index, last_read=False):
    """Linear in acc and ct together: the same sum of their tangents, never in place (a
    tangent may be read again where its primal is not)."""
    if d_acc is None and d_ct is None:
        return None
    return indexing._add_index_cotangent(d_acc, zeros_if_none(d_ct, ct), a, index, False)


jvp_add_index_cotangent.gives_tangent = True


@vjp(indexing._add_index_cotangent, diff=("acc", "ct"), jvp=jvp_add_index_cotangent)
def add_index_cotangent(g, y, acc, ct, a, index, last_read=False):
    """acc + (ct written at a[index] into zeros), codegen/fuse.py's join of the two helpers:
    acc's cotangent is g (in acc's form), ct's is g gathered back at index."""
    return (None if acc is None else unbroadcast(g, acc)), item_of(g, index, ct)


@vjp(indexing._diagonal_cotangent, diff=("ct",))
def diagonal_cotangent(g, y, ct, a, offset, axis1, axis2):
    """A cotangent placed on a diagonal of zeros: its cotangent is that diagonal of g."""
    return unbroadcast(np.diagonal(g, offset, axis1, axis2), ct)


@vjp(indexing._take_cotangent, diff=("ct",))
def take_cotangent(g, y, ct, a, indices, axis, mode):
    """A cotangent scattered (added) at the taken indices: its cotangent is g taken again."""
    return unbroadcast(np.take(g, indices, axis=axis, mode=mode), ct)


@vjp(indexing._sort_cotangent, diff=("ct",))
def sort_cotangent(g, y, ct, a, axis):
    """A cotangent put back in a's unsorted order: its cotangent is g in sorted order."""
    return _in_sorted_order(g, a, axis)


def _in_sorted_order(h, a, axis):
    """h rearranged the way np.sort(a, axis) rearranges a (stable, as the sort rule's argsort)."""
    order = np.argsort(np.asarray(a), axis=axis, kind="stable")
    if axis is None:
        return np.reshape(h, -1)[order]
    return np.take_along_axis(h, order, axis)


@vjp(shapes._repeat_cotangent, diff=("ct",))
def repeat_cotangent(g, y, ct, a, repeats, axis):
    """np.repeat's cotangent (repeats summed): its cotangent is g repeated again."""
    return np.reshape(np.repeat(g, repeats, axis=axis), np.shape(ct))


@vjp(structure._partition_cotangent, diff=("ct",))
def partition_cotangent(g, y, ct, out, a, axis):
    """np.partition's cotangent (out's entries matched to a's by sorted order): g matched back."""
    return _matched_back(g, ct, out, a, axis)


def _matched_back(h, ct, out, a, axis):
    """h (shaped like a) rearranged into out's order: the transpose of _partition_cotangent."""
    base = np.ravel(a) if axis is None else np.asarray(a)
    ax = -1 if axis is None else axis
    h_sorted = np.take_along_axis(np.reshape(h, base.shape), np.argsort(base, axis=ax, kind="stable"), ax)
    rank_in_out = np.argsort(np.argsort(out, axis=ax, kind="stable"), axis=ax, kind="stable")
    return np.reshape(np.take_along_axis(h_sorted, rank_in_out, ax), np.shape(ct))


@vjp(statistics._quantile_cotangent, diff=("ct",))
def quantile_cotangent(g, y, ct, a, q, axis, keepdims, method, weights):
    """Quantiles interpolate a's sorted entries: g is interpolated the same way."""
    return _interpolated_like_quantile(g, ct, a, q, axis)


def _interpolated_like_quantile(h, ct, a, q, axis):
    """The linear-interpolation quantiles of h taken at a's sorted positions (the JVP of
    np.quantile at a in direction h): the transpose of _quantile_cotangent."""
    a = np.asarray(a)
    axes = _norm_axes(axis, a.ndim)
    kept = tuple(i for i in range(a.ndim) if i not in axes)
    perm = kept + axes
    lead = tuple(a.shape[i] for i in kept)
    flat = np.reshape(np.transpose(a, perm), lead + (-1,))
    n = flat.shape[-1]
    h_sorted = np.take_along_axis(np.reshape(np.transpose(h, perm), lead + (-1,)),
                                  np.argsort(flat, axis=-1, kind="stable"), -1)
    pos = np.ravel(np.asarray(q, dtype=np.float64)) * (n - 1)
    lo = np.floor(pos).astype(np.intp)
    hi = np.minimum(lo + 1, n - 1)
    t = pos - lo
    at_q = np.take(h_sorted, lo, axis=-1) * (1.0 - t) + np.take(h_sorted, hi, axis=-1) * t  # lead + (q,)
    out = np.reshape(np.moveaxis(at_q, -1, 0), np.shape(ct))
    return float(out) if type(ct) is float else out


@vjp(factorizations.output_parts, diff=("ct",))
def output_parts(g, y, ct, out):
    """A tuple-valued output's cotangent as a tuple: its cotangent goes back in ct's own form."""
    return _parts_as(g, ct, out)


def _parts_as(h, ct, out):
    """The per-part cotangents h in the container form of ct (tuple, list or field dict)."""
    if ct is None:
        return None
    if isinstance(ct, dict):
        fields = getattr(out, "_fields", ()) or range(len(out))
        keys = [name if name in ct else i for i, name in enumerate(fields)]
        return {key: part for key, part in zip(keys, h) if key in ct and part is not None}
    if isinstance(ct, np.ndarray):  # an array of parts (np.asarray of the tuple): stacked back
        return np.stack([zeros_if_none(part, ct[i]) for i, part in enumerate(h)])
    return type(ct)(h)


@vjp(shapes.like_input, diff=("ga",))
def like_input(g, y, ga, a):
    """An array cotangent put in the form of its argument (list, float, array): made one array again."""
    return dense_like(g, ga, a)
