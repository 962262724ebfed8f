"""What kind of value an argument is, as far as differentiation cares.

`is_active` says whether a value can carry a derivative (it is the structure
registry's, zygote_py/tree/); `scalar_kinds` which arguments are plain real scalars
and which hold complex numbers (compiled code is specialised on both: complex
arguments decide which rules may meet complex values, docs/complex.md).  Kept apart from api.py so that the
run-time dispatcher can use them cheaply.
"""

from __future__ import annotations

import numpy as np

from .tree import is_active

__all__ = ["COMPLEX", "holds_complex", "is_active", "scalar_kinds"]

_ndarray = np.ndarray
# the kind of an argument that is or holds a complex number or array (True: a plain
# real scalar; False: anything else)
COMPLEX = "complex"
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
    return COMPLEX if holds_complex(a) else False


def scalar_kinds(args) -> tuple:
    """Per argument: True for a plain real scalar, COMPLEX for one that is or holds a
    complex value, False otherwise (the compiled code is specialised on it)."""
    return tuple(_kind(a) for a in args)
