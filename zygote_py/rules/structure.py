"""More structural rules: flips and rotations, the stacking and splitting
variants (dstack, column_stack, hsplit/vsplit/dsplit, unstack), append /
insert / delete, gathers (take_along_axis, compress, extract, choose,
select), partition, diagflat, rollaxis, broadcast_arrays, meshgrid, resize and
the remaining casts.

Same conventions as shapes.py and indexing.py: a gather scatters g into
zeros shaped like the input (repeated indices accumulate); a list or tuple
argument gets a list or tuple cotangent; a function returning a tuple of
arrays receives a tuple g with None for the parts that got no cotangent.
"""

from __future__ import annotations

import numpy as np

from zygote_py.rules.indexing import _float_zeros
from zygote_py.rules.registry import since, vjp, vjp_method
from zygote_py.rules.shapes import _split_cotangent, asarray, like_input
from zygote_py.runtime import unbroadcast

# ---------------------------------------------------------------------------
# helpers


def _pieces(g, promoted_shape, axis, arrays):
    """Split g along axis into blocks of the inputs' promoted shapes, each reshaped
    to its input's own shape, in the input sequence's type."""
    out = []
    start = 0
    for x in arrays:
        shape = promoted_shape(x)
        block = np.take(g, np.arange(start, start + shape[axis]), axis=axis)
        out.append(like_input(np.reshape(block, np.shape(x)), x))
        start += shape[axis]
    return out if type(arrays) is list else tuple(out)


def _dstack_shape(x):
    shape = np.shape(x)
    return {0: (1, 1, 1), 1: (1,) + shape + (1,), 2: shape + (1,)}.get(len(shape), shape)


def _column_shape(x):
    shape = np.shape(x)
    return {0: (1, 1), 1: shape + (1,)}.get(len(shape), shape)


def _append_cotangents(g, arr, values, axis):
    if axis is None:
        n = int(np.size(arr))
        flat = np.ravel(g)
        return np.reshape(flat[:n], np.shape(arr)), like_input(
            np.reshape(flat[n:], np.shape(values)), values)
    n = np.shape(arr)[axis]
    ga = np.take(g, np.arange(n), axis=axis)
    gv = np.take(g, np.arange(n, np.shape(g)[axis]), axis=axis)
    return ga, like_input(np.reshape(gv, np.shape(values)), values)


def _delete_cotangent(g, arr, obj, axis):
    a = np.asarray(arr)
    flat = axis is None
    base = np.ravel(a) if flat else a
    ax = 0 if flat else axis % a.ndim
    keep = np.ones(base.shape[ax], dtype=bool)
    keep[obj] = False
    z = _float_zeros(base)
    z[(slice(None),) * ax + (np.flatnonzero(keep),)] = g
    return np.reshape(z, a.shape)


def _insert_cotangents(g, arr, obj, values, axis):
    """Which positions of the output are arr's: insert -1 markers into arange(n)
    the way NumPy inserts values (counting them as NumPy does)."""
    a = np.asarray(arr)
    flat = axis is None
    ax = 0 if flat else axis % a.ndim
    nd = 1 if flat else a.ndim
    n = a.size if flat else a.shape[ax]
    single = not isinstance(obj, slice) and np.size(obj) == 1
    v = np.array(values, ndmin=nd) if single else np.asarray(values)
    if single and np.ndim(obj) == 0:
        v = np.moveaxis(v, 0, ax)
    marker = np.insert(np.arange(n), obj, np.full(v.shape[ax], -1) if single else -1)
    ga = np.reshape(np.compress(marker >= 0, g, axis=ax), a.shape)
    gblock = unbroadcast(np.compress(marker < 0, g, axis=ax), v)
    if single and np.ndim(obj) == 0:
        gblock = np.moveaxis(gblock, ax, 0)
    return ga, like_input(np.reshape(gblock, np.shape(values)), values)


def _take_along_axis_cotangent(g, arr, indices, axis):
    a = np.asarray(arr)
    if axis is None:
        z = np.bincount(np.ravel(indices) % a.size, np.ravel(g), minlength=a.size)
        return np.reshape(z.astype(_float_zeros(a).dtype, copy=False), a.shape)
    ax = axis % a.ndim
    index = []
    for dim, n in enumerate(a.shape):
        if dim == ax:
            index.append(indices)
        else:
            shape = [1] * a.ndim
            shape[dim] = n
            index.append(np.arange(n).reshape(shape))
    z = _float_zeros(a)
    np.add.at(z, tuple(index), g)
    return z


def _partition_cotangent(g, y, a, axis):
    """y is a permutation of a: match the two through their (stable) sorted orders."""
    a = np.asarray(a)
    base = np.ravel(a) if axis is None else a
    ax = -1 if axis is None else axis
    z = _float_zeros(base)
    order_y = np.argsort(y, axis=ax, kind="stable")
    np.put_along_axis(z, np.argsort(base, axis=ax, kind="stable"),
                      np.take_along_axis(g, order_y, axis=ax), axis=ax)
    return np.reshape(z, a.shape)


def _compress_cotangent(g, condition, a, axis):
    a = np.asarray(a)
    chosen = np.flatnonzero(condition)
    if axis is None:
        z = _float_zeros(a).reshape(-1)
        z[chosen] = np.ravel(g)
        return z.reshape(a.shape)
    z = _float_zeros(a)
    z[(slice(None),) * (axis % a.ndim) + (chosen,)] = g
    return z


def _rollaxis_cotangent(g, a, axis, start):
    n = np.ndim(a)
    axis = axis % n
    start = start + n if start < 0 else start
    if axis < start:
        start -= 1
    perm = [i for i in range(n) if i != axis]
    perm.insert(start, axis)
    return np.transpose(g, np.argsort(perm))


def _meshgrid_cotangents(g, xi, indexing):
    out = []
    for i, (gi, x) in enumerate(zip(g, xi)):
        if gi is None:
            out.append(None)
            continue
        ax = 1 - i if indexing == "xy" and len(xi) > 1 and i < 2 else i
        gi = np.asarray(gi)
        summed = np.sum(gi, axis=tuple(d for d in range(gi.ndim) if d != ax))
        out.append(like_input(np.reshape(summed, np.shape(x)), x))
    return tuple(out)


def _unbroadcast_each(g, args):
    return tuple(unbroadcast(gi, x) for gi, x in zip(g, args))


def _unstack_cotangent(g, y, axis):
    parts = [np.zeros(p.shape, dtype=p.dtype) if gi is None else gi for gi, p in zip(g, y)]
    return np.stack(parts, axis=axis)


def _resize_cotangent(g, a):
    n = int(np.size(a))
    flat = np.ravel(g)
    reps = -(-flat.size // n)
    padded = np.concatenate([flat, np.zeros(reps * n - flat.size, dtype=flat.dtype)])
    return np.reshape(padded.reshape(reps, n).sum(axis=0), np.shape(a))


def _select_cotangents(g, condlist, choicelist, default):
    """The first true condition picks its choice; where none holds, default."""
    remaining = True
    out = []
    for cond, choice in zip(condlist, choicelist):
        taken = np.logical_and(cond, remaining)
        out.append(unbroadcast(np.where(taken, g, 0.0), choice))
        remaining = np.logical_and(remaining, np.logical_not(cond))
    gdefault = unbroadcast(np.where(remaining, g, 0.0), default)
    return (out if type(choicelist) is list else tuple(out)), gdefault


def _choose_cotangent(g, a, choices, mode):
    n = len(choices)
    a = np.asarray(a)
    a = a % n if mode == "wrap" else (np.clip(a, 0, n - 1) if mode == "clip" else a)
    out = [unbroadcast(np.where(a == i, g, 0.0), c) for i, c in enumerate(choices)]
    if isinstance(choices, np.ndarray):
        return np.stack(out)
    return out if type(choices) is list else tuple(out)


# ---------------------------------------------------------------------------
# rules


@vjp(np.fliplr)
def fliplr(g, y, m):
    return np.fliplr(g)


@vjp(np.flipud)
def flipud(g, y, m):
    return np.flipud(g)


@vjp(np.rot90, diff=("m",))
def rot90(g, y, m, k=1, axes=(0, 1)):
    return np.rot90(g, -k, axes)


@vjp(np.dstack, diff=("tup",))
def dstack(g, y, tup):
    return _pieces(g, _dstack_shape, 2, tup)


@vjp(np.column_stack, diff=("tup",))
def column_stack(g, y, tup):
    """1-D inputs became columns."""
    return _pieces(g, _column_shape, 1, tup)


@vjp(np.hsplit, np.vsplit, np.dsplit, diff=("ary",))
def hsplit(g, y, ary, indices_or_sections):
    """hsplit splits axis 1 (axis 0 of a 1-D array), vsplit axis 0, dsplit axis 2:
    y's pieces tell which, so one rule serves all three."""
    return _split_cotangent(g, y, _split_axis(ary, y))


def _split_axis(ary, pieces):
    """The axis a split cut: the one where the first piece is shorter than ary."""
    shape = np.shape(ary)
    for ax, (n, m) in enumerate(zip(shape, pieces[0].shape)):
        if n != m:
            return ax
    return 0 if len(shape) == 1 or len(pieces) == 1 else 1


@vjp(since(np, "unstack", "NumPy 2.1"), diff=("x",))
def unstack(g, y, x, *, axis=0):
    return _unstack_cotangent(g, y, axis)


@vjp(np.append, diff=("arr", "values"))
def append(g, y, arr, values, axis=None):
    return _append_cotangents(g, arr, values, axis)


@vjp(np.delete, diff=("arr",))
def delete(g, y, arr, obj, axis=None):
    return _delete_cotangent(g, arr, obj, axis)


@vjp(np.insert, diff=("arr", "values"))
def insert(g, y, arr, obj, values, axis=None):
    """values broadcast into the inserted block the way NumPy does it."""
    return _insert_cotangents(g, arr, obj, values, axis)


@vjp(np.take_along_axis, diff=("arr",))
def take_along_axis(g, y, arr, indices, axis=-1):
    """Repeated indices accumulate."""
    return _take_along_axis_cotangent(g, arr, indices, axis)


@vjp(np.partition, diff=("a",))
def partition(g, y, a, kth, axis=-1, kind="introselect", order=None):
    return _partition_cotangent(g, y, a, axis)


@vjp(np.compress, diff=("a",))
def compress(g, y, condition, a, axis=None, out=None):
    return _compress_cotangent(g, condition, a, axis)


@vjp_method(np.ndarray, "compress", diff=("self",))
def ndarray_compress(g, y, self, condition, axis=None, out=None):
    return _compress_cotangent(g, condition, self, axis)


@vjp(np.extract, diff=("arr",))
def extract(g, y, condition, arr):
    return _compress_cotangent(g, np.ravel(condition), arr, None)


@vjp(np.choose, diff=("choices",))
def choose(g, y, a, choices, out=None, mode="raise"):
    """Each choice gets g where a selects it (unbroadcast to its shape)."""
    return _choose_cotangent(g, a, choices, mode)


@vjp(np.select, diff=("choicelist", "default"))
def select(g, y, condlist, choicelist, default=0):
    return _select_cotangents(g, condlist, choicelist, default)


@vjp(np.diagflat)
def diagflat(g, y, v, k=0):
    return like_input(np.reshape(np.diagonal(g, k), np.shape(v)), v)


@vjp(np.rollaxis, diff=("a",))
def rollaxis(g, y, a, axis, start=0):
    return _rollaxis_cotangent(g, a, axis, start)


@vjp(np.broadcast_arrays, diff=("args",))
def broadcast_arrays(g, y, *args, subok=False):
    """A tuple of cotangents, each summed back to its argument's shape."""
    return _unbroadcast_each(g, args)


@vjp(np.meshgrid, diff=("xi",))
def meshgrid(g, y, *xi, copy=True, sparse=False, indexing="xy"):
    """Each coordinate vector gets its output's cotangent summed over the other axes
    ('xy' indexing swaps the first two)."""
    return _meshgrid_cotangents(g, xi, indexing)


@vjp(np.resize, diff=("a",))
def resize(g, y, a, new_shape):
    """a's elements repeat cyclically: their cotangents add up."""
    return _resize_cotangent(g, a)


@vjp(since(np, "astype", "NumPy 2.0"), diff=("x",))
def astype(g, y, x, dtype, *, copy=True, device=None):
    """Float casts only (an integer result carries no derivative): g in x's dtype."""
    return np.asarray(g, dtype=x.dtype)


# the other array constructors share np.asarray's rule
vjp(np.asfortranarray, np.asarray_chkfinite, diff=("a",))(asarray)
