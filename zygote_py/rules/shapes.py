"""Rules for shape and structure: reshaping, transposing, joining, splitting,
tiling, padding, array construction from (nested) lists, dtype casts, copies.

Most of these move the cotangent back through the inverse view (reshape g to
the input's shape, transpose by the inverse permutation, split what was
concatenated).  A list or tuple argument gets a list or tuple cotangent (None
for entries that got nothing).  Indexing, diagonals and sorting are in
indexing.py.
"""

from __future__ import annotations

import numpy as np

from zygote_py.rules.registry import vjp, vjp_attr, vjp_method
from zygote_py.runtime import ArrayShape, shape_of, unbroadcast

# ---------------------------------------------------------------------------
# helpers (called from rule bodies; they may loop)


def like_input(ga, a):
    """An array cotangent ga in the form of the argument a it belongs to.

    a list/tuple (possibly nested) -> list/tuple of cotangents of its entries,
    a Python float -> float, a NumPy scalar -> that scalar type, an array -> ga.
    """
    if isinstance(a, (np.ndarray, ArrayShape)):  # (an array's shape, saved in its place)
        return ga
    kind = type(a)
    if kind is list:
        return [like_input(ga[i], x) for i, x in enumerate(a)]
    if isinstance(a, tuple):
        return tuple(like_input(ga[i], x) for i, x in enumerate(a))
    if kind is float or kind is int or kind is bool:
        return float(ga.real)  # a real number's cotangent is real (docs/complex.md)
    if isinstance(a, np.generic):
        return ga[()] if isinstance(ga, np.ndarray) else ga
    return ga


def _array_cotangent(g, obj):
    """Cotangent of np.array(obj) for obj a (nested) list/tuple of floats and arrays."""
    if isinstance(obj, np.ndarray):
        g = np.reshape(g, obj.shape)
        return g.astype(obj.dtype, copy=False) if obj.dtype.kind in "fc" else g
    kind = type(obj)
    if kind is list:
        return [_array_cotangent(g[i], x) for i, x in enumerate(obj)]
    if isinstance(obj, tuple):
        return tuple(_array_cotangent(g[i], x) for i, x in enumerate(obj))
    if kind is float or kind is int or kind is bool:
        return float(g.real)  # a real number's cotangent is real (docs/complex.md)
    if isinstance(obj, np.generic):
        return np.asarray(g, dtype=obj.dtype)[()] if obj.dtype.kind in "fc" else float(g)
    return g


def _join_cotangent(g, arrays, axis):
    """Split g (the cotangent of np.concatenate(arrays, axis)) back into pieces."""
    pieces = []
    if axis is None:
        flat = np.ravel(g)
        start = 0
        for x in arrays:
            n = int(np.size(x))
            pieces.append(flat[start:start + n].reshape(np.shape(x)))
            start += n
    else:
        ax = axis % g.ndim
        lead = (slice(None),) * ax
        start = 0
        for x in arrays:
            n = np.shape(x)[ax]
            pieces.append(g[lead + (slice(start, start + n),)])
            start += n
    return pieces if type(arrays) is list else tuple(pieces)


def _stack_like_cotangent(g, arrays, promote, axis):
    """Cotangent of hstack/vstack: promote each input, split g, reshape back."""
    promoted = [promote(x) for x in arrays]
    pieces = _join_cotangent(g, promoted, axis)
    out = [like_input(np.reshape(p, np.shape(x)), x) for p, x in zip(pieces, arrays)]
    return out if type(arrays) is list else tuple(out)


def _hstack_cotangent(g, tup):
    axis = 0 if np.ndim(tup[0]) <= 1 else 1
    return _stack_like_cotangent(g, tup, np.atleast_1d, axis)


def _vstack_cotangent(g, tup):
    return _stack_like_cotangent(g, tup, np.atleast_2d, 0)


def _method_axes(axes):
    """x.transpose(*axes) accepts (), (None,), (perm,) or the ints themselves."""
    if not axes or (len(axes) == 1 and axes[0] is None):
        return None
    if len(axes) == 1 and not isinstance(axes[0], (int, np.integer)):
        return axes[0]
    return axes


def _inverse_permutation(axes, ndim):
    return np.argsort(np.remainder(axes, ndim))


def _tile_cotangent(g, a, reps):
    shape = np.shape(a)
    reps = tuple(reps) if np.ndim(reps) else (int(reps),)
    d = max(len(shape), len(reps))
    s = (1,) * (d - len(shape)) + tuple(shape)
    r = (1,) * (d - len(reps)) + reps
    interleaved = []
    for ri, si in zip(r, s):
        interleaved += [ri, si]
    summed = np.reshape(g, interleaved).sum(axis=tuple(range(0, 2 * d, 2)))
    return np.reshape(summed, shape)


def _repeat_cotangent(g, a, repeats, axis):
    shape = np.shape(a)
    if axis is None:
        base = (int(np.prod(shape)),)
        ax = 0
    else:
        base = shape
        ax = axis % len(shape)
    n = base[ax]
    if np.size(repeats) == 1:
        r = int(np.ravel(repeats)[0])
        split = base[:ax] + (n, r) + base[ax + 1:]
        out = np.reshape(g, split).sum(axis=ax + 1)
    else:
        owner = np.repeat(np.arange(n), repeats)
        out = np.zeros(base, dtype=np.result_type(g, np.float32))
        np.add.at(out, (slice(None),) * ax + (owner,), g)
    return np.reshape(out, shape)


def _split_cotangent(g, y, axis):
    """Join the cotangents of np.split's pieces (None -> zeros of the piece's shape)."""
    parts = [np.zeros(p.shape, dtype=p.dtype) if gi is None else gi for gi, p in zip(g, y)]
    return np.concatenate(parts, axis=axis)


# np.pad modes whose padded entries are copies of entries of the array
_COPYING_PAD_MODES = ("edge", "reflect", "symmetric", "wrap")


def padding_transpose(p_bar, shape, widths, pad_mode):
    """The cotangent of x from that of np.pad(x, widths, pad_mode) for a mode whose padded
    entries copy entries of x (or hold a constant): every entry adds into the entry it
    copies, a scatter-add through the positions that padding np.arange gives."""
    size = int(np.prod(shape))
    constant = pad_mode == "constant"
    ids = np.pad(np.arange(size).reshape(shape), widths, mode=pad_mode,
                 **({"constant_values": -1} if constant else {}))
    flat_ids = ids.ravel()
    inside = flat_ids >= 0
    values = np.ravel(p_bar)[inside]
    keys = flat_ids[inside]
    out = np.bincount(keys, weights=np.real(values), minlength=size)
    if np.iscomplexobj(values):
        out = out + 1j * np.bincount(keys, weights=np.imag(values), minlength=size)
    return out.reshape(shape)


def _pad_cotangent(g, array, pad_width, mode, kwargs=None):
    if mode in _COPYING_PAD_MODES and not (kwargs or {}).get("reflect_type", "even") != "even":
        out = padding_transpose(g, shape_of(array), pad_width, mode)
        return out.astype(np.result_type(g, np.float32), copy=False)
    if mode != "constant" or callable(mode):
        raise NotImplementedError(f"zygote_py: no derivative rule for np.pad(mode={mode!r})"
                                  + (f" with reflect_type={kwargs['reflect_type']!r}"
                                     if kwargs and "reflect_type" in kwargs else ""))
    ndim = np.ndim(array)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.intp), (ndim, 2))
    region = tuple(slice(int(lo), g.shape[i] - int(hi)) for i, (lo, hi) in enumerate(widths))
    return g[region]


def _atleast_cotangent(g, arys):
    if len(arys) == 1:
        return (np.reshape(g, shape_of(arys[0])),)
    return tuple(None if gi is None else np.reshape(gi, shape_of(x)) for gi, x in zip(g, arys))


# ---------------------------------------------------------------------------
# reshaping


@vjp(np.reshape, diff=("a",))
def reshape(g, y, a, shape=None, order="C", **kwargs):
    return np.reshape(g, shape_of(a), order=order)


@vjp_method(np.ndarray, "reshape")
def ndarray_reshape(g, y, self, *shape, order="C", copy=None):
    return np.reshape(g, self.shape, order=order)


@vjp(np.ravel)
def ravel(g, y, a, order="C"):
    return np.reshape(g, shape_of(a), order=order)


@vjp_method(np.ndarray, "ravel", "flatten")
def ndarray_ravel(g, y, self, order="C"):
    return g.reshape(self.shape, order=order)


@vjp(np.squeeze)
def squeeze(g, y, a, axis=None):
    return np.reshape(g, shape_of(a))


@vjp_method(np.ndarray, "squeeze")
def ndarray_squeeze(g, y, self, axis=None):
    return np.reshape(g, self.shape)


@vjp(np.expand_dims, diff=("a",))
def expand_dims(g, y, a, axis):
    return np.reshape(g, shape_of(a))


@vjp(np.atleast_1d, np.atleast_2d, np.atleast_3d, diff=("arys",))
def atleast_nd(g, y, *arys):
    """One array in: one array out; several: a tuple out, and a tuple of cotangents."""
    return _atleast_cotangent(g, arys)


@vjp(np.broadcast_to, diff=("array",))
def broadcast_to(g, y, array, shape, subok=False):
    return unbroadcast(g, array)


# ---------------------------------------------------------------------------
# permuting axes


@vjp(np.transpose)
def transpose(g, y, a, axes=None):
    if axes is None:
        return np.transpose(g)
    return np.transpose(g, _inverse_permutation(axes, np.ndim(g)))


@vjp_method(np.ndarray, "transpose")
def ndarray_transpose(g, y, self, *axes):
    perm = _method_axes(axes)
    if perm is None:
        return g.transpose()
    return g.transpose(_inverse_permutation(perm, g.ndim))


@vjp_attr(np.ndarray, "T")
def ndarray_T(g, y, self):
    return g.T


@vjp_attr(np.ndarray, "mT", since="NumPy 2.0")
def ndarray_mT(g, y, self):
    return np.swapaxes(g, -1, -2)


@vjp_attr(np.ndarray, "real")
def ndarray_real(g, y, self):
    """Real arrays: x.real is x (complex ones: complex_rules.py)."""
    return g


@vjp(np.swapaxes, diff=("a",))
def swapaxes(g, y, a, axis1, axis2):
    return np.swapaxes(g, axis1, axis2)


@vjp_method(np.ndarray, "swapaxes", diff=("self",))
def ndarray_swapaxes(g, y, self, axis1, axis2):
    return g.swapaxes(axis1, axis2)


@vjp(np.moveaxis, diff=("a",))
def moveaxis(g, y, a, source, destination):
    return np.moveaxis(g, destination, source)


@vjp(np.flip)
def flip(g, y, m, axis=None):
    return np.flip(g, axis)


@vjp(np.roll, diff=("a",))
def roll(g, y, a, shift, axis=None):
    return np.roll(g, np.negative(shift), axis)


# ---------------------------------------------------------------------------
# joining and splitting


@vjp(np.concatenate, diff=("arrays",))
def concatenate(g, y, arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    """The cotangent is a list (tuple) of pieces of g, one per input array."""
    return _join_cotangent(g, arrays, axis)


@vjp(np.stack, diff=("arrays",))
def stack(g, y, arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    """The cotangent is a list (tuple) of views of g along the new axis."""
    pieces = list(np.moveaxis(g, axis, 0))
    return pieces if type(arrays) is list else tuple(pieces)


@vjp(np.hstack, diff=("tup",))
def hstack(g, y, tup, dtype=None, casting="same_kind"):
    return _hstack_cotangent(g, tup)


@vjp(np.vstack, diff=("tup",))
def vstack(g, y, tup, dtype=None, casting="same_kind"):
    return _vstack_cotangent(g, tup)


@vjp(np.split, np.array_split, diff=("ary",))
def split(g, y, ary, indices_or_sections, axis=0):
    """g is a list with one cotangent (or None) per piece."""
    return _split_cotangent(g, y, axis)


@vjp(np.tile, diff=("A",))
def tile(g, y, A, reps):
    return _tile_cotangent(g, A, reps)


@vjp(np.repeat, diff=("a",))
def repeat(g, y, a, repeats, axis=None):
    return _repeat_cotangent(g, a, repeats, axis)


@vjp_method(np.ndarray, "repeat", diff=("self",))
def ndarray_repeat(g, y, self, repeats, axis=None):
    return _repeat_cotangent(g, self, repeats, axis)


@vjp(np.pad, diff=("array",), underived=("kwargs",))
def pad(g, y, array, pad_width, mode="constant", **kwargs):
    """mode='constant': the cotangent is the unpadded region of g; 'edge', 'reflect',
    'symmetric', 'wrap' (padded entries copy entries of the array): a scatter-add."""
    return _pad_cotangent(g, array, pad_width, mode, kwargs)


# ---------------------------------------------------------------------------
# construction, casts, copies


@vjp(np.array, diff=("object",))
def array(g, y, object, dtype=None, copy=True, order="K", subok=False, ndmin=0, **kwargs):
    """np.array of an array is the identity; of (nested) lists of floats and arrays,
    the cotangent mirrors the nesting (floats get floats)."""
    if isinstance(object, np.ndarray) and dtype is None and ndmin == 0:
        return g
    if ndmin:
        return _array_cotangent(np.reshape(g, np.shape(object)), object)
    return _array_cotangent(g, object)


@vjp(np.asarray, np.asanyarray, np.ascontiguousarray, diff=("a",))
def asarray(g, y, a, dtype=None, order=None, **kwargs):
    """Identity for an array of the same dtype; mirrors (nested) lists like np.array."""
    if isinstance(a, np.ndarray) and dtype is None:
        return g
    return _array_cotangent(g, a)


@vjp_method(np.ndarray, "astype", diff=("self",))
def ndarray_astype(g, y, self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    """Float casts only (an integer result carries no derivative): g in self's dtype."""
    return np.asarray(g, dtype=self.dtype)


@vjp(np.float64, diff=("x",))
def float_scalar(g, y, x=0.0):
    """np.float64(x) (the type called as a cast): the identity, the cotangent in x's
    own form and dtype (a float for a float, an array of x's shape for an array)."""
    return _array_cotangent(np.asarray(g), x)


@vjp(np.copy)
def copy(g, y, a, order="K", subok=False):
    return g


@vjp_method(np.ndarray, "copy")
def ndarray_copy(g, y, self, order="C"):
    return g


def _linspace_cotangents(g, start, stop, num, endpoint, retstep, axis):
    gy, gstep = g if retstep else (g, None)
    div = num - 1 if endpoint else num
    t = np.arange(num) / div if div > 0 else np.zeros(num)
    if gy is None:
        g_start = g_stop = 0.0
    else:
        gy = np.moveaxis(np.asarray(gy), axis, 0)
        g_stop = np.sum(gy * t.reshape((num,) + (1,) * (gy.ndim - 1)), axis=0)
        g_start = np.sum(gy, axis=0) - g_stop
    if gstep is not None and div > 0:
        g_stop = g_stop + gstep / div
        g_start = g_start - gstep / div
    return unbroadcast(g_start, start), unbroadcast(g_stop, stop)


@vjp(np.linspace, diff=("start", "stop"))
def linspace(g, y, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0,
             **kwargs):
    """start and stop (scalars or arrays) are differentiable; with retstep=True the
    output and g are (samples, step)."""
    return _linspace_cotangents(g, start, stop, num, endpoint, retstep, axis)


@vjp(np.arange, diff=("start", "stop", "step"))
def arange(g, y, start, stop=None, step=None, dtype=None, **kwargs):
    """y[i] = start + i * step: start's cotangent is sum(g), step's sum(i * g); stop only
    decides how many values there are.  With one argument it is the stop (start 0)."""
    return _arange_cotangents(g, stop, step)


def _arange_cotangents(g, stop, step):
    if g is None or stop is None:  # np.arange(stop): its values do not move with it
        return None, None, None
    g = np.asarray(g)
    return np.sum(g), None, None if step is None else np.sum(g * np.arange(g.size))


@vjp(np.unique, diff=("ar",))
def unique(g, y, ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           **kwargs):
    """The sorted unique values are ar's values at their first occurrences: g goes there
    (the other occurrences of a value get none, as one of max's ties gets its cotangent).
    The indices, inverse and counts carry no derivative."""
    several = return_index or return_inverse or return_counts
    return _unique_cotangent(g[0] if several and g is not None else g, ar, axis)


def _unique_cotangent(g, ar, axis):
    if g is None:
        return None
    if axis is not None:
        raise NotImplementedError("zygote_py: no derivative rule for np.unique with axis=")
    a = np.asarray(ar)
    _, first = np.unique(a, return_index=True)
    out = np.zeros(a.size, dtype=np.result_type(np.asarray(g).dtype, float))
    out[first] = g
    return out.reshape(a.shape)


@vjp(np.full, diff=("fill_value",))
def full(g, y, shape, fill_value, dtype=None, order="C", **kwargs):
    return unbroadcast(g, fill_value)


@vjp(np.full_like, diff=("fill_value",))
def full_like(g, y, a, fill_value, dtype=None, order="K", subok=True, shape=None, **kwargs):
    return unbroadcast(g, fill_value)
