"""The cotangent of the index in `a[index]`: NumPy's index-trick objects.

For arrays, lists, tuples and dicts an index carries no derivative (integers,
booleans, slices; a dict's float key selects piecewise-constantly), so its
cotangent is None.  But `np.r_[x, y]` and `np.c_[x, y]` are concatenations
written as indexing (`type(np.r_).__getitem__`), and `np.s_[x]` /
`np.index_exp[x]` return the index itself: there the "index" holds the data,
and dropping its cotangent would be a silent zero.  What `a` is decides,
at run time, from the object itself.

np.r_ / np.c_ are linear in their array items, and their layout rules
(scalars, slices expanded to ranges, '0,2,1' / 'r' / 'c' directives) are
NumPy's own: the cotangent is found by running the same object on the items
replaced by float arrays of element labels (constant items by -1) and
scattering g back by label.
"""

from __future__ import annotations

from numbers import Number

import numpy as np

from zygote_py.errors import NoDerivativeRule

_CONCATENATORS = (type(np.r_), type(np.c_))
_INDEX_EXPRESSION = type(np.s_)
_PLAIN_CONTAINERS = (np.ndarray, np.generic, list, tuple, dict, str, bytes, range)


def index_cotangent(g, a, index):
    """Cotangent of `index` in `a[index]` (None where the index carries no derivative)."""
    if type(a) in _CONCATENATORS:
        return _concatenator_cotangent(g, a, index)
    if type(a) is _INDEX_EXPRESSION:
        if a.maketuple and type(index) is not tuple:
            return g[0]  # np.index_exp[x] is (x,)
        return g
    if isinstance(a, _PLAIN_CONTAINERS) or not _has_inexact(index):
        return None
    raise NoDerivativeRule(
        f"indexing a {type(a).__qualname__} with a real-valued index that depends on the "
        "inputs: its derivative with respect to the index is unknown",
        hint="wrap the index in zp.stop_gradient(...), or register a rule with @zp.adjoint")


def _has_inexact(index) -> bool:
    items = index if type(index) is tuple else (index,)
    for item in items:
        if isinstance(item, (float, complex)) or \
                isinstance(item, (np.ndarray, np.generic)) and item.dtype.kind in "fc":
            return True
    return False


def _concatenator_cotangent(g, a, index):
    items = index if type(index) is tuple else (index,)
    labeled, spans, total = [], [], 0
    for item in items:
        if isinstance(item, (str, slice)):
            labeled.append(item if isinstance(item, str) else np.full(np.r_[item].shape, -1.0))
            spans.append(None)
            continue
        arr = np.asarray(item)
        if arr.dtype.kind not in "fc":  # ints and bools carry no derivative
            labels = np.full(arr.shape, -1.0)
            spans.append(None)
        else:
            labels = np.arange(total, total + arr.size, dtype=np.float64).reshape(arr.shape)
            spans.append((total, arr.shape))
            total += arr.size
        # a Python or NumPy scalar stays a scalar: np.r_ treats scalars apart from 0-d arrays
        is_scalar = isinstance(item, (Number, np.generic)) and not isinstance(item, np.ndarray)
        labeled.append(np.float64(labels) if is_scalar else labels)
    out = np.asarray(a[tuple(labeled)])
    g = np.asarray(g)
    flat = np.zeros(total, dtype=np.result_type(g.dtype, np.float64))
    chosen = out >= 0
    np.add.at(flat, out[chosen].astype(np.intp), np.broadcast_to(g, out.shape)[chosen])
    cotangents = []
    for item, span in zip(items, spans):
        if span is None:
            cotangents.append(None)
            continue
        start, shape = span
        part = flat[start:start + int(np.prod(shape))].reshape(shape)
        if isinstance(item, float):
            cotangents.append(float(part.real))
        elif isinstance(item, complex):
            cotangents.append(complex(part))
        elif isinstance(item, np.generic):
            cotangents.append(part[()].astype(item.dtype))
        else:
            cotangents.append(part.astype(np.asarray(item).dtype, copy=False))
    return tuple(cotangents) if type(index) is tuple else cotangents[0]
