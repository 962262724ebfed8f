"""What kind of value an argument is, as far as differentiation cares.

`is_active` says whether a value can carry a derivative (it is the structure
registry's, zygote_py/tree/); `scalar_kinds` which arguments are plain real scalars
(compiled code is specialised on both).  Kept apart from api.py so that the
run-time dispatcher can use them cheaply.
"""

from __future__ import annotations

import numpy as np

from .tree import is_active

__all__ = ["is_active", "scalar_kinds"]

_ndarray = np.ndarray


def scalar_kinds(args) -> tuple:
    """Which arguments are plain real scalars (the compiled code is specialised on it)."""
    return tuple(type(a) is float or type(a) is int or isinstance(a, np.floating) and not
                 isinstance(a, _ndarray) for a in args)
