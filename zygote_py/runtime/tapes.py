"""Long tapes: spilling a loop's saved values into typed blocks, and reading them back.

A tape is a Python list: appending and popping a value is the cheapest thing
the interpreter does, and a value comes back as the very object that was
saved.  A loop of a million steps would keep a million such objects alive,
though (a NumPy float64 scalar is 32 bytes, plus the list's pointer), so the
generated code keeps a tape short.  Its item 0 holds the blocks spilled so
far; after the pushes of an iteration, once the tape holds more than
`SPILL_AT` values, `spill_tape` moves them into one block:

  - all NumPy float64 scalars: a float64 array (8 bytes a value), read back
    as float64 scalars;
  - all Python floats: an `array('d')`, read back as Python floats;
  - anything else (arrays, tuples, a mix of the two float types): the list
    itself, read back unchanged.

The kind is decided from the values that are there, never from a guess, so a
value always comes back with its type and its exact bits.  The backward
calls `refill_tape` when only item 0 is left, before the first pop of an
iteration; spills happen only after an iteration's last push, so a block
always holds whole iterations.  A pullback that may run its backward more than
once reads a copy (`open_tape`): refilling takes blocks off the copy only.
"""

from __future__ import annotations

from array import array

import numpy as np

SPILL_AT = 1 << 14  # values held as objects before they are moved to a block
_float64 = np.float64


def new_tape() -> list:
    """An empty tape: item 0 holds its spilled blocks."""
    return [[]]


def spill_tape(tape: list) -> None:
    """Move every value on tape (all but item 0) into one block."""
    chunk = tape[1:]
    del tape[1:]
    n = len(chunk)
    kinds = list(map(type, chunk))  # exact types: a subclass of float is not a float here
    if kinds.count(_float64) == n:
        block = ("float64", np.fromiter(chunk, np.float64, n))
    elif kinds.count(float) == n:
        block = ("float", array("d", chunk))
    else:
        block = ("objects", chunk)
    tape[0].append(block)


def refill_tape(tape: list) -> None:
    """Put the last spilled block back on tape (it holds only item 0 now)."""
    kind, values = tape[0].pop()
    if kind == "float64":
        tape.extend(values)  # iterating a float64 array gives float64 scalars
    elif kind == "float":
        tape.extend(values.tolist())
    else:
        tape.extend(values)


def open_tape(tape: list) -> list:
    """A copy of tape for one run of a backward; the blocks themselves are never changed."""
    copy = list(tape)
    copy[0] = list(tape[0])
    return copy
