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

__all__ = ["ATTRS", "COMPLEX", "HOLDS_COMPLEX", "ITEMS", "array_kinds", "holds_complex",
           "is_active", "is_complex_kind", "is_object_kind", "scalar_kinds"]

_ndarray = np.ndarray
# The kinds: True, a plain real scalar; False, another real number or array; None,
# any other object (a user's instance, a container); COMPLEX, a complex number or
# array; HOLDS_COMPLEX, another object that holds complex values; ITEMS, a list or
# tuple of real arrays or numbers (params in a list); (ATTRS, *names), an object whose
# attributes `names` are real arrays or numbers (a layer holding its weights).
COMPLEX = "complex"
HOLDS_COMPLEX = "holds complex"
ITEMS = "items"
ATTRS = "attrs"


def is_complex_kind(kind) -> bool:
    return kind == COMPLEX or kind == HOLDS_COMPLEX


def is_object_kind(kind) -> bool:
    """Neither a number nor an array: its methods are the ones its type defines."""
    return kind is None or kind == HOLDS_COMPLEX or kind == ITEMS or \
        isinstance(kind, tuple) and kind[:1] == (ATTRS,)


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
    dtype = found_attribute(x, "dtype")  # array subclasses and array-protocol types
    if dtype is not None and found_attribute(x, "shape") is not None:
        return getattr(dtype, "kind", "") == "c"
    if isinstance(x, (list, tuple)):
        values = x
    elif isinstance(x, dict):
        values = x.values()
    else:
        values = found_attribute(x, "__dict__")
        values = values.values() if isinstance(values, dict) else \
            [v for v in (found_attribute(x, n) for n in getattr(type(x), "__slots__", ())) if v is not None]
    seen = _seen if _seen is not None else set()
    if id(x) in seen:  # objects may refer to each other in a cycle
        return False
    seen.add(id(x))
    return any(holds_complex(v, seen) for v in values)


def found_attribute(x, name: str):
    """x.name as Python's normal lookup finds it (the class, the instance), None where it
    does not: never the class's own __getattr__, which is user code that may expect state
    the object does not have yet (a kind is taken of `self` before its __init__ runs)."""
    try:
        return object.__getattribute__(x, name)
    except AttributeError:
        return None


def scalar_kinds(args) -> tuple:
    """Per argument, the kind compiled code is specialised on: True for a plain real
    scalar, False for another real number or a NumPy array, COMPLEX for a complex one,
    HOLDS_COMPLEX for another object holding complex values, ITEMS for a list or tuple
    of real arrays or numbers, (ATTRS, *names) for an object with such attributes
    (_object_kind), None for any other object (a user's instance, another container),
    whose methods, attributes and operators are resolved from its type while running
    rather than by the ndarray rules (see analysis/receivers.py)."""
    return tuple(_kind(a) for a in args)


def _kind(a):
    if type(a) is float or type(a) is int or isinstance(a, np.floating) and not isinstance(a, _ndarray):
        return True
    number_or_array = isinstance(a, (_ndarray, np.generic, numbers.Number))
    # complexity first: the rules a complex value may meet are decided by it (docs/complex.md)
    if holds_complex(a):
        return COMPLEX if number_or_array else HOLDS_COMPLEX
    if number_or_array:
        return False
    if (type(a) is list or type(a) is tuple) and all(map(_array_or_number, a)):
        return ITEMS
    return _object_kind(a)


def _object_kind(obj):
    """(ATTRS, *names) for an instance whose attributes `names` hold arrays or numbers
    that reading `obj.name` returns as they are (no data descriptor of its class in the
    way, no __getattribute__ of its own); None for any other object.  The layer
    holding its weights: the code compiled for it splices the rules on them."""
    held = getattr(obj, "__dict__", None)
    cls = type(obj)
    if type(held) is not dict or cls.__getattribute__ is not object.__getattribute__:
        return None
    names = tuple(name for name, value in held.items() if _array_or_number(value)
                  and not hasattr(type(getattr(cls, name, None)), "__set__"))
    return (ATTRS, *names) if names else None


def _array_or_number(x) -> bool:
    return type(x) in (_ndarray, float, int, bool) or isinstance(x, np.generic)


def array_kinds(args) -> tuple:
    """Per argument, the array kind a top-level gradient is also specialised on: the
    number of dimensions of an exact `np.ndarray` of real floating dtype, None for
    anything else (an int, bool or complex array, a subclass, a number, an object).
    Part of the cache key (compiler.py), so code built for 1-D float arrays never runs
    for a 2-D, complex or int array: those compile their own.  What the code built
    with it assumes (analysis/scalars.py): `x[i]` of such an n-D array `x` with n int
    indices is a NumPy float scalar."""
    return tuple(a.ndim if type(a) is _ndarray and a.dtype.kind == "f" else None for a in args)
