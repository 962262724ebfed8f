"""What kind of value an argument is, as far as differentiation cares.

`is_active` says whether a value can carry a derivative (it is the structure
registry's, zygote_py/tree/); `scalar_kinds` which arguments are plain real scalars,
other numbers or arrays, or other objects (compiled code is specialised on both).
Kept apart from api.py so that the run-time dispatcher can use them cheaply.
"""

from __future__ import annotations

import numbers

import numpy as np

from .tree import is_active

__all__ = ["ATTRS", "ITEMS", "is_active", "scalar_kinds"]

_ndarray = np.ndarray


# the kind of a list or tuple whose items are all arrays or numbers (params in a list)
ITEMS = "items"
# the first item of the kind of an object, followed by its attributes that are arrays
ATTRS = "attrs"


def scalar_kinds(args) -> tuple:
    """Per argument, what the compiled code is specialised on: True for a plain real
    scalar, False for another number or a NumPy array, ITEMS for a list or tuple of
    those, (ATTRS, *names) for an object with such attributes (_object_kind), None
    for any other object (a user's instance, another container), whose
    methods, attributes and operators are resolved from its type while running
    rather than by the ndarray rules (see analysis/receivers.py)."""
    return tuple(True if type(a) is float or type(a) is int or isinstance(a, np.floating) and not
                 isinstance(a, _ndarray) else
                 False if isinstance(a, (_ndarray, np.generic, numbers.Number)) else
                 ITEMS if (type(a) is list or type(a) is tuple) and all(map(_array_or_number, a))
                 else _object_kind(a)
                 for a in args)


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
