"""Iterators as values: what `zip`, `enumerate`, `iter`, `map`, ... return in
a transformed function.

Python's iterator builtins return objects that are consumed once.  In a
transformed function each returns an `Items` iterator instead (iterator_types.py:
an instance of the builtin's own type where that type allows subclasses): the
items, computed when the iterator is made, and a cursor.  It behaves as Python's
iterator does (a second pass over it is empty, `next` advances it, `iter(it) is
it`).  A map(), filter() or generator expression whose items are computed when it
is made, not as they are read, is bracketed by begin_ahead/end_ahead (below).

The cotangent of an `Items` is a list with one entry per item it holds (None
where an item has none).  Every consumer reads items through `take`, which
records where in the iterator its pass began, so that the adjoint can send
each item's cotangent back to the position it came from: `for_pass` does this
for a for loop (see `Pass`), `next_item` for `next`.
"""

from __future__ import annotations

import builtins
import collections.abc
import itertools
import types

import numpy as np

from .. import context
from ..errors import ZygoteError
from .iterator_types import (AccumulateItems, ChainItems, EnumerateItems, Items, ProductItems,
                             ZipItems, _Reader, items_like, note_read)


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
    return items_like(type(builtins.iter(iterable)), iterable)


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
    return items_like(type(python), python)


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
    return items_like(python_type, items)


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


# the Python types of the iterators whose Items class cannot derive from them (by the
# class's name, iterator_types.py), which type() and isinstance() answer with
_UNSUBCLASSABLE = {"generator": types.GeneratorType, "list_iterator": type(builtins.iter([])),
                   "tuple_iterator": type(builtins.iter(())),
                   "range_iterator": type(builtins.iter(range(0))),
                   "list_reverseiterator": type(builtins.reversed([]))}
# the classes isinstance() answers differently for those (the lowering calls isinstance_of
# only where the class asked about is, or holds, one of them)
UNSUBCLASSABLE_CLASSES = (*_UNSUBCLASSABLE.values(), collections.abc.Generator)


def type_of(obj):
    """type(obj), Python's type for an iterator a transformed function made: `zip` for a
    zip, `types.GeneratorType` for a generator expression (so `type(it) is zip` holds)."""
    if isinstance(obj, Items):
        cls = type(obj)
        python = _UNSUBCLASSABLE.get(cls.__name__)
        if python is not None:
            return python
        for base in cls.__mro__[1:]:
            if base.__module__ in ("builtins", "itertools"):
                return base
        return cls
    return type(obj)


def isinstance_of(obj, classinfo):
    """isinstance(obj, classinfo) where classinfo is (or holds) a type no Items class can
    derive from (UNSUBCLASSABLE_CLASSES): an iterator standing for a generator is an
    instance of types.GeneratorType and collections.abc.Generator, as Python's is."""
    if isinstance(obj, Items):
        python = _UNSUBCLASSABLE.get(type(obj).__name__)
        if python is not None:
            for cls in (classinfo if isinstance(classinfo, tuple) else (classinfo,)):
                if isinstance(cls, type) and issubclass(python, cls):
                    return True
    return isinstance(obj, classinfo)


type_of._zp_pure = isinstance_of._zp_pure = True  # (dropped when unused: analysis/purity.py)


def check_iterable(source):
    """What a generator expression does with its first iterable when it is made: iter() of
    it, Python's TypeError for a number (an Items iterator is left as it is: its own)."""
    if not isinstance(source, Items):
        builtins.iter(source)


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


# methods of an exact ndarray or NumPy scalar that only compute a value (no write, no I/O)
_READING_ARRAY_METHODS = frozenset((
    "all", "any", "argmax", "argmin", "argsort", "astype", "choose", "clip", "compress", "conj",
    "conjugate", "copy", "cumprod", "cumsum", "diagonal", "dot", "flatten", "item", "max", "mean",
    "min", "nonzero", "prod", "ptp", "ravel", "repeat", "reshape", "round", "searchsorted",
    "squeeze", "std", "sum", "swapaxes", "take", "tolist", "trace", "transpose", "var", "view"))
# ... of a list, dict or set
_READING_CONTAINER_METHODS = frozenset(("copy", "count", "index", "get", "keys", "values", "items",
                                        "isdisjoint", "issubset", "issuperset", "union",
                                        "intersection", "difference", "symmetric_difference"))


def check_ahead_method(receiver, name, loc):
    """Before `receiver.name(...)` in the computation of an iterator's items ahead of their
    reading: allowed where the receiver's type says the method has no effect (a number's,
    a string's or tuple's, an ndarray's reading methods, a container's reading ones);
    anything else (an object of the user's, whose method may do anything) is refused,
    since Python would call it only when (and if) the item is read."""
    cls = type(receiver)
    if cls in (float, int, bool, complex, str, bytes, tuple):
        return
    if (cls is _ndarray or isinstance(receiver, _np_generic)) and name in _READING_ARRAY_METHODS:
        return
    if cls in (list, dict, set, frozenset) and name in _READING_CONTAINER_METHODS:
        return
    raise ZygoteError(
        f".{name}() of a {cls.__name__} is called while zygote_py computes the items of this "
        "iterator ahead of their reading, and it may have an effect that Python would have only "
        "when (and if) the item is read", loc,
        "read the iterator with a for loop, any(), all() or next() where it is made, or make a "
        "list of it (items = list(...)) if every item is meant to be computed at once")


_ndarray, _np_generic = np.ndarray, np.generic


def items_ahead_error(err: BaseException) -> ZygoteError | None:
    """The error to raise for err, raised by generated code the API runs (with no places
    when it started, context.fresh_items_ahead): a ZygoteError when err came from
    computing an iterator's items ahead, else None."""
    places = context.items_ahead()
    if not places:
        return None
    return ZygoteError(
        f"computing the items of this iterator raised {type(err).__name__}: {err}. zygote_py "
        "computes the items of an iterator that is kept for later when it is made, and Python "
        "computes each item only when it is read, so Python might never have raised", places[-1],
        "read it with a for loop, any(), all() or next() where it is made (those compute each "
        "item as it is read), or make a list of it yourself (items = list(...)) if every item "
        "is meant to be computed")
