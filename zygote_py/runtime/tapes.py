"""Long tapes: spilling a loop's saved values into typed blocks, and reading them back.

A tape is a Python list: appending and popping a value is the cheapest thing
the interpreter does, and a value comes back as the very object that was
saved.  A loop of a million steps would keep a million such objects alive,
though (a NumPy float64 scalar is 32 bytes, plus the list's pointer), so the
generated code keeps a tape short.  Its item 0 holds the blocks spilled so
far; after the pushes of an iteration, once the tape holds more than
`SPILL_AT` values, `spill_tape` moves them into one block.

Every iteration of a region pushes the same number of values (`width`: its
start and end pushes), so the values spilled form columns, one per saved
value, and each column is stored by what it holds:

  - all NumPy float64 scalars: a float64 array (8 bytes a value), read back
    as float64 scalars;
  - all Python floats: an `array('d')`, read back as Python floats;
  - one and the same object every time (the array a fill loop writes into):
    that object, once;
  - anything else (arrays, tuples, a mix of the two float types): the list.

The kind is decided from the values that are there (their exact types), never
from a guess, so a value always comes back with its type and its exact bits.
A `range` loop whose pushes cannot reach `SPILL_AT` skips the check
(`may_spill`, decided once before the loop).  The backward calls `refill_tape`
when only item 0 is left, before the first pop of an iteration (a loop skips
that check when nothing was spilled); spills happen only after an iteration's
last push, so a block always holds whole iterations.  A pullback that may run
its backward more than once reads a copy (`open_tape`): refilling takes blocks
off the copy only, and never changes a block.
"""

from __future__ import annotations

from array import array

import numpy as np

SPILL_AT = 1 << 14  # values held as objects before they are moved to a block
_float64 = np.float64


def new_tape() -> list:
    """An empty tape: item 0 holds its spilled blocks."""
    return [[]]


def _pack(column: list):
    n = len(column)
    kinds = list(map(type, column))  # exact types: a subclass of float is not a float here
    if kinds.count(_float64) == n:
        return "float64", np.fromiter(column, np.float64, n)
    if kinds.count(float) == n:
        return "float", array("d", column)
    if kinds.count(kinds[0]) == n and len(set(map(id, column))) == 1:  # by identity, never ==
        return "same", (column[0], n)
    return "objects", column


def _unpack(kind: str, values):
    if kind == "float64":
        return list(values)  # iterating a float64 array gives float64 scalars
    if kind == "float":
        return values.tolist()
    if kind == "same":
        obj, n = values
        return [obj] * n
    return values


def may_spill(tape: list, width: int, steps: range) -> bool:
    """Whether a loop over the range steps, pushing width values an iteration, may take
    tape past SPILL_AT."""
    return len(tape) - 1 + len(steps) * width > SPILL_AT


def spill_tape(tape: list, width: int = 1) -> None:
    """Move every value on tape (all but item 0), whole iterations of `width` values,
    into one block of `width` columns."""
    chunk = tape[1:]
    del tape[1:]
    whole = _pack(chunk)  # all of one float type (a scalar loop): one column, no interleaving
    if whole[0] in ("float64", "float") or width == 1 or len(chunk) % width:
        tape[0].append((1, len(chunk), [whole]))  # (the last test cannot pass: spills follow an
        return  # iteration's last push; it is there to be safe)
    tape[0].append((width, len(chunk), [_pack(chunk[k::width]) for k in range(width)]))


def refill_tape(tape: list, floats: list | None = None) -> None:
    """Put the last spilled block back on tape (it holds only item 0 now).

    floats: in a backward loop running on Python floats (runtime/float_loops.py), how
    many of the values still to be refilled are the loop's own: those (the block's
    last, popped first) come back as Python floats, the rest as they were saved."""
    width, n, columns = tape[0].pop()
    own = 0 if floats is None else min(floats[0], n)
    if own == n and width == 1 and columns[0][0] == "float64":
        floats[0] -= own
        tape.extend(columns[0][1].tolist())  # (a scalar loop's whole block: one column)
        return
    values = _unpack(*columns[0]) if width == 1 else _interleaved(width, n, columns)
    if own:
        # float_loop checked that these are float64 scalars or Python floats
        floats[0] -= own
        values = list(values)
        values[n - own:] = np.array(values[n - own:], dtype=_float64).tolist()
    tape.extend(values)


def _interleaved(width: int, n: int, columns: list) -> list:
    values = [None] * n
    for k, (kind, column) in enumerate(columns):
        values[k::width] = _unpack(kind, column)
    return values


def open_tape(tape: list) -> list:
    """A copy of tape for one run of a backward; the blocks themselves are never changed."""
    copy = list(tape)
    copy[0] = list(tape[0])
    return copy
