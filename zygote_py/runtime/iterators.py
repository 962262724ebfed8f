"""Iterators as values: what `zip`, `enumerate`, `iter`, `map`, ... return in
a transformed function.

Python's iterator builtins return objects that are consumed once.  In a
transformed function each returns an `Items` iterator instead: the items,
computed when the iterator is made, and a cursor.  It behaves as Python's
iterator does for everything a function can observe of pure code (a second
pass over it is empty, `next` advances it, `iter(it) is it`); the items are
only computed earlier, so a function passed to `map` runs when `map` is
called (documented in docs/limitations.md).

The cotangent of an `Items` is a list with one entry per item it holds (None
where an item has none).  Every consumer reads items through `take`, which
records where in the iterator its pass began, so that the adjoint can send
each item's cotangent back to the position it came from: `for_pass` does this
for a for loop (see `Pass`), `next_item` for `next`.
"""

from __future__ import annotations

import itertools

from ..errors import ZygoteError


class Items:
    """A one-shot iterator over items computed in advance."""

    __slots__ = ("counts", "cursor", "items", "positions", "reads")

    def __init__(self, items, sources=()):
        self.items = list(items)  # reads the sources, when they are _Readers, to the end
        self.cursor = 0
        # per argument of the builtin that made it: the positions of the items it took
        # from an Items argument (None for a sequence, read from its first item on)
        self.positions = tuple(s.positions if type(s) is _Reader else None for s in sources)
        self.counts = ()
        self.reads = []  # the cursor at each iter(self) by a builtin that reads it (sum, list, ...)

    def __iter__(self):
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
        return f"<zygote_py iterator at item {self.cursor} of {len(self.items)}>"


class Pass:
    """One pass of a for loop over an Items iterator, from where its cursor stood.

    The loop's adjoint indexes the pass from 0 (`accum_index` reads `len` and
    items by position); `for_pass`'s rule shifts those positions by `start`."""

    __slots__ = ("source", "start")

    def __init__(self, source):
        self.source = source
        self.start = source.cursor

    def __iter__(self):
        return self.source

    def __len__(self):
        return len(self.source.items) - self.start

    def __getitem__(self, index):
        return self.source.items[self.start:][index]


def for_pass(iterable):
    """What a for loop iterates: a Pass over an Items iterator; a list's items as they are
    when the loop starts (a list the function made may be updated in place after the
    loop, while the loop's adjoint still reads the items it iterated: a generator
    expression over `xs` consumed before `xs.extend(...)`; an update during the loop is
    refused by the compiler, so the loop sees what Python's would); anything else
    unchanged (an array's rows are views, which `row *= c` writes through)."""
    if type(iterable) is Items:
        return Pass(iterable)
    return iterable[:] if type(iterable) is list else iterable


def take_all(iterable) -> list:
    """The items of iterable, consuming it as Python would (an Items from its cursor)."""
    return list(iterable)


def iter_items(iterable):
    """iter(x): an Items iterator is its own iterator; anything else becomes one."""
    if type(iterable) is Items:
        return iterable
    return Items(iterable)


class _NoDefault:
    """The default of a parameter left out (a class: standalone modules can copy it)."""


def next_item(iterator, default=_NoDefault):
    """(the item next(iterator) returns, the position it had), StopIteration as in Python."""
    if type(iterator) is not Items:
        raise TypeError(f"{type(iterator).__name__!r} object is not an iterator")
    position = iterator.cursor
    if position >= len(iterator.items):
        if default is _NoDefault:
            raise StopIteration
        return default, -1
    iterator.cursor += 1
    return iterator.items[position], position


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


def _sources(iterables):
    """The iterables as the builtin will read them: an Items one through a _Reader (not
    counted as a read by a builtin, and its positions noted)."""
    return [_Reader(it) if type(it) is Items else it for it in iterables]


def zip_items(*iterables, strict=False):
    sources = _sources(iterables)
    return Items(zip(*sources, strict=strict), sources)


def enumerate_items(iterable, start=0):
    sources = _sources((iterable,))
    return Items(enumerate(sources[0], start), sources)


def reversed_items(sequence):
    return Items(reversed(sequence))


def chain_items(*iterables):
    """itertools.chain: each iterable's items in turn (the counts are kept for the rule)."""
    sources = _sources(iterables)
    taken = [take_all(it) for it in sources]
    out = Items(itertools.chain(*taken), sources)
    out.counts = tuple(len(t) for t in taken)
    return out


def product_items(*iterables, repeat=1):
    sources = _sources(iterables)
    pools = [take_all(it) for it in sources]
    out = Items(itertools.product(*pools, repeat=repeat), sources)
    out.counts = tuple(len(p) for p in pools)
    return out


def accumulate_items(iterable, initial=None):
    """itertools.accumulate with addition (its default function)."""
    sources = _sources((iterable,))
    return Items(itertools.accumulate(sources[0], initial=initial), sources)


def list_of_items(items):
    """An Items iterator over the list items (map and filter build that list as a loop)."""
    return Items(items)


def read_start(iterator: Items) -> int:
    """Where the one builtin that read iterator (sum, list, a loop over a parameter, ...)
    began; an error when several did, since which items each read is then unknown."""
    if len(iterator.reads) != 1:
        raise ZygoteError("an iterator that carries a derivative was read by more than one call "
                          "(sum, list, max, a loop over a function's parameter, ...), so which items "
                          "each read cannot be told apart", None,
                          "make a list of its items first (items = list(it)) and read the list")
    return iterator.reads[0]
