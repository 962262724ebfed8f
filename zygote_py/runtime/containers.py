"""Functional forms of the list and dict methods that modify their receiver.

Lowering rewrites `p.insert(0, v)` on a list the function created into
`p = list_insert(p, 0, v)`: a new list, so that the SSA value the adjoint
reads before the update is still the old one (the same scheme as `append`).
Each function returns the new container, and the method's own result where
Python returns something (`pop`, `setdefault`), as a pair.  Their derivative
rules are in zygote_py/rules/containers.py.
"""

from __future__ import annotations

import numpy as np

from .. import context
from ..errors import MutationError, NoDerivativeRule

# the methods of list and dict that modify the receiver
MUTATING_METHODS = {
    list: frozenset({"append", "extend", "insert", "reverse", "pop", "remove", "sort", "clear"}),
    dict: frozenset({"update", "setdefault", "pop", "popitem", "clear"}),
}


def refuse_container_update(obj, name, loc):
    """Raise MutationError when obj.name(...) would modify a list or dict in place: one the
    function did not create (an argument, say), whose update the adjoint could not see."""
    for kind, names in MUTATING_METHODS.items():
        if isinstance(obj, kind) and name in names:
            raise MutationError(f"{kind.__name__}.{name}() modifies in place a {kind.__name__} "
                                "that this function did not create, or reaches through another "
                                "container or an object (`d['a'].append(v)`), whose update the "
                                "derivative could not follow", loc,
                                f"copy it first ({'xs = list(xs)' if kind is list else 'd = dict(d)'}), "
                                "or build a new one and store it back "
                                f"({'d[k] = d[k] + [v]' if kind is list else 'd[k] = {**d[k], key: v}'})")


def radd_first(other) -> bool:
    """Whether `p += other` on a list p is other.__radd__(p) in Python: a list has no
    in-place number slot, so Python tries `p + other` through other's type first (an
    ndarray, a NumPy scalar, a class with __radd__) and extends p only when that gives
    NotImplemented, as a list, tuple or other plain iterable's does."""
    radd = getattr(type(other), "__radd__", None)
    if radd is None or isinstance(other, (list, tuple, str, bytes)):
        return False
    if isinstance(other, (int, float, complex)) and type(other).__module__ == "builtins":
        return False  # int.__radd__(list) is NotImplemented: extend (a TypeError there)
    return True


def require_existing_key(mapping, key, loc):
    """Guard of `d[k] = v` (or `d[k] op= v`) inside `for k in d` / `for k in d.keys()`:
    the loop reads only d's keys, and a write that keeps them leaves what it reads as
    Python's would. A new key would change the keys under the loop (Python raises
    RuntimeError at its next step), and an object other than a dict (an array, whose loop
    reads rows the write may change) cannot be followed: both are refused here."""
    if not isinstance(mapping, dict):
        raise MutationError(f"a {type(mapping).__name__} is written while a for loop iterates "
                            "over it, and Python's loop would read the new values", loc,
                            "iterate over a copy (for v in list(a), or a.copy()), or loop over "
                            "range(len(a)) and index")
    if key not in mapping:
        raise MutationError(f"the key {key!r} is added to a dict while a for loop iterates over "
                            "it (Python raises RuntimeError: dictionary changed size during "
                            "iteration)", loc, "iterate over a copy of its keys (for k in list(d))")


def list_insert(items, index, value):
    new = list(items)
    new.insert(index, value)
    return new


def list_reverse(items):
    return items[::-1]


def list_pop(items, index=-1):
    """(the list without items[index], items[index]), as `items.pop(index)` leaves them."""
    new = list(items)
    value = new.pop(index)
    return new, value


def list_remove(items, value):
    """The list without the first item equal to value (ValueError if none is, as in Python)."""
    new = list(items)
    new.remove(value)
    return new


def sort_order(items, key=None, reverse=False):
    """The positions of items in sorted order (stable, as list.sort and sorted are)."""
    if key is None:
        return sorted(range(len(items)), key=items.__getitem__, reverse=reverse)
    keys = [key(item) for item in items]
    return sorted(range(len(items)), key=keys.__getitem__, reverse=reverse)


def list_sort(items, key=None, reverse=False):
    return [items[i] for i in sort_order(items, key, reverse)]


def list_clear(items):
    return []


def list_setitem(items, index, value):
    """`items[index] = value` (a slice too, which may change the length), on a copy."""
    new = list(items)
    # one read of an iterator (CPython would call iter() on it twice, as two reads)
    sliced = type(index) is slice and not isinstance(value, (list, tuple))
    new[index] = list(value) if sliced else value
    return new


def list_delitem(items, index):
    new = list(items)
    del new[index]
    return new


def dict_update(mapping, other=(), **kwargs):
    new = dict(mapping)
    new.update(other, **kwargs)
    return new


def dict_setdefault(mapping, key, default=None):
    """(the dict with key set if it was missing, mapping[key] afterwards)."""
    new = dict(mapping)
    value = new.setdefault(key, default)
    return new, value


class _NoDefault:
    """The default of a parameter left out (a class: standalone modules can copy it)."""


def dict_pop(mapping, key, default=_NoDefault):
    """(the dict without key, the value popped or default), KeyError as in Python."""
    new = dict(mapping)
    value = new.pop(key) if default is _NoDefault else new.pop(key, default)
    return new, value


def dict_delitem(mapping, key):
    new = dict(mapping)
    del new[key]
    return new


def dict_clear(mapping):
    return {}


def note_derived_key(container, key) -> None:
    """After `container[key] = value` or a dict literal, in a gradient's forward, with a key
    that may carry a derivative (the compiler cannot tell): a float or complex key of a dict
    is noted in the call's ledger, so that a derivative reaching it when it is read back is
    refused rather than dropped (refuse_key_cotangent)."""
    if isinstance(container, dict) and _inexact_key(key):
        ledger = context.current().objects
        if ledger is not None:
            ledger.derived_keys[id(key)] = key


def note_derived_keys_of(mapping) -> None:
    """After `dict(pairs)`, `dict.fromkeys(xs)` or `d.update(...)` with an operand that may
    carry a derivative: its float keys noted (see note_derived_key)."""
    if isinstance(mapping, dict):
        for key in mapping:
            note_derived_key(mapping, key)


def refuse_key_cotangent(key, g) -> None:
    """A dict's key read back (iterating the dict, `d.items()`, `sum(d)`, `max(d)`) got the
    cotangent g: dropped, since a dict's derivative holds its values' only and a key
    differentiated code did not put in from a value with a derivative has none to lose;
    refused for a key noted by note_derived_key with a nonzero g
    (`{v: i for i, v in enumerate(x)}`, then the keys used)."""
    if g is None:
        return
    ledger = context.current().objects
    if ledger is None or ledger.derived_keys.get(id(key)) is not key or not _nonzero(g):
        return
    raise NoDerivativeRule(
        "a dict key that carries a derivative is read back here and used where a derivative "
        "reaches it; a dict keeps its values' derivatives only, so the key's would be lost",
        None, "key the dict by something without a derivative (an index, a string), or keep "
              "the numbers in a list")


def _nonzero(g) -> bool:
    if isinstance(g, (tuple, list)):
        return any(x is not None and _nonzero(x) for x in g)
    try:
        return bool(np.any(np.asarray(g) != 0))
    except (TypeError, ValueError):
        return True


def _inexact_key(key) -> bool:
    if isinstance(key, tuple):
        return any(map(_inexact_key, key))
    return isinstance(key, (float, complex, np.inexact))
