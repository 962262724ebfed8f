"""Rules for iterators as values (runtime/iterators.py) and for the builtins
that read a sequence item by item.

The cotangent of an `Items` iterator is a list with one entry per item it
holds.  `items_cotangent(source, parts, start)` turns the cotangents of items
read one after another from position `start` of `source` into source's own
cotangent: a list, tuple or array for those, a list for an `Items` (whose
positions start at its first item, not its cursor) and for a dict view (whose
rule maps it to the dict's keys).  Anything else that received a cotangent
is an error rather than a silent zero.
"""

from __future__ import annotations

import builtins
import itertools
from collections.abc import ItemsView, KeysView, ValuesView

import numpy as np

from zygote_py.errors import ZygoteError
from zygote_py.rules.registry import vjp
from zygote_py.runtime import iterators as it
from zygote_py.runtime.containers import refuse_key_cotangent, sort_order
from zygote_py.runtime.helpers import accum
from zygote_py.runtime.iterators import Items, Pass, read_start


def items_cotangent(source, parts, start=0):
    """The cotangent of source from parts, its items' cotangents from position start on."""
    parts = list(parts)
    if all(p is None for p in parts) or isinstance(source, (range, str, bytes)):
        return None  # (a range's integers and a string's characters carry no derivative)
    if isinstance(source, (dict, KeysView)):  # its keys: dropped, a float one refused
        for key, part in zip(itertools.islice(source, start, None), parts):
            refuse_key_cotangent(key, part)
        return None
    # (built without writing into a list: forward mode over gradient code reads this too)
    if isinstance(source, Items):
        return [None] * start + parts + [None] * (len(source.items) - start - len(parts))
    if isinstance(source, (list, tuple, np.ndarray, ValuesView, ItemsView, KeysView)):
        out = [None] * start + parts + [None] * (len(source) - start - len(parts))
        if isinstance(source, np.ndarray):
            return np.stack([np.zeros(source.shape[1:], dtype=np.result_type(source.dtype, float))
                             if p is None else p for p in out])
        return tuple(out) if type(source) is tuple else out
    raise ZygoteError(f"cannot send a derivative back through a {type(source).__name__} that was "
                      "read item by item", None, "make a list of it first (list(...))")


def placed_cotangent(source, parts, positions):
    """The cotangent of source from its items', item k read from positions[k] (None:
    from the first item on, a sequence's way)."""
    if positions is None:
        return items_cotangent(source, parts)
    if all(p is None for p in parts):
        return None
    by_position = {}  # (a dict, not a list written in place: see items_cotangent)
    for position, part in zip(positions, parts):
        by_position[position] = accum(by_position.get(position), part)
    return [by_position.get(i) for i in range(len(source.items))]


def items_read(source) -> list:
    """The items one builtin read from source (an Items from where that read began),
    without reading an Items again (that would count as another read)."""
    if isinstance(source, Items):
        return source.items[read_start(source):]
    return list(source)


def read_cotangent(g, source):
    """The cotangent of source from g, the item cotangents of one builtin's reading of all
    its items (list(it), sum(it), ...): an Items is read from where that reading began."""
    if g is None:
        return None
    start = read_start(source) if isinstance(source, Items) else 0
    return items_cotangent(source, g, start)


def _zip_cotangents(g, iterables, positions):
    out = []
    for j, source in enumerate(iterables):
        parts = [None if gk is None else gk[j] for gk in (g or ())]
        out.append(placed_cotangent(source, parts, positions[j]))
    return tuple(out)


def _enumerate_cotangent(g, iterable, positions):
    parts = [None if gk is None else gk[1] for gk in (g or ())]
    return placed_cotangent(iterable, parts, positions[0])


def _chain_cotangents(g, iterables, y):
    parts = list(g or [None] * len(y.items))
    out = []  # (a list made here, which the lowering lets this function append to)
    offset = 0
    for source, positions, count in zip(iterables, y.positions, y.counts):
        out.append(placed_cotangent(source, parts[offset:offset + count], positions))
        offset += count
    return tuple(out)


def _product_cotangents(g, iterables, repeat, y):
    pools = list(y.counts) * repeat
    summed = {}  # (iterable j, item index) -> its cotangent, without writing into lists
    for k, gk in enumerate(g or ()):
        if gk is None:
            continue
        for slot, index in enumerate(np.unravel_index(k, pools) if pools else ()):
            key = (slot % len(y.counts), int(index))
            summed[key] = accum(summed.get(key), gk[slot])
    parts = [[summed.get((j, i)) for i in range(n)] for j, n in enumerate(y.counts)]
    return tuple(placed_cotangent(source, part, positions)
                 for source, part, positions in zip(iterables, parts, y.positions))


def _accumulate_cotangents(g, iterable, initial, y):
    """Item i is in every running total from i on: its cotangent is their sum."""
    parts = list(g or ())
    total = None
    out = []  # (made here, so the lowering lets this function append to it)
    for gk in reversed(parts):
        total = accum(total, gk)
        out.append(total)
    out = out[::-1]
    if initial is None:
        return placed_cotangent(iterable, out, y.positions[0]), None
    return placed_cotangent(iterable, out[1:], y.positions[0]), (out[0] if out else None)


def _pass_cotangent(g, y):
    if type(y) is not Pass or g is None:
        return g
    return items_cotangent(y.source, g, y.start)


def _next_cotangents(g, iterator, y):
    g_item = None if g is None else g[0]
    if y[1] < 0:  # the default was returned
        return None, g_item
    return items_cotangent(iterator, [g_item], y[1]), None


def _sorted_cotangent(g, iterable, y, key, reverse):
    if g is None:
        return None
    source = iterable.items[read_start(iterable):] if isinstance(iterable, Items) else iterable
    order = sort_order(list(source), key, reverse)
    # where sorting put each item (the inverse permutation): its cotangent is read from there
    # (built without writing into a list: forward mode over gradient code reads this too)
    rank = sorted(range(len(order)), key=order.__getitem__)
    return read_cotangent([g[k] for k in rank], iterable)


# ---------------------------------------------------------------------------
# iterator builtins


@vjp(it.zip_items, diff=("iterables",))
def zip_(g, y, *iterables, strict=False):
    """Item k of each iterable gets its part of the k-th tuple's cotangent."""
    return _zip_cotangents(g, iterables, y.positions)


@vjp(it.enumerate_items, diff=("iterable",))
def enumerate_(g, y, iterable, start=0):
    return _enumerate_cotangent(g, iterable, y.positions)


@vjp(it.reversed_items, diff=("sequence",))
def reversed_(g, y, sequence):
    return None if g is None else items_cotangent(sequence, g[::-1])


@vjp(it.chain_items, diff=("iterables",))
def chain(g, y, *iterables):
    return _chain_cotangents(g, iterables, y)


@vjp(it.product_items, diff=("iterables",))
def product(g, y, *iterables, repeat=1):
    """An item appears in many tuples: its cotangents add up."""
    return _product_cotangents(g, iterables, repeat, y)


@vjp(it.accumulate_items, diff=("iterable", "initial"))
def accumulate(g, y, iterable, initial=None):
    return _accumulate_cotangents(g, iterable, initial, y)


@vjp(it.iter_items, diff=("iterable",))
def iter_(g, y, iterable):
    """iter of an iterator is the iterator itself; of a sequence, its items from the first."""
    return g if y is iterable else items_cotangent(iterable, g or ())


@vjp(it.next_item, diff=("iterator", "default"))
def next_(g, y, iterator, default=None):
    """y is (item, its position): the item's cotangent goes back to that position."""
    return _next_cotangents(g, iterator, y)


@vjp(it.for_pass, diff=("iterable",))
def for_pass(g, y, iterable):
    """A loop's pass over an iterator read it from its cursor then."""
    return _pass_cotangent(g, y)


@vjp(it.end_ahead, diff=("items",))
def end_ahead(g, y, items, depth):
    return g


@vjp(it.list_of_items, diff=("items",))
def list_of_items(g, y, items, python_type=builtins.map):
    return g


@vjp(builtins.sorted, diff=("iterable",))
def sorted_(g, y, iterable, *, key=None, reverse=False):
    """Each sorted item's cotangent goes back to its place (sorting is stable)."""
    return _sorted_cotangent(g, iterable, y, key, reverse)


