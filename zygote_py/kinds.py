"""What kind of value an argument is, as far as differentiation cares.

`is_active` says whether a value can carry a derivative; `scalar_kinds` which
arguments are plain real scalars (compiled code is specialised on both).
Kept apart from api.py so that the run-time dispatcher can use them cheaply.
"""

from __future__ import annotations

import numbers

import numpy as np

_ndarray = np.ndarray


def is_active(x) -> bool:
    """Whether a value can carry a derivative (its gradient is computed)."""
    t = type(x)
    if t is float or t is complex:
        return True
    if t is int or t is bool or t is str or x is None:
        return False
    if isinstance(x, _ndarray):
        return x.dtype.kind in "fc"
    if isinstance(x, np.generic):
        return isinstance(x, (np.floating, np.complexfloating))
    if isinstance(x, numbers.Integral):
        return False
    if isinstance(x, numbers.Real):
        return True
    if isinstance(x, (tuple, list)):
        return any(is_active(v) for v in x)
    if isinstance(x, dict):
        return any(is_active(v) for v in x.values())
    if callable(x) and not hasattr(x, "__dict__"):
        return False
    attrs = getattr(x, "__dict__", None)
    if attrs is not None and not isinstance(x, type):
        return any(is_active(v) for v in attrs.values())
    return False


def scalar_kinds(args) -> tuple:
    """Which arguments are plain real scalars (the compiled code is specialised on it)."""
    return tuple(type(a) is float or type(a) is int or isinstance(a, np.floating) and not
                 isinstance(a, _ndarray) for a in args)
