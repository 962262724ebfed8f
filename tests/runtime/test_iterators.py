"""runtime/iterators.py: the one-shot Items iterators that the iterator builtins
return in transformed code behave as Python's iterators do, and record where
each reader began (what the rules need to send items' cotangents back)."""

from __future__ import annotations

import pytest

import zygote_py as zp
from zygote_py.runtime import iterators as it
from zygote_py.runtime.helpers import accum_index


def test_items_is_its_own_iterator_and_is_read_once():
    z = it.zip_items([1.0, 2.0], [3.0, 4.0])
    assert iter(z) is z
    assert list(z) == [(1.0, 3.0), (2.0, 4.0)]
    assert list(z) == []  # a second pass is empty, as with Python's zip
    with pytest.raises(StopIteration):
        next(z)


def test_builtin_forms_match_python():
    xs, ys = [1.0, 2.0, 3.0], (4.0, 5.0)
    assert list(it.zip_items(xs, ys)) == list(zip(xs, ys))
    assert list(it.enumerate_items(xs, start=2)) == list(enumerate(xs, 2))
    assert list(it.reversed_items(xs)) == list(reversed(xs))
    assert list(it.chain_items(xs, ys)) == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert list(it.product_items(xs, ys)) == [(a, b) for a in xs for b in ys]
    assert list(it.accumulate_items(xs, initial=10.0)) == [10.0, 11.0, 13.0, 16.0]
    with pytest.raises(ValueError):
        list(it.zip_items(xs, ys, strict=True))


def test_next_item_returns_the_position_and_honours_the_default():
    items = it.iter_items([1.0, 2.0])
    assert it.iter_items(items) is items
    assert it.next_item(items) == (1.0, 0)
    assert it.next_item(items) == (2.0, 1)
    assert it.next_item(items, 9.0) == (9.0, -1)
    with pytest.raises(StopIteration):
        it.next_item(items)
    with pytest.raises(TypeError, match="not an iterator"):
        it.next_item([1.0])  # next of a list fails in Python too


def test_an_iterator_argument_is_read_from_its_cursor_and_its_start_recorded():
    source = it.iter_items([1.0, 2.0, 3.0])
    it.next_item(source)
    z = it.zip_items(source, [7.0, 8.0, 9.0])
    assert list(z) == [(2.0, 7.0), (3.0, 8.0)]
    assert z.positions == ([1, 2], None)
    assert source.reads == []  # the form read it item by item, not as a builtin reader


def test_a_loop_pass_starts_where_the_cursor_stood():
    source = it.iter_items([1.0, 2.0, 3.0])
    it.next_item(source)
    loop = it.for_pass(source)
    assert (loop.start, len(loop), loop[0]) == (1, 2, 2.0)
    assert list(loop) == [2.0, 3.0]
    assert it.for_pass([1.0]) == [1.0]


def test_accum_index_over_an_iterator_uses_the_recorded_read():
    source = it.iter_items([1.0, 2.0, 3.0])
    it.next_item(source)
    assert [v for v in source] == [2.0, 3.0]  # a loop over a parameter: one recorded read
    acc = accum_index(None, source, 0, 0.5)
    assert acc == [None, 0.5, None]


def test_two_readers_of_one_iterator_cannot_be_told_apart():
    source = it.iter_items([1.0, 2.0])
    list(source)
    list(source)
    with pytest.raises(zp.ZygoteError, match="read by more than one call"):
        it.read_start(source)


def test_an_iterator_read_twice_by_zip_notes_the_alternating_positions():
    source = it.iter_items([1.0, 2.0, 3.0, 4.0])
    pairs = it.zip_items(source, source)
    assert list(pairs) == [(1.0, 2.0), (3.0, 4.0)]
    assert pairs.positions == ([0, 2], [1, 3])


def test_a_slice_assigned_from_an_iterator_reads_it_once():
    source = it.iter_items([1.0, 2.0])
    p = [0.0, 0.0, 0.0]
    from zygote_py.runtime.containers import list_setitem

    assert list_setitem(p, slice(0, 2), source) == [1.0, 2.0, 0.0]
    assert it.read_start(source) == 0
