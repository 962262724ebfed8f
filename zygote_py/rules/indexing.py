"""Rules for indexing and for selections that scatter back: a[index] on arrays,
lists, tuples and dicts, take, item, tolist, triangles, diagonals, trace, sort.

The cotangent of a selection is g scattered into zeros shaped like the input;
integer-array indices with repeats accumulate (np.bincount for 1-D arrays,
np.add.at otherwise).  A list or tuple gets a list or tuple cotangent with
None for untouched entries, a dict a dict {key: g}.
"""

from __future__ import annotations

import operator
import sys

import numpy as np

from zygote_py.rules.index_tricks import index_cotangent
from zygote_py.rules.registry import vjp, vjp_method
from zygote_py.runtime import ArrayShape, accum
from zygote_py.runtime.writes import _sole_variable_refs

# ---------------------------------------------------------------------------
# helpers (called from rule bodies; they may loop)


def _float_zeros(a):
    """Zeros of a's shape, in a's dtype when that is inexact, else float64."""
    dtype = a.dtype if a.dtype.kind in "fc" else np.float64
    return np.zeros(a.shape, dtype=dtype)


def _is_int_array_index(i):
    if isinstance(i, np.ndarray):
        return i.dtype != np.bool_
    if isinstance(i, list):
        return np.asarray(i).dtype != np.bool_
    return False


def _real_for(z, g):
    """A real array's share of a complex cotangent: its real part (docs/complex.md)."""
    return np.real(g) if np.iscomplexobj(g) and not np.iscomplexobj(z) else g


def _whole_view_shape(index, shape):
    """The shape of a[index] where index only takes all of a and inserts unit axes
    (`a[None]`, `a[:, None, :]`, `a[..., None]`): a's elements in a's order, with 1s
    inserted; None for any other index."""
    parts = index if type(index) is tuple else (index,)
    explicit = 0
    ellipses = 0
    for part in parts:
        if part is Ellipsis:
            ellipses += 1
        elif part is not None:
            if type(part) is not slice or part.start is not None or part.stop is not None \
                    or part.step is not None:
                return None
            explicit += 1
    if ellipses > 1 or explicit > len(shape):
        return None
    out = []
    k = 0
    for part in parts:
        if part is None:
            out.append(1)
        elif part is Ellipsis:
            take = len(shape) - explicit
            out.extend(shape[k:k + take])
            k += take
        else:
            out.append(shape[k])
            k += 1
    out.extend(shape[k:])
    return tuple(out)


def _index_cotangent(g, a, index):
    """Cotangent of a[index] for arrays (or an array's ArrayShape), lists, tuples and dicts."""
    if isinstance(a, (np.ndarray, ArrayShape)):
        if type(g) is np.ndarray and g.dtype == (a.dtype if a.dtype.kind in "fc" else np.float64) \
                and g.shape == _whole_view_shape(index, a.shape):
            # a view of all of a with unit axes inserted (N-body's `pos[None, :, :]`): g holds
            # a's cotangent in a's order, so it is g with those axes taken out, not zeros
            # with g assigned into them (a view of g: every helper that writes into a
            # cotangent in place copies one that has a base)
            return g.reshape(a.shape)
        parts = index if type(index) is tuple else (index,)
        for part in parts:
            if _is_int_array_index(part):
                if a.ndim == 1 and len(parts) == 1:
                    # Repeats accumulate: a weighted histogram is the fastest scatter-add.
                    n = a.shape[0]
                    flat = np.ravel(index) % n if n else np.ravel(index)
                    z = np.bincount(flat, weights=np.ravel(np.broadcast_to(g, np.shape(index))),
                                    minlength=n)
                    return z.astype(a.dtype, copy=False) if a.dtype.kind in "fc" else z
                z = _float_zeros(a)
                np.add.at(z, index, _real_for(z, g))
                return z
        z = _float_zeros(a)
        z[index] = _real_for(z, g)
        return z
    if isinstance(a, (list, tuple)):
        out = [None] * len(a)
        if isinstance(index, slice):
            for i, gi in zip(range(len(a))[index], g):
                out[i] = gi
        else:
            out[index] = g
        return out if type(a) is list else tuple(out)
    if isinstance(a, dict):
        return {_stored_key(a, index): g}
    return None


_PLAIN_KEYS = (str, int, float, bool, bytes, type(None))


def _stored_key(d, key):
    """The key object d holds for key: a read with an equal key of a class with its own
    __eq__ (`d[Key('a')]`) gets the cotangent under the object the dict holds, so that
    later lookups find it by identity and never call __eq__ on a key object whose
    attributes the backward pass has already put back (taken off a built object)."""
    if type(key) in _PLAIN_KEYS:
        return key
    for stored in d:
        if stored is key:
            return key
    h = hash(key)
    for stored in d:
        if hash(stored) == h and stored == key:
            return stored
    return key


def _adds_into_region(acc, g, a, index) -> bool:
    """Whether `acc + _index_cotangent(g, a, index)` is `acc` with g added into acc[index]:
    acc, a and g all float64 (compared by their scalar types: cheaper than dtype equality),
    acc of a's shape, and a basic index (ints, slices, None, Ellipsis), which names each
    element at most once."""
    if acc.dtype.type is not np.float64 or (type(a) is not np.ndarray and type(a) is not ArrayShape) \
            or a.dtype.type is not np.float64 or acc.shape != a.shape:
        return False
    kind = type(g)
    if not (kind is np.ndarray and g.dtype.type is np.float64 or kind is float or kind is np.float64):
        return False
    if type(index) is slice:
        return True
    parts = index if type(index) is tuple else (index,)
    for part in parts:
        if not (type(part) is slice or type(part) is int or part is None or part is Ellipsis):
            return False
    return True


def _add_index_cotangent(acc, g, a, index, last_read=False):
    """`accum(acc, _index_cotangent(g, a, index))` in one step (codegen/fuse.py writes it
    for that pair): where `_adds_into_region` holds, acc with g added into the region,
    instead of an array of zeros with g scattered into it and a sum of the two.

    In acc itself where last_read (the generated code never reads acc after this call)
    and nothing else refers to the array (its reference count: a tape, a container,
    another variable or a view of it would each hold one; see writes.overwritten_cotangent);
    in a copy otherwise.  The result is never an array anything else can see."""
    if type(acc) is np.ndarray and _adds_into_region(acc, g, a, index):
        # (the reference count first: the view taken below holds one more)
        owned = last_read and acc.base is None and acc.flags.writeable \
            and sys.getrefcount(acc) <= _sole_variable_refs()
        region = acc[index]  # a view, or one element
        ndim = g.ndim if type(g) is np.ndarray else 0
        if ndim <= (region.ndim if type(region) is np.ndarray else 0):  # as g assigned fits
            out = acc if owned else acc.copy(order="K")
            if type(region) is np.ndarray:
                region = out[index]
                region += g  # into out's memory
            else:
                out[index] = region + g
            return out
    return accum(acc, _index_cotangent(g, a, index))


_add_index_cotangent._zp_spent_flags = {0: 4}  # (codegen/emit.py: acc written as a variable)


def _take_cotangent(g, a, indices, axis, mode):
    a = np.asarray(a)
    z = _float_zeros(a)
    n = a.size if axis is None else a.shape[axis]
    idx = np.asarray(indices)
    if mode == "wrap":
        idx = idx % n
    elif mode == "clip":
        idx = np.clip(idx, 0, n - 1)
    if axis is None:
        flat = z.reshape(-1)
        np.add.at(flat, idx, g)
        return z
    np.add.at(z, (slice(None),) * (axis % a.ndim) + (idx,), g)
    return z


def _diagonal_cotangent(g, a, offset, axis1, axis2):
    """Place g (diagonal values, last axis) on the offset diagonal of zeros like a."""
    z = _float_zeros(np.asarray(a))
    zm = np.moveaxis(z, (axis1, axis2), (-2, -1))
    n1, n2 = zm.shape[-2], zm.shape[-1]
    if offset >= 0:
        i = np.arange(max(0, min(n1, n2 - offset)))
        j = i + offset
    else:
        j = np.arange(max(0, min(n2, n1 + offset)))
        i = j - offset
    zm[..., i, j] = g
    return z


def _sort_cotangent(g, a, axis):
    a = np.asarray(a)
    if axis is None:
        order = np.argsort(a, axis=None, kind="stable")
        z = _float_zeros(a).reshape(-1)
        z[order] = g
        return z.reshape(a.shape)
    order = np.argsort(a, axis=axis, kind="stable")
    z = _float_zeros(a)
    np.put_along_axis(z, order, g, axis)
    return z


def _item_cotangent(g, a, args):
    z = _float_zeros(a)
    if not args:
        z.reshape(-1)[0] = g
    elif len(args) == 1 and isinstance(args[0], tuple):
        z[args[0]] = g
    elif len(args) == 1:
        z.reshape(-1)[args[0]] = g
    else:
        z[args] = g
    return z


def _filled(g, shape, dtype):
    if g is None:
        return np.zeros(shape, dtype=dtype)
    if not shape:
        return np.asarray(g, dtype=dtype)
    return np.stack([_filled(gi, shape[1:], dtype) for gi in g])


def _tolist_cotangent(g, a):
    dtype = a.dtype if a.dtype.kind in "fc" else np.float64
    return _filled(g, a.shape, dtype)


# ---------------------------------------------------------------------------
# rules


@vjp(operator.getitem, diff=("a", "b"))
def getitem(g, y, a, b):
    """a[b] for arrays (basic, negative steps, boolean masks, integer arrays with
    repeats accumulating, tuples with None/Ellipsis), lists and tuples (a list or
    tuple cotangent, None where untouched) and dicts ({b: g}).  The index gets a
    cotangent only where it holds data: np.r_[x, y], np.c_[...], np.s_[x]."""
    return _index_cotangent(g, a, b), index_cotangent(g, a, b)


@vjp(np.take, diff=("a",))
def take(g, y, a, indices, axis=None, out=None, mode="raise"):
    return _take_cotangent(g, a, indices, axis, mode)


@vjp_method(np.ndarray, "take", diff=("self",))
def ndarray_take(g, y, self, indices, axis=None, out=None, mode="raise"):
    return _take_cotangent(g, self, indices, axis, mode)


@vjp_method(np.ndarray, "item")
def ndarray_item(g, y, self, *args):
    return _item_cotangent(g, self, args)


@vjp_method(np.ndarray, "tolist")
def ndarray_tolist(g, y, self):
    return _tolist_cotangent(g, self)


@vjp(np.triu)
def triu(g, y, m, k=0):
    return np.triu(g, k)


@vjp(np.tril)
def tril(g, y, m, k=0):
    return np.tril(g, k)


@vjp(np.diagonal)
def diagonal(g, y, a, offset=0, axis1=0, axis2=1):
    return _diagonal_cotangent(g, a, offset, axis1, axis2)


@vjp_method(np.ndarray, "diagonal")
def ndarray_diagonal(g, y, self, offset=0, axis1=0, axis2=1):
    return _diagonal_cotangent(g, self, offset, axis1, axis2)


@vjp(np.trace)
def trace(g, y, a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    return _diagonal_cotangent(np.expand_dims(g, -1), a, offset, axis1, axis2)


@vjp_method(np.ndarray, "trace")
def ndarray_trace(g, y, self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    return _diagonal_cotangent(np.expand_dims(g, -1), self, offset, axis1, axis2)


@vjp(np.diag)
def diag(g, y, v, k=0):
    """1-D v builds a matrix (cotangent: g's k-th diagonal); 2-D v extracts one."""
    if np.ndim(v) == 1:
        return np.diagonal(g, k)
    return _diagonal_cotangent(g, v, k, 0, 1)


@vjp(np.sort, diff=("a",))
def sort(g, y, a, axis=-1, kind=None, order=None, stable=None):
    """g goes back through the (stable) sorting permutation."""
    return _sort_cotangent(g, a, axis)
