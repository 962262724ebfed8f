"""flatten(value) -> (vector, unflatten): a nest of tuples, lists, dicts and arrays as one 1-d array.

Written with module-level functions (zygote_py differentiates through this
code when a test takes a gradient through flatten, and it refuses nested
functions that call themselves).
"""

from __future__ import annotations

import numpy as np


def _leaves(value) -> list:
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in _leaves(v)]
    if isinstance(value, dict):
        return [leaf for k in sorted(value) for leaf in _leaves(value[k])]
    return [value]


def _rebuild(like, flat, start: int):
    """(the value shaped like `like` read from flat[start:], the position after it)."""
    if isinstance(like, (tuple, list)):
        parts = []
        for v in like:
            part, start = _rebuild(v, flat, start)
            parts.append(part)
        return type(like)(parts), start
    if isinstance(like, dict):
        out = {}
        for k in sorted(like):
            out[k], start = _rebuild(like[k], flat, start)
        return out, start
    size = int(np.size(like))
    return np.reshape(flat[start:start + size], np.shape(like)), start + size


def flatten(value):
    leaves = _leaves(value)
    vector = np.concatenate([np.ravel(leaf) for leaf in leaves]) if leaves else np.zeros(0)
    return vector, lambda flat: _rebuild(value, flat, 0)[0]
