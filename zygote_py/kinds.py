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

__all__ = ["is_active", "scalar_kinds"]

_ndarray = np.ndarray


def scalar_kinds(args) -> tuple:
    """Per argument, what the compiled code is specialised on: True for a plain real
    scalar, False for another number or a NumPy array, None for any other object (a
    user's instance, a container), whose methods and attributes are resolved from its
    type while running rather than by the ndarray rules (see analysis/receivers.py)."""
    return tuple(True if type(a) is float or type(a) is int or isinstance(a, np.floating) and not
                 isinstance(a, _ndarray) else
                 False if isinstance(a, (_ndarray, np.generic, numbers.Number)) else None
                 for a in args)
