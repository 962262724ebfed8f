"""What kind of value an argument is, as far as differentiation cares.

`is_active` says whether a value can carry a derivative (it is the structure
registry's, zygote_py/tree/); `scalar_kinds` says, per argument, what compiled
code is specialised on: whether it is a plain real scalar, another number or
array, or another object (whose methods are resolved from its type while
running, analysis/receivers.py), and whether it is or holds complex values
(which decides the rules that may meet them, docs/complex.md).  Kept apart
from api.py so that the run-time dispatcher can use them cheaply.
"""

from __future__ import annotations

import numbers

import numpy as np

from .tree import is_active

__all__ = ["COMPLEX", "HOLDS_COMPLEX", "holds_complex", "is_active", "is_complex_kind",
           "is_object_kind", "scalar_kinds"]

_ndarray = np.ndarray
# The kinds: True, a plain real scalar; False, another real number or array; None,
# any other object (a user's instance, a container); COMPLEX, a complex number or
# array; HOLDS_COMPLEX, another object that holds complex values.
COMPLEX = "complex"
HOLDS_COMPLEX = "holds complex"


def is_complex_kind(kind) -> bool:
    return kind == COMPLEX or kind == HOLDS_COMPLEX


def is_object_kind(kind) -> bool:
    """Neither a number nor an array: its methods are the ones its type defines."""
    return kind is None or kind == HOLDS_COMPLEX
# leaves holding no number, whose attributes are not the user's data
_NEVER_COMPLEX = (str, bytes, np.generic, type)
_NEVER_COMPLEX_TYPE_NAMES = ("module", "function", "builtin_function_or_method", "method",
                             "method-wrapper", "wrapper_descriptor", "cell")


def holds_complex(x, _seen=None) -> bool:
    """Whether x is, or holds (in a list, tuple, dict or instance attribute), a complex
    number or array.  Plain code, so that standalone modules (aot/) can copy it."""
    t = type(x)
    if t is float or t is int or t is bool or x is None:
        return False
    if t is _ndarray:
        return x.dtype.kind == "c"
    if isinstance(x, (complex, np.complexfloating)):
        return True
    if isinstance(x, _NEVER_COMPLEX) or t.__name__ in _NEVER_COMPLEX_TYPE_NAMES:
        return False
    dtype = getattr(x, "dtype", None)  # array subclasses and array-protocol types
    if dtype is not None and hasattr(x, "shape"):
        return getattr(dtype, "kind", "") == "c"
    if isinstance(x, (list, tuple)):
        values = x
    elif isinstance(x, dict):
        values = x.values()
    else:
        values = getattr(x, "__dict__", None)
        values = values.values() if isinstance(values, dict) else \
            [getattr(x, n) for n in getattr(type(x), "__slots__", ()) if hasattr(x, n)]
    seen = _seen if _seen is not None else set()
    if id(x) in seen:  # objects may refer to each other in a cycle
        return False
    seen.add(id(x))
    return any(holds_complex(v, seen) for v in values)


def _kind(a):
    if type(a) is float or type(a) is int or isinstance(a, np.floating) and not isinstance(a, _ndarray):
        return True
    number_or_array = isinstance(a, (_ndarray, np.generic, numbers.Number))
    if holds_complex(a):
        return COMPLEX if number_or_array else HOLDS_COMPLEX
    return False if number_or_array else None


def scalar_kinds(args) -> tuple:
    """Per argument, the kind compiled code is specialised on (see the kinds above)."""
    return tuple(_kind(a) for a in args)
