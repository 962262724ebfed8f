"""The types of the iterators a transformed function makes (runtime/iterators.py).

`Items` holds the behaviour: the items, computed in advance, and a cursor.  Each
builtin iterator type that allows subclasses has a subclass here named as it is,
which also derives from that type, so that `isinstance(zip(a, b), zip)` holds in
a transformed function as in Python, and `type(it).__name__` and repr read the
same: `zip`, `map`, `filter`, `enumerate`, `reversed`, and itertools' `chain`,
`product`, `accumulate`, `starmap`.  The iterators whose Python types allow no
subclass (a generator, a list's iterator) get a class of that name deriving from
`Items` only.  Test for any of them with isinstance(x, Items).

The classes are written out one by one (not made by a loop) so that standalone
modules (`zygote-py grad`) can copy their source.  In this module the class names
hide the builtins of the same names, which it reaches as `builtins.zip`.
"""

from __future__ import annotations

import builtins
import itertools

from .. import context
from ..errors import ZygoteError


class Items:
    """A one-shot iterator over items computed in advance.

    The base of the classes below, which it is never made as (see the module's docstring)."""

    __slots__ = ()

    def __init__(self, items, sources=()):
        self.items = list(items)  # reads the sources, when they are _Readers, to the end
        self.cursor = 0
        # per argument of the builtin that made it: the positions of the items it took
        # from an Items argument (None for a sequence, read from its first item on)
        self.positions = tuple(s.positions if type(s) is _Reader else None for s in sources)
        self.counts = ()
        self.reads = []  # the cursor at each iter(self) by a builtin that reads it (sum, list, ...)
        self.ahead = None  # where an iterator computing its items ahead read this one (below)

    def __iter__(self):
        if self.ahead is not None or context.items_ahead():
            note_read(self)
        self.reads.append(self.cursor)
        return self

    def __next__(self):
        if self.cursor >= len(self.items):
            raise StopIteration
        self.cursor += 1
        return self.items[self.cursor - 1]

    def __length_hint__(self):
        return len(self.items) - self.cursor

    def __repr__(self):
        name = type(self).__name__
        if name == "generator":
            return f"<generator object <genexpr> at {id(self):#x}>"
        # the module of the builtin type it stands for: itertools.chain (none: list_iterator)
        module = next((c.__module__ for c in type(self).__mro__
                       if c.__module__ not in (__name__, "builtins")), "")
        return f"<{module + '.' if module else ''}{name} object at {id(self):#x}>"

    def __reduce__(self):
        raise TypeError(f"cannot pickle zygote_py's {type(self).__name__!r} iterator")


def note_read(items) -> None:
    """items is read now: refused when an iterator that computed its items ahead has read
    it to its end already (Python's would have read it item by item, so what is left of it
    now differs); noted when that is happening now."""
    places = context.items_ahead()
    if items.ahead is not None and items.ahead not in places:
        raise ZygoteError(
            "this iterator was read to its end already, when the map(), filter() or generator "
            f"expression made at {items.ahead} computed its items ahead of their reading; Python's "
            "would have read it item by item, so what is left of it here would differ", items.ahead,
            "read the map(), filter() or generator expression with a for loop, any(), all() or "
            "next() where it is made, or make a list of this iterator first (items = list(it))")
    if places:
        items.ahead = places[-1]


class _Reader:
    """Reads an Items iterator item by item, noting each item's position: a builtin
    that reads the same iterator twice (zip(it, it)) takes its items alternately."""

    __slots__ = ("positions", "source")

    def __init__(self, source):
        self.source = source
        self.positions = []

    def __iter__(self):
        return self

    def __next__(self):
        position = self.source.cursor
        item = self.source.__next__()
        self.positions.append(position)
        return item


_SLOTS = ("ahead", "counts", "cursor", "items", "positions", "reads")


# -- subclasses of the builtin iterator types (each made empty by its type's __new__) ----
class zip(Items, builtins.zip):
    __slots__ = _SLOTS

    def __new__(cls, *args, **kwargs):
        return builtins.zip.__new__(cls)


class map(Items, builtins.map):
    __slots__ = _SLOTS

    def __new__(cls, *args, **kwargs):
        return builtins.map.__new__(cls, None, ())


class filter(Items, builtins.filter):
    __slots__ = _SLOTS

    def __new__(cls, *args, **kwargs):
        return builtins.filter.__new__(cls, None, ())


class enumerate(Items, builtins.enumerate):
    __slots__ = _SLOTS

    def __new__(cls, *args, **kwargs):
        return builtins.enumerate.__new__(cls, ())


class reversed(Items, builtins.reversed):
    __slots__ = _SLOTS

    def __new__(cls, *args, **kwargs):
        return builtins.reversed.__new__(cls, ())


class chain(Items, itertools.chain):
    __slots__ = _SLOTS

    def __new__(cls, *args, **kwargs):
        return itertools.chain.__new__(cls)


class product(Items, itertools.product):
    __slots__ = _SLOTS

    def __new__(cls, *args, **kwargs):
        return itertools.product.__new__(cls)


class accumulate(Items, itertools.accumulate):
    __slots__ = _SLOTS

    def __new__(cls, *args, **kwargs):
        return itertools.accumulate.__new__(cls, ())


class starmap(Items, itertools.starmap):
    __slots__ = _SLOTS

    def __new__(cls, *args, **kwargs):
        return itertools.starmap.__new__(cls, None, ())


# -- the iterators whose Python types allow no subclass ------------------------------------
class iterator(Items):
    """Any other iterator (what Python's would be is not one of the names below)."""

    __slots__ = _SLOTS


class generator(iterator):
    __slots__ = ()


class list_iterator(iterator):
    __slots__ = ()


class tuple_iterator(iterator):
    __slots__ = ()


class range_iterator(iterator):
    __slots__ = ()


class list_reverseiterator(iterator):
    __slots__ = ()


ZipItems, MapItems, FilterItems, EnumerateItems, ReversedItems = zip, map, filter, enumerate, reversed
ChainItems, ProductItems, AccumulateItems, StarmapItems = chain, product, accumulate, starmap
# the Python type of an iterator (or its name) -> the Items class standing for it
_ITEMS_OF_TYPE = {builtins.zip: zip, builtins.map: map, builtins.filter: filter,
                  builtins.enumerate: enumerate, builtins.reversed: reversed,
                  itertools.chain: chain, itertools.product: product,
                  itertools.accumulate: accumulate, itertools.starmap: starmap}
_ITEMS_OF_NAME = {"generator": generator, "list_iterator": list_iterator,
                  "tuple_iterator": tuple_iterator, "range_iterator": range_iterator,
                  "list_reverseiterator": list_reverseiterator}


def items_like(python_type, items, sources=()):
    """An Items iterator over items standing for an iterator of python_type."""
    cls = _ITEMS_OF_TYPE.get(python_type) or _ITEMS_OF_NAME.get(python_type.__name__, iterator)
    return cls(items, sources)
