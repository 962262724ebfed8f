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

import builtins
import itertools

from .. import context
from ..errors import ZygoteError


class Items:
    """A one-shot iterator over items computed in advance.

    The base of the iterators the forms below return: one subclass per builtin iterator
    type that allows subclassing (`zip`, `map`, `filter`, `enumerate`, `reversed`, and
    itertools' `chain`, `product`, `accumulate`, `starmap`), which also derives from that
    type, so that `isinstance(zip(a, b), zip)` holds in a transformed function as in Python
    (and `type(it).__name__` is the builtin's name); `_Iterator` for the rest (iter() of a
    list, a generator expression), whose Python types cannot be subclassed.  Test for any
    of them with isinstance(x, Items)."""

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
        return f"<{name} object{' <genexpr>' if name == 'generator' else ''} at {id(self):#x}>"

    def __reduce__(self):
        raise TypeError(f"cannot pickle zygote_py's {type(self).__name__!r} iterator")


_SLOTS = ("ahead", "counts", "cursor", "items", "positions", "reads")


class _Iterator(Items):
    """An Items iterator standing for one whose Python type allows no subclass; the
    subclasses below carry the names of the usual ones (type(it).__name__, repr)."""

    __slots__ = _SLOTS


# Python's iterator type name -> an _Iterator subclass of that name (made once, never changed)
_NAMED = {name: type(name, (_Iterator,), {"__slots__": (), "__module__": __name__, "__qualname__": name})
          for name in ("generator", "list_iterator", "tuple_iterator", "range_iterator",
                       "str_ascii_iterator", "str_iterator", "list_reverseiterator",
                       "dict_keyiterator", "dict_valueiterator", "dict_itemiterator",
                       "set_iterator", "iterator")}


def _subclass_of(builtin_type, *empty_args):
    """The Items subclass that is also an instance of builtin_type; made empty by
    builtin_type.__new__(cls, *empty_args), its own slots hold the items."""

    def __new__(cls, *args, **kwargs):
        return builtin_type.__new__(cls, *empty_args)

    return type(builtin_type.__name__, (Items, builtin_type), {
        "__slots__": _SLOTS, "__new__": __new__, "__module__": __name__,
        "__qualname__": builtin_type.__name__,
        "__doc__": f"An Items iterator that is a {builtin_type.__name__} to isinstance."})


ZipItems = _subclass_of(builtins.zip)
MapItems = _subclass_of(builtins.map, None, ())
FilterItems = _subclass_of(builtins.filter, None, ())
EnumerateItems = _subclass_of(builtins.enumerate, ())
ReversedItems = _subclass_of(builtins.reversed, ())
ChainItems = _subclass_of(itertools.chain)
ProductItems = _subclass_of(itertools.product)
AccumulateItems = _subclass_of(itertools.accumulate, ())
StarmapItems = _subclass_of(itertools.starmap, None, ())
# the Python type of an iterator -> the Items class standing for it
_ITEMS_OF_TYPE = {builtins.zip: ZipItems, builtins.map: MapItems, builtins.filter: FilterItems,
                  builtins.enumerate: EnumerateItems, builtins.reversed: ReversedItems,
                  itertools.chain: ChainItems, itertools.product: ProductItems,
                  itertools.accumulate: AccumulateItems, itertools.starmap: StarmapItems}


def _items_like(python_type, items, sources=()):
    """An Items iterator over items standing for an iterator of python_type."""
    cls = _ITEMS_OF_TYPE.get(python_type) or _NAMED.get(python_type.__name__, _NAMED["iterator"])
    return cls(items, sources)


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
    if isinstance(iterable, Items):
        if iterable.ahead is not None or context.items_ahead():
            note_read(iterable)
        return Pass(iterable)
    return iterable[:] if type(iterable) is list else iterable


def take_all(iterable) -> list:
    """The items of iterable, consuming it as Python would (an Items from its cursor)."""
    return list(iterable)


def iter_items(iterable):
    """iter(x): an Items iterator is its own iterator; anything else becomes one (standing
    for the type of Python's iter(x): a zip object is its own iterator, a list's is a
    list_iterator)."""
    if isinstance(iterable, Items):
        return iterable
    return _items_like(type(builtins.iter(iterable)), iterable)


class _NoDefault:
    """The default of a parameter left out (a class: standalone modules can copy it)."""


def next_item(iterator, default=_NoDefault):
    """(the item next(iterator) returns, the position it had), StopIteration as in Python."""
    if not isinstance(iterator, Items):
        raise TypeError(f"{type(iterator).__name__!r} object is not an iterator")
    if iterator.ahead is not None or context.items_ahead():
        note_read(iterator)
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
    for it in iterables:
        if isinstance(it, Items) and (it.ahead is not None or context.items_ahead()):
            note_read(it)
    return [_Reader(it) if isinstance(it, Items) else it for it in iterables]


def zip_items(*iterables, strict=False):
    sources = _sources(iterables)
    return ZipItems(zip(*sources, strict=strict), sources)


def enumerate_items(iterable, start=0):
    sources = _sources((iterable,))
    return EnumerateItems(enumerate(sources[0], start), sources)


def reversed_items(sequence):
    """reversed(sequence), standing for the type Python's is (a list's is a
    list_reverseiterator, a tuple's a reversed object)."""
    python = builtins.reversed(sequence)
    return _items_like(type(python), python)


def chain_items(*iterables):
    """itertools.chain: each iterable's items in turn (the counts are kept for the rule)."""
    sources = _sources(iterables)
    taken = [take_all(it) for it in sources]
    out = ChainItems(itertools.chain(*taken), sources)
    out.counts = tuple(len(t) for t in taken)
    return out


def product_items(*iterables, repeat=1):
    sources = _sources(iterables)
    pools = [take_all(it) for it in sources]
    out = ProductItems(itertools.product(*pools, repeat=repeat), sources)
    out.counts = tuple(len(p) for p in pools)
    return out


def accumulate_items(iterable, initial=None):
    """itertools.accumulate with addition (its default function)."""
    sources = _sources((iterable,))
    return AccumulateItems(itertools.accumulate(sources[0], initial=initial), sources)


def list_of_items(items, python_type=builtins.map):
    """An Items iterator over the list items, standing for one of python_type (map, filter
    and itertools.starmap build that list as a loop)."""
    return _items_like(python_type, items)


def read_start(iterator: Items) -> int:
    """Where the one builtin that read iterator (sum, list, a loop over a parameter, ...)
    began; an error when several did, since which items each read is then unknown."""
    if len(iterator.reads) != 1:
        raise ZygoteError("an iterator that carries a derivative was read by more than one call "
                          "(sum, list, max, a loop over a function's parameter, ...), so which items "
                          "each read cannot be told apart", None,
                          "make a list of its items first (items = list(it)) and read the list")
    return iterator.reads[0]


# ---------------------------------------------------------------------------
# items computed ahead of their reading
#
# map(), filter() and a generator expression that a for loop, any(), all() or next()
# reads are lowered as that loop (frontend/lower_iterators.py), and one read to its end
# at once (sum, list, sorted, ...) computes its items in the order Python would.  Any
# other is computed when it is made, which the lowering allows only when computing an
# item has no effect (frontend/item_effects.py).  What is left is an item that raises:
# Python raises only if the item is read.  So the computation is bracketed by these two
# calls, and an exception raised inside the bracket becomes an error saying so
# (items_ahead_error, called by the API), never the bare exception of an item Python
# may never have computed.


def begin_ahead(where):
    """Items of the iterator made at `where` are computed now; returns the depth to
    restore when they are done."""
    places = context.items_ahead()
    context.set_items_ahead(places + (where,))
    return len(places)


def end_ahead(items, depth):
    """items, all computed: the bracket begin_ahead opened is closed."""
    context.set_items_ahead(context.items_ahead()[:depth])
    return items


def items_ahead_error(depth: int, err: BaseException) -> ZygoteError | None:
    """The error to raise for err, raised by generated code that started with `depth`
    places in computation: a ZygoteError when err came from computing an iterator's
    items ahead, else None.  Either way the places are reset to depth."""
    places = context.items_ahead()
    if len(places) <= depth:
        return None
    context.set_items_ahead(places[:depth])
    return ZygoteError(
        f"computing the items of this iterator raised {type(err).__name__}: {err}. zygote_py "
        "computes the items of an iterator that is kept for later when it is made, and Python "
        "computes each item only when it is read, so Python might never have raised", places[-1],
        "read it with a for loop, any(), all() or next() where it is made (those compute each "
        "item as it is read), or make a list of it yourself (items = list(...)) if every item "
        "is meant to be computed")


def reset_items_ahead(depth: int) -> None:
    """Forget the places above depth (an error left the bracket open)."""
    places = context.items_ahead()
    if len(places) > depth:
        context.set_items_ahead(places[:depth])
