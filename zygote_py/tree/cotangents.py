"""Cotangents of structures: adding two, the cotangent of one child, zeros, and
`finalize`, which turns an internal cotangent into the gradient the user sees.

Inside generated code a cotangent is *internal*: None (zero), a number or an
array for a leaf, a tuple or list for a tuple, list or record (positionally),
a dict for a dict, and a dict of attribute name -> cotangent for an object or
a custom kind.  A record read by attribute gets a positional cotangent
(`keyed_cotangent`), so both ways of reading it add up.
"""

from __future__ import annotations

import numpy as np

from .registry import (
    ARRAY,
    CUSTOM,
    DICT,
    LEAF,
    LIST,
    OBJECT,
    RECORD,
    SCALAR,
    TUPLE,
    _attributes,
    _classify,
    _custom_flatten,
    _Registry,
    children,
    is_active,
    kind_of,
)

_ndarray = np.ndarray


def accumulate(a, b):
    """a + b for two internal cotangents, None being zero; structures add child by child."""
    if a is None:
        return b
    if b is None:
        return a
    ta = type(a)
    sequence_b = isinstance(b, (tuple, list))
    if (ta is _ndarray or ta is float) and not sequence_b:  # the hot path: arrays, floats
        return a + b
    sequence_a = isinstance(a, (tuple, list))
    if ta is _ndarray and sequence_b and len(a) == len(b):
        a, b, ta, sequence_a = b, a, type(b), True  # a list's cotangent from a NumPy rule (an array)
    if sequence_a and type(b) is _ndarray and len(a) == len(b):
        out = [accumulate(p, b[i]) for i, p in enumerate(a)]  # in the list's own form
        return out if ta is list else tuple(out)
    if sequence_a and sequence_b:
        out = [accumulate(p, q) for p, q in zip(a, b)]
        n, m = len(a), len(b)
        if n != m:
            out += a[m:] if n > m else b[n:]  # a list grown on one path only: keep the rest
        return out if ta is list else tuple(out)
    if ta is dict or type(b) is dict:
        if not (ta is dict or sequence_a) or not (type(b) is dict or isinstance(b, (tuple, list))):
            return a + b
        # keyed, or one positional and one keyed (a record read by index and by attribute)
        out = dict(a) if ta is dict else {i: v for i, v in enumerate(a) if v is not None}
        for k, v in (b.items() if type(b) is dict else enumerate(b)):
            out[k] = accumulate(out.get(k), v)
        return out
    return a + b


def keyed_cotangent(x, key, g):
    """The internal cotangent of x when only its child `key` (an attribute name or a
    position) has one, g: positional for tuples, lists and records, keyed otherwise."""
    if g is None:
        return None
    kind = kind_of(x)
    if kind == RECORD and isinstance(key, str) and key in type(x)._fields:
        out = [None] * len(x)
        out[type(x)._fields.index(key)] = g
        return tuple(out)
    return {key: g}


def child_cotangent(g, x, key, index):
    """The cotangent of x's child (key, at position index) within g, a cotangent of x:
    internal (positional or keyed) or a finalized gradient of x."""
    if g is None:
        return None
    tg = type(g)
    if tg is dict:
        if kind_of(x) == RECORD:  # read by position and by field name: both count
            return accumulate(g.get(index), g.get(type(x)._fields[index]))
        return g.get(key)
    if isinstance(g, (tuple, list)):
        return g[index] if index is not None and -len(g) <= index < len(g) else None
    if isinstance(g, _ndarray) and g.ndim and index is not None and -len(g) <= index < len(g) \
            and kind_of(x) in (TUPLE, LIST, RECORD):
        return g[index]  # a list NumPy read as an array (np.sum([a, b])): its rows
    if kind_of(g) == CUSTOM:  # a gradient of a registered structure
        return _custom_flatten(g)[0].get(key)
    return None


def zeros_like(x):
    """A zero cotangent shaped like x, materialised (a loop needs a value to carry)."""
    if isinstance(x, _ndarray):
        return np.zeros_like(x, dtype=np.result_type(x.dtype, np.float64))
    kind = kind_of(x)
    if kind == TUPLE or kind == RECORD:
        return tuple(zeros_like(v) for v in x)
    if kind == LIST:
        return [zeros_like(v) for v in x]
    if kind == DICT:
        return {k: zeros_like(v) for k, v in x.items()}
    if kind == OBJECT or kind == CUSTOM:
        return {k: zeros_like(v) for k, v in children(x)}
    return 0.0


def finalize(g, x):
    """The gradient the user sees from the internal cotangent g of x: a float for a
    float, an owned array of x's shape and dtype for an array, the same container or
    NamedTuple type, a dict of attribute -> gradient for an object, unflatten of the
    children's gradients for a registered structure; None where x is not active."""
    if g is None:
        return None
    t = type(x)
    if t is _ndarray:
        return _finalize_array(g, x) if x.dtype.kind in "fc" else None
    if t is float:
        return float(np.real(g))
    kind = _Registry.kinds.get(t)
    if kind is None:
        kind = _classify(t)
    if kind == LEAF:
        return None
    if kind == ARRAY:
        return _finalize_array(g, x) if x.dtype.kind in "fc" else None
    if kind == SCALAR:
        if isinstance(x, (complex, np.complexfloating)):
            return t(g)
        return t(np.real(g)) if isinstance(x, np.floating) else g
    if kind == DICT:
        keyed = g if type(g) is dict else {}
        out = {k: finalize(keyed.get(k), v) for k, v in x.items()}
        parts = out.values()
    elif kind == TUPLE or kind == LIST or kind == RECORD:
        if (type(g) is tuple or type(g) is list) and len(g) == len(x):
            parts = [finalize(gi, xi) for gi, xi in zip(g, x)]
        else:  # keyed by position or field name, or a finalized gradient
            parts = [finalize(child_cotangent(g, x, i, i), v) for i, v in enumerate(x)]
        out = t._make(parts) if kind == RECORD else parts if kind == LIST else tuple(parts)
    elif kind == OBJECT:
        if type(g) is not dict:
            return None
        out = {k: finalize(g.get(k), v) for k, v in _attributes(x)}
        parts = out.values()
    else:
        kids, aux, entry = _custom_flatten(x)
        entry[2](g, kids)
        parts = {k: finalize(child_cotangent(g, x, k, i), v) for i, (k, v) in enumerate(kids.items())}
        out = None
    # a child with a gradient makes x active; an x with none may still be active (zeros)
    if all(p is None for p in parts) and not is_active(x):
        return None
    return entry[1](aux, parts) if kind == CUSTOM else out


def _finalize_array(g, x):
    g = np.asarray(g)
    if g.shape != x.shape:
        g = np.broadcast_to(g, x.shape)
    if g.dtype.kind == "c" and x.dtype.kind == "f":
        g = g.real  # a real array's cotangent is the real part (docs/complex.md)
    if g.dtype != x.dtype and x.dtype.kind in "fc":
        return g.astype(x.dtype)  # a complex array's gradient is complex, if only its real part varies
    if g.base is not None or not g.flags.writeable:
        return g.copy()  # the user owns the gradient: never a view of a seed or a primal
    return g
