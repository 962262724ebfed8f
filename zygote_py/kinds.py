"""What kind of value an argument is, as far as differentiation cares.

`is_active` says whether a value can carry a derivative; `scalar_kinds` which
arguments are plain real scalars (compiled code is specialised on both).
Kept apart from api.py so that the run-time dispatcher can use them cheaply.
"""

from __future__ import annotations

import numbers

import numpy as np

_ndarray = np.ndarray


# how a value of each type is judged, decided once per type (see _classify)
_ACTIVE, _INACTIVE, _ARRAY, _SEQUENCE, _MAPPING, _ATTRIBUTES = range(6)
_BY_TYPE: dict = {float: _ACTIVE, complex: _ACTIVE, int: _INACTIVE, bool: _INACTIVE,
                  str: _INACTIVE, type(None): _INACTIVE, np.ndarray: _ARRAY,
                  list: _SEQUENCE, tuple: _SEQUENCE, dict: _MAPPING}


def _classify(t: type) -> int:
    if issubclass(t, _ndarray):
        return _ARRAY
    if issubclass(t, np.generic):
        return _ACTIVE if issubclass(t, (np.floating, np.complexfloating)) else _INACTIVE
    if issubclass(t, numbers.Integral):
        return _INACTIVE
    if issubclass(t, numbers.Number):
        return _ACTIVE
    if issubclass(t, (tuple, list)):
        return _SEQUENCE
    if issubclass(t, dict):
        return _MAPPING
    if issubclass(t, type):
        return _INACTIVE
    return _ATTRIBUTES


def is_active(x) -> bool:
    """Whether a value can carry a derivative (its gradient is computed): floats,
    float arrays, and containers and objects holding them."""
    t = type(x)
    kind = _BY_TYPE.get(t)
    if kind is None:
        kind = _BY_TYPE[t] = _classify(t)
    if kind == _ARRAY:
        return x.dtype.kind in "fc"
    if kind == _ACTIVE or kind == _INACTIVE:
        return kind == _ACTIVE
    if kind == _SEQUENCE:
        for v in x:
            if is_active(v):
                return True
        return False
    if kind == _MAPPING:
        for v in x.values():
            if is_active(v):
                return True
        return False
    attrs = getattr(x, "__dict__", None)  # an object: functions and builtins have none active
    if attrs is None:
        return False
    for v in attrs.values():
        if is_active(v):
            return True
    return False


def scalar_kinds(args) -> tuple:
    """Per argument, what the compiled code is specialised on: True for a plain real
    scalar, False for another number or a NumPy array, None for any other object (a
    user's instance, a container), whose methods and attributes are resolved from its
    type while running rather than by the ndarray rules (see analysis/receivers.py)."""
    return tuple(True if type(a) is float or type(a) is int or isinstance(a, np.floating) and not
                 isinstance(a, _ndarray) else
                 False if isinstance(a, (_ndarray, np.generic, numbers.Number)) else None
                 for a in args)
