"""Forward-mode refusals shared by the jvp rules (rules/jvp_structural.py) and the forward
dispatcher (calls/forward_dispatch.py), with what a zero tangent is: places where a tangent would be dropped without a
word -- items read from an object by its own `__iter__`, a dict key with a tangent -- raise
instead.  Kept below both in the layers (tests/test_layering.py)."""

from __future__ import annotations

from collections.abc import ItemsView, KeysView, ValuesView

import numpy as np

from ..errors import NoDerivativeRule, ZygoteError
from .iterators import Items, Pass


class CellTangents(dict):
    """The tangent of a closure: its captured variables' tangents, by name.  A class of
    its own, so that a user's dict tangent is never taken for one."""


def has_tangent(t) -> bool:
    """Whether a tangent may be nonzero (None, and containers of None only, are zero; an
    object's tangent of another dict type, forward_objects.Written, is not zero)."""
    if t is None:
        return False
    if type(t) in (list, tuple):
        return any(has_tangent(x) for x in t)
    if type(t) is dict or type(t) is CellTangents:
        return any(has_tangent(x) for x in t.values())
    return True


_ITERATED_AS_SEQUENCES = (list, tuple, np.ndarray, np.generic, KeysView, ValuesView, ItemsView,
                          Items, Pass)


def refuse_object_iteration(source, t) -> None:
    """Items read from source (a loop, an unpacking, zip(...), list(...)) take their tangents
    from t only where source is a builtin sequence, an array or zygote_py's iterator; an
    object of another type with a tangent is iterated by its own __iter__, untransformed,
    so where each item came from inside it is not known: refused, never a zero."""
    if has_tangent(t) and not isinstance(source, _ITERATED_AS_SEQUENCES):
        raise ZygoteError(f"forward mode cannot follow a tangent through iteration over a "
                          f"{type(source).__name__} (its __iter__ runs untransformed)",
                          hint="iterate over the list, tuple or array the object holds")


def refuse_key_tangents(pairs, d_pairs) -> None:
    """dict(pairs) / d.update(pairs): a pair whose key has a tangent is refused (a dict's
    tangent is keyed by its keys and holds its values' tangents only)."""
    if isinstance(pairs, dict) or d_pairs is None or isinstance(d_pairs, dict):
        return  # a mapping's keys have no tangent of their own
    for t in d_pairs:
        if isinstance(t, (tuple, list)) and t and has_tangent(t[0]):
            raise NoDerivativeRule(
                "a dict key here carries a derivative, which a dict does not keep (its "
                "derivative holds its values' only)",
                hint="key the dict by something without a derivative (an index, a string), or "
                     "keep the values in a list")


def refuse_key_tangent(container, key_dot, loc):
    """After `container[key] = value` (or a dict literal) in forward-mode code: refused when
    the container is a dict and the key's tangent is not zero (see refuse_key_tangents)."""
    if isinstance(container, dict) and has_tangent(key_dot):
        raise NoDerivativeRule("a dict key here carries a derivative, which a dict does not "
                               "keep (its derivative holds its values' only)", loc,
                               "key the dict by something without a derivative (an index, a "
                               "string), or keep the values in a list")
    return container
