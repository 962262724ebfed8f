"""The transposes of the cotangent helpers, for differentiating generated code.

Generated adjoint code calls helpers (`unbroadcast`, `expand_reduced`, the
container splitters) that are linear in the cotangent they move.  When that
code is itself differentiated (a Hessian, a gradient of a gradient), each
helper's reverse rule is its transpose: the adjoint of "sum down to x's
shape" is "broadcast back up", the adjoint of "split a list" is "join it".
The rules live in `zygote_py/rules/cotangents.py`; the transposes they call
live here, beside the helpers they undo, and the pairs close under
differentiation (`broadcast_like` <-> `unbroadcast`, `sum_reduced` <->
`expand_reduced`).  Like every runtime helper, `None` is the zero cotangent.
"""

from __future__ import annotations

from collections.abc import KeysView

import numpy as np

from .helpers import normalize_axis, shape_of, unbroadcast, zeros_if_none

_ndarray = np.ndarray


def broadcast_like(h, like):
    """h broadcast up to the shape of `like`: the transpose of unbroadcast(like, x)."""
    if h is None:
        return None
    shape, hshape = shape_of(like), shape_of(h)
    if hshape == shape:
        return h
    if np.broadcast_shapes(hshape, shape) == shape:
        return np.broadcast_to(h, shape)
    # unbroadcast(like, x) broadcast a smaller `like` up to x: its transpose sums back down
    return unbroadcast(h, like)


def sum_reduced(h, x, axis=None, keepdims=False):
    """h summed over the axes a reduction of x removed: the transpose of expand_reduced."""
    if h is None:
        return None
    return np.sum(h, axis=normalize_axis(axis, len(shape_of(x))), keepdims=keepdims)


def addend_part(h, part):
    """The share of accum(a, b)'s cotangent h that belongs to the addend `part`
    (h itself, in part's container form; None where part was None)."""
    if h is None or part is None:
        return None
    if type(part) is tuple or type(part) is list:
        return type(part)([addend_part(hi, pi) for hi, pi in zip(h, part)])
    if type(part) is dict:
        return {k: addend_part(h.get(k), v) for k, v in part.items()}
    return unbroadcast(h, part)


def item_of(h, index, like):
    """h[index] (h.get(index) for a dict), summed down to like's shape for arrays:
    the transpose of writing a cotangent `like` into a zero container at index."""
    if h is None:
        return None
    if type(h) is dict:
        return h.get(index)
    if isinstance(h, _ndarray):
        return unbroadcast(h[index], like)
    return h[index]


def unpacked_parts(h, x, parts, star):
    """The cotangents of the targets of `a, *b, c = x` from the cotangent h of x:
    the transpose of unpack_cotangent (the starred target gets a list)."""
    if h is None:
        return None
    n = len(parts)
    if star is None:
        items = [h[i] for i in range(n)]
    else:
        n_star = len(x) - (n - 1)
        items = [*(h[i] for i in range(star)), list(h[star:star + n_star]),
                 *(h[i] for i in range(star + n_star, len(x)))]
    return type(parts)(items)


def joined_last(h, ct):
    """The cotangent of a list from those of (the list without its last item, that item):
    the transpose of split_last."""
    if h is None or ct is None:
        return None
    head, last = h
    if head is None and last is None:
        return None
    head = list(head) if head is not None else [None] * (len(ct) - 1)
    return type(ct)([*head, last])


def joined_tail(h, ct, items):
    """The transpose of split_tail: (head, tail) cotangents joined into one list's."""
    if h is None or ct is None:
        return None
    head, tail = h
    if head is None and tail is None:
        return None
    n = len(items)
    head = list(head) if head is not None else [None] * (len(ct) - n)
    tail = list(tail) if tail is not None else [None] * n
    return type(ct)([*head, *tail])


def joined_key(h, ct, key):
    """The transpose of split_key: the rest of a dict's cotangent with key's put back."""
    if h is None or ct is None:
        return None
    rest, value = h
    out = dict(rest) if rest is not None else {}
    if key in ct and value is not None:
        out[key] = value
    return out or None


def indexed_item(h, seq, i, ct, reverse=False):
    """The cotangent of g in accum_index(acc, seq, i, g, reverse): h at item i of seq."""
    if h is None:
        return None
    if reverse:
        i = len(seq) - 1 - i
    return item_of(h, i, ct)


def indexed_loop_item(h, seq, i, ct, reverse=False):
    """The cotangent of g in accum_item(acc, seq, i, g, reverse): nothing for a dict's key."""
    if h is None or isinstance(seq, (dict, KeysView)):
        return None
    return indexed_item(h, seq, i, ct, reverse)


def dense_like(h, ga, a):
    """The transpose of like_input(ga, a): h in a's form made one array of ga's shape."""
    if h is None:
        return None
    if isinstance(a, _ndarray):
        return h
    dense = np.asarray(_filled(h, a))
    dtype = np.result_type(ga, np.float64)
    if dense.dtype.kind == "c" and dtype.kind != "c":
        dense = dense.real  # a real value's cotangent is real (docs/complex.md)
    return np.reshape(dense.astype(dtype, copy=False), shape_of(ga))


def _filled(h, a):
    """h with zeros (shaped like the entries of a) wherever it holds None."""
    if type(a) is list or isinstance(a, tuple):
        if h is None:
            h = [None] * len(a)
        return [_filled(hi, ai) for hi, ai in zip(h, a)]
    return zeros_if_none(h, a)
