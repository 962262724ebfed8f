"""Rules for the functional forms of list and dict updates (runtime/containers.py)
and for `dict(...)`.

The cotangent of a list is a list of its items' cotangents (None where an
item has none), the cotangent of a dict a dict keyed like it (a missing key
is zero).  A form that returns (new container, result) receives a pair g,
either part of which may be None.  Each rule routes every item's cotangent
back to the position (or key) the item came from, so that a list that was
reordered, grown or shrunk still sends each cotangent to its own source.
"""

from __future__ import annotations

import builtins
import copy

import numpy as np

from zygote_py.rules.iterators import items_read, read_cotangent
from zygote_py.rules.registry import jvp, vjp
from zygote_py.runtime import containers as forms
from zygote_py.runtime.containers import sort_order
from zygote_py.runtime.helpers import accum
from zygote_py.runtime.iterators import Items


def _items(g, n):
    """g as a list of n item cotangents (None: all zero)."""
    return [None] * n if g is None else list(g)


def _pair(g):
    """(cotangent of the new container, cotangent of the method's result)."""
    return (None, None) if g is None else tuple(g)


def _list_or_none(parts):
    return None if all(p is None for p in parts) else parts


def _position(index, n, clamp):
    """A list position as Python reads index: negatives count from the end;
    insert clamps to [0, n], pop wraps once."""
    if index < 0:
        index += n
    return min(max(index, 0), n) if clamp else index


def _insert_cotangents(g, items, index):
    n = len(items)
    parts = _items(g, n + 1)
    at = _position(index, n, True)
    return _list_or_none(parts[:at] + parts[at + 1:]), parts[at]


def _pop_cotangent(g, items, index):
    g_rest, g_value = _pair(g)
    n = len(items)
    parts = _items(g_rest, n - 1)
    at = _position(index, n, False)
    return _list_or_none(parts[:at] + [g_value] + parts[at:])


def _remove_cotangent(g, items, value):
    at = next(i for i, item in enumerate(items) if item is value or bool(item == value))
    parts = _items(g, len(items) - 1)
    return _list_or_none(parts[:at] + [None] + parts[at:])


def _sort_cotangent(g, items, key, reverse):
    if g is None:
        return None
    order = sort_order(items, key, reverse)
    # where sorting put each item (the inverse permutation), built without writing into a
    # list: forward mode over gradient code (zp.hessian) reads this too
    rank = sorted(range(len(order)), key=order.__getitem__)
    return _list_or_none([g[k] for k in rank])


def _like_sequence(parts, value):
    """Item cotangents in the form of the sequence value they came from."""
    if all(p is None for p in parts):
        return None
    if isinstance(value, np.ndarray):
        return np.stack([np.zeros_like(value[i], dtype=float) if p is None else p
                         for i, p in enumerate(parts)])
    return tuple(parts) if type(value) is tuple else list(parts)


def _value_cotangent(parts, value):
    """The cotangent of the sequence (or iterator) assigned to a slice, from its items'."""
    if isinstance(value, Items):
        return None if all(p is None for p in parts) else read_cotangent(parts, value)
    return _like_sequence(parts, value)


def _setitem_cotangents(g, items, index, value):
    n = len(items)
    if type(index) is not slice:
        at = _position(index, n, False)
        parts = _items(g, n)  # (lists built anew, not written: see _sort_cotangent)
        return _list_or_none(parts[:at] + [None] + parts[at + 1:]), parts[at]
    start, stop, step = index.indices(n)
    m = len(items_read(value))
    if step == 1:  # a plain slice may change the list's length
        stop = max(stop, start)
        parts = _items(g, n - (stop - start) + m)
        rest = parts[:start] + [None] * (stop - start) + parts[start + m:]
        return _list_or_none(rest), _value_cotangent(parts[start:start + m], value)
    positions = list(range(n)[index])
    parts = _items(g, n)
    taken = [parts[p] for p in positions]
    written = set(positions)
    rest = [None if i in written else part for i, part in enumerate(parts)]
    return _list_or_none(rest), _value_cotangent(taken, value)


def _delitem_cotangent(g, items, index):
    n = len(items)
    removed = set(range(n)[index]) if type(index) is slice else {_position(index, n, False)}
    kept = iter(_items(g, n - len(removed)))
    return _list_or_none([None if i in removed else next(kept) for i in range(n)])


def _mapping_cotangent(g, source):
    """The cotangent of the dict or (key, value) pairs `source` that dict(source) read;
    a key given twice takes the last value, as dict() does."""
    if g is None:
        return None
    if isinstance(source, dict):
        out = {k: g[k] for k in source if g.get(k) is not None}
        return out or None
    pairs = items_read(source)
    last = {k: i for i, (k, _) in enumerate(pairs)}
    parts = [None if last[k] != i or g.get(k) is None else (None, g[k]) for i, (k, _) in enumerate(pairs)]
    if all(p is None for p in parts):
        return None
    return read_cotangent(parts, source)


def _without_keys(g, keys):
    if g is None:
        return None
    out = {k: v for k, v in g.items() if k not in keys}
    return out or None


def _update_cotangents(g, mapping, other):
    keys = set(other.keys()) if isinstance(other, dict) else {k for k, _ in items_read(other)}
    return _without_keys(g, keys), _mapping_cotangent(g, other)


def _setdefault_cotangents(g, mapping, key):
    g_new, g_value = _pair(g)
    if key in mapping:
        merged = dict(g_new or {})
        merged[key] = accum(merged.get(key), g_value)
        return _without_keys(merged, ()), None
    g_default = accum(None if g_new is None else g_new.get(key), g_value)
    return _without_keys(g_new, {key}), g_default


def _pop_key_cotangents(g, mapping, key):
    g_rest, g_value = _pair(g)
    if key in mapping:
        merged = dict(g_rest or {})
        merged[key] = g_value
        return _without_keys(merged, ()), None
    return g_rest, g_value


# ---------------------------------------------------------------------------
# lists


@vjp(forms.list_insert, diff=("items", "value"))
def list_insert(g, y, items, index, value):
    """The inserted item's cotangent goes to value, the others back to their places."""
    return _insert_cotangents(g, items, index)


@vjp(forms.list_reverse, diff=("items",))
def list_reverse(g, y, items):
    return None if g is None else g[::-1]


@vjp(forms.list_pop, diff=("items",))
def list_pop(g, y, items, index=-1):
    """g is (cotangent of the shorter list, cotangent of the popped item)."""
    return _pop_cotangent(g, items, index)


@vjp(forms.list_remove, diff=("items",))
def list_remove(g, y, items, value):
    """value is only compared: the removed item gets no cotangent."""
    return _remove_cotangent(g, items, value)


@vjp(forms.list_sort, diff=("items",))
def list_sort(g, y, items, key=None, reverse=False):
    """Each sorted item's cotangent goes back to the position it came from (stable order)."""
    return _sort_cotangent(g, items, key, reverse)


@vjp(forms.list_clear, diff=("items",))
def list_clear(g, y, items):
    return None


@vjp(forms.list_setitem, diff=("items", "value"))
def list_setitem(g, y, items, index, value):
    """The overwritten items get none; value gets the cotangents of the places it filled."""
    return _setitem_cotangents(g, items, index, value)


@vjp(forms.list_delitem, diff=("items",))
def list_delitem(g, y, items, index):
    return _delitem_cotangent(g, items, index)


def _plain_data(x) -> bool:
    """x holds only arrays, numbers, strings, None and lists, tuples and dicts of them."""
    if isinstance(x, (list, tuple)):
        return all(_plain_data(v) for v in x)
    if isinstance(x, dict):
        return all(_plain_data(v) for v in x.values())
    return x is None or isinstance(x, (np.ndarray, np.generic, int, float, complex, str, bool))


_SHALLOW_COPYABLE = (np.ndarray, np.generic, list, tuple, dict, int, float, complex)


def _copy_cotangent(g, x):
    """x's cotangent from that of copy.copy(x), a container or an array (objects refused:
    a copy of one would need the object ledger's bookkeeping)."""
    if not isinstance(x, _SHALLOW_COPYABLE):
        raise NotImplementedError(f"zygote_py: no derivative rule for copy.copy of a {type(x).__name__}")
    return copy.copy(g) if isinstance(g, (list, dict)) else g


def _deepcopy_cotangent(g, x):
    """x's cotangent from that of copy.deepcopy(x), plain data only (_plain_data)."""
    if not _plain_data(x):
        raise NotImplementedError("zygote_py: no derivative rule for copy.deepcopy of "
                                  f"{type(x).__name__} holding objects other than arrays, "
                                  "numbers and lists, tuples and dicts of them")
    return copy.deepcopy(g)  # its own buffers: the backward may add into them in place


@vjp(copy.copy, diff=("x",))
def copy_(g, y, x):
    """A shallow copy of an array, a list, tuple or dict: the same items in a new container,
    so its cotangent is x's."""
    return _copy_cotangent(g, x)


@jvp(copy.copy)
def jvp_copy(dx, y, x):
    """A copy's tangent: a copy of the container of tangents, the items shared as the
    values are (a write into an array item reaches both, as in Python)."""
    return dx.copy() if isinstance(dx, np.ndarray) else _copy_cotangent(dx, x)


@vjp(copy.deepcopy, diff=("x",))
def deepcopy(g, y, x, memo=None, _nil=None):
    """A deep copy of plain data (arrays, numbers, and lists, tuples and dicts of them) has
    x's structure and values: its cotangent is x's, in buffers of its own."""
    return _deepcopy_cotangent(g, x)


@jvp(copy.deepcopy)
def jvp_deepcopy(dx, y, x, memo=None, _nil=None):
    """The tangent of the copy is a copy of x's tangent: a write into the copy (or into
    x) must not reach the other's tangent, as it does not reach the other's value."""
    return _deepcopy_cotangent(dx, x)


# ---------------------------------------------------------------------------
# dicts


@vjp(builtins.dict, diff=("iterable",))
def dict_(g, y, iterable=()):
    """dict(mapping) or dict(pairs): each key's cotangent to the value that won it."""
    return _mapping_cotangent(g, iterable)


@vjp(forms.dict_update, diff=("mapping", "other"))
def dict_update(g, y, mapping, other=()):
    """Keys of other replace the mapping's: their cotangents go to other."""
    return _update_cotangents(g, mapping, other)


@vjp(forms.dict_setdefault, diff=("mapping", "default"), underived=("key",))
def dict_setdefault(g, y, mapping, key, default=None):
    """A key already there keeps its value (default gets nothing); else default is the value."""
    return _setdefault_cotangents(g, mapping, key)


@vjp(forms.dict_pop, diff=("mapping", "default"))
def dict_pop(g, y, mapping, key, default=None):
    """The popped value's cotangent goes to mapping[key], or to default when key was missing."""
    return _pop_key_cotangents(g, mapping, key)


@vjp(forms.dict_delitem, diff=("mapping",))
def dict_delitem(g, y, mapping, key):
    return g


@vjp(forms.dict_clear, diff=("mapping",))
def dict_clear(g, y, mapping):
    return None
