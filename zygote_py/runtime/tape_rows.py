"""Tape rows: a loop's saved arrays kept in one preallocated block instead of one array each.

A loop that saves an array every iteration for its adjoint (the heat equation's stencil
difference, 998 floats a step) would otherwise keep one separately allocated array per
iteration on its tape.  Each is small next to the allocator's mmap threshold, so they are
carved from the top of the heap one after another, and when the backward frees them glibc
gives that memory back to the operating system; the next call takes a page fault for every
4 kB of it again (docs/performance.md, "Tape rows").  Here the array is copied, as it is
made, into the next row of one block allocated for the loop, and the program goes on with
the row: one allocation of the whole tape's size, which glibc serves from mmap the first
time and, once that is freed, from a heap it then keeps.

The generated code writes `t = _zp_tape_row(rows, <the expression>)` where the transform
chose t (ad/reverse/tape_rows.py says when); `rows = _zp_tape_rows(<the range's arguments>)`
is made just before the loop.  Replacing the array by its copy is unobservable only when
nothing else can see the array, so `tape_row` decides from the object that is there:

  - an exact `np.ndarray` that owns its memory (`base is None`: no view of something else)
    and that nothing but the call's own argument refers to (its reference count, measured
    against a temporary passed the same way: a variable, a list, a view of it or a
    buffer export would each hold one more), so no other name, view or container can ever
    tell the original from the row;
  - writeable, numeric (bool, int, float, complex), and of the layout of the block's rows:
    the same shape, dtype and strides as the first array the loop kept, C order (a row is
    laid out exactly as the array was, so every later operation computes the same bits);
  - at least `MIN_ROW_BYTES` (smaller arrays come from NumPy's own cache anyway).

Anything else is returned unchanged: the tape then holds it as before.  A row is a view of
the block, so it differs from the array it replaces only where a program asks for memory
ownership (`.base`, `.flags.owndata`, `.resize`); the transform keeps rows away from any
use but arithmetic, so the generated code never does.  Rows never overlap (each starts on a
64-byte boundary of the block, as far apart as a separate array would be), so
`np.may_share_memory` answers for them as for separate arrays.

The block is sized by the loop's trip count where it is known ahead (a `range` of ints);
otherwise (a `while` loop, an iterator) blocks of 8, then as many rows as made so far, are
added as they fill.  No block is larger than `MAX_BLOCK_BYTES` (a `range` loop that breaks
early reserves no more than that beyond what it uses); more blocks follow where needed.
"""

from __future__ import annotations

import sys

import numpy as np

_ndarray = np.ndarray
_getrefcount = sys.getrefcount

MIN_ROW_BYTES = 1024  # NumPy's own allocation cache serves smaller arrays
MAX_BLOCK_BYTES = 64 << 20  # one block at most; more blocks follow where needed
_ALIGN = 64  # bytes: each row starts this far apart from the block's start, at least
_FIRST_ROWS = 8  # the first block of a loop whose trip count is not known ahead


def _refs_seen(value) -> int:
    return _getrefcount(value)


class TapeRows:
    """The rows one loop's saves of one value go into (see the module docstring)."""

    __slots__ = ("expected", "shape", "strides", "dtype", "rows", "next", "end", "made")

    def __init__(self, expected):
        self.expected = expected  # rows the loop will ask for, where known ahead; else None
        self.shape = None  # the layout of the rows, from the first array kept (None: not
        self.strides = None  # yet; False: the loop's arrays do not go into rows)
        self.dtype = None
        self.rows = None  # the current block, indexed by row
        self.next = 0  # the next free row of the current block
        self.end = 0  # rows in the current block
        self.made = 0  # rows in all the blocks made so far


def tape_rows(*range_args) -> TapeRows:
    """The rows for a loop; range_args are its `range`'s arguments where it is one, whose
    length then sizes the block (only exact ints: computing the length runs no user code)."""
    expected = None
    if range_args and all(type(a) is int for a in range_args):
        try:
            expected = len(range(*range_args))
        except (TypeError, ValueError, OverflowError):  # the loop's own header raises it
            expected = None
    return TapeRows(expected)


def tape_row(rows: TapeRows, value):
    """value, or a row of rows holding a copy of it, which the caller uses from now on in
    its place (the module docstring says when; value itself otherwise)."""
    # (the reference count an array only the argument holds reads is measured on a
    # temporary passed the same way, each time: it differs between Python versions)
    if type(value) is not _ndarray or value.base is not None \
            or _getrefcount(value) > _refs_seen([]):
        return value
    k = rows.next
    if k == rows.end:
        if not _add_block(rows, value):
            return value
        k = 0
    elif value.shape != rows.shape or value.strides != rows.strides or value.dtype != rows.dtype:
        return value
    if not value.flags.writeable:
        return value
    row = rows.rows[k]
    rows.next = k + 1
    row[...] = value
    return row


def _add_block(rows: TapeRows, value) -> bool:
    """A new block for value's rows; False where value does not go into rows."""
    if rows.shape is None:  # the first array: it sets the layout
        if not _fits_rows(value):
            rows.shape = False
            return False
        rows.shape, rows.strides, rows.dtype = value.shape, value.strides, value.dtype
    elif rows.shape is False or value.shape != rows.shape or value.strides != rows.strides \
            or value.dtype != rows.dtype:
        return False
    size, itemsize = value.size, value.dtype.itemsize
    stride = -(-size * itemsize // _ALIGN) * _ALIGN // itemsize  # items a row takes, padded
    if rows.expected is not None and rows.made < rows.expected:
        count = rows.expected - rows.made
    else:
        count = max(_FIRST_ROWS, rows.made)
    count = max(1, min(count, MAX_BLOCK_BYTES // (stride * itemsize)))
    block = np.empty((count, stride), value.dtype)
    rows.rows = block[:, :size].reshape((count,) + value.shape)
    rows.next, rows.end = 0, count
    rows.made += count
    return True


def _fits_rows(value) -> bool:
    """An array whose copies rows can hold with the same layout: C order, numeric, large
    enough to be worth it."""
    if value.ndim == 0 or value.nbytes < MIN_ROW_BYTES or value.dtype.kind not in "biufc":
        return False
    if not value.dtype.isnative or not value.flags.c_contiguous:
        return False
    expected, step = [], value.dtype.itemsize
    for n in reversed(value.shape):
        expected.append(step)
        step *= n
    return tuple(reversed(expected)) == value.strides
