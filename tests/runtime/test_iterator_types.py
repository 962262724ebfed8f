"""The iterators a transformed function makes are instances of Python's own iterator
types where those allow subclasses (runtime/iterator_types.py), and read as Python's
do; before, all were one `Items` class, so `isinstance(zip(a, b), zip)` was False."""

import builtins
import itertools
import types

import pytest

from zygote_py.runtime import iterators as it
from zygote_py.runtime.iterator_types import Items


@pytest.mark.parametrize("made, python", [
    (lambda: it.zip_items([1.0, 2.0], [3.0, 4.0]), lambda: zip([1.0, 2.0], [3.0, 4.0])),
    (lambda: it.enumerate_items([1.0, 2.0], 1), lambda: enumerate([1.0, 2.0], 1)),
    (lambda: it.reversed_items((1.0, 2.0)), lambda: reversed((1.0, 2.0))),
    (lambda: it.reversed_items([1.0, 2.0]), lambda: reversed([1.0, 2.0])),
    (lambda: it.iter_items([1.0, 2.0]), lambda: iter([1.0, 2.0])),
    (lambda: it.iter_items(range(2)), lambda: iter(range(2))),
    (lambda: it.chain_items([1.0], [2.0]), lambda: itertools.chain([1.0], [2.0])),
    (lambda: it.product_items([1.0], [2.0, 3.0]), lambda: itertools.product([1.0], [2.0, 3.0])),
    (lambda: it.accumulate_items([1.0, 2.0]), lambda: itertools.accumulate([1.0, 2.0])),
    (lambda: it.list_of_items([1.0, 4.0], builtins.map), lambda: map(abs, [1.0, -4.0])),
    (lambda: it.list_of_items([1.0], builtins.filter), lambda: filter(None, [1.0, 0.0])),
    (lambda: it.list_of_items([1.0], itertools.starmap), lambda: itertools.starmap(abs, [(1.0,)])),
    (lambda: it.list_of_items([1.0], types.GeneratorType), lambda: (v for v in [1.0])),
])
def test_each_iterator_reads_as_pythons(made, python):
    ours, theirs = made(), python()
    assert isinstance(ours, Items)
    assert type(ours).__name__ == type(theirs).__name__
    for cls in (zip, map, filter, enumerate, reversed, itertools.chain, itertools.product,
                itertools.accumulate, itertools.starmap):
        assert isinstance(ours, cls) == isinstance(theirs, cls), cls
    if type(theirs) is types.GeneratorType:  # (Python's names the function too)
        assert repr(ours).startswith("<generator object <genexpr> at 0x")
    else:
        assert repr(ours).split(" at ")[0] == repr(theirs).split(" at ")[0]
    assert iter(ours) is ours and list(ours) == list(theirs) and list(ours) == []


def test_an_iterator_is_read_once_and_not_pickled():
    z = it.zip_items([1.0, 2.0], [3.0, 4.0])
    assert next(z) == (1.0, 3.0) and list(z) == [(2.0, 4.0)] and list(z) == []
    with pytest.raises(TypeError, match="cannot pickle"):
        import pickle
        pickle.dumps(z)
