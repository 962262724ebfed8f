"""Running a backward loop's scalar arithmetic on Python floats (codegen/float_loops.py
says which loops may; these helpers decide, while running, whether this run does).

The generated code around such a loop reads:

    _zp_floats = float_loop(tape, steps, width, ..., x_bar) if _zp_refills else None
    if _zp_floats is not None:
        x_bar = float(x_bar)
    for _ in steps:
        if _zp_refills and len(tape) == 1:
            refill_tape(tape, _zp_floats)      # (runtime/tapes.py)
        ...                                    # a / b: divide_scalars where b is 0.0
    if _zp_floats is not None:
        x_bar = leave_float_loop(_zp_floats, x_bar)

`float_loop` answers only where the values prove it right: every carried cotangent is
a float64 scalar (or the Python float a gradient starts from, where codegen says it
settles), and each of the `len(steps) * width` values the loop pops is a float64
scalar or a Python float (float64 scalars only where a division reads the tape alone):
the ones still on the tape's list are checked one by one and converted there, those in
spilled blocks by their column kinds (a column of objects value by value).  The
blocks' values become Python floats as they are refilled, and only the loop's own: a
block that also holds values pushed before the loop gives those back as they were
saved.  Python floats and float64 scalars give the same bits for `+ - * /` and
negation; a division by zero, where NumPy gives inf or nan and Python raises, goes
through `divide_scalars`.  Python's arithmetic does not warn for an overflow or an
invalid operation: `leave_float_loop` warns once where a cotangent that entered
finite leaves as inf or nan (an overflow that the strong zero then dropped goes
unreported), and where NumPy's error modes ask it to raise (or call or log) the loop
runs on float64 scalars as before.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

_float64 = np.float64
_isfinite = math.isfinite


def float_loop(tape: list, steps, width: int, float64_pops: bool, divisions_read_tape: bool,
               settles: tuple, *carried) -> list | None:
    """Where the loop may run on Python floats, its state `[how many values of spilled
    blocks are still the loop's own (refill_tape converts those), whether every carried
    cotangent entered finite (leave_float_loop)]`, with the tape's list holding the loop's
    values converted already; else None.

    float64_pops: every value popped must be a float64 scalar (else Python floats may be
    among them); divisions_read_tape: every division reads a value popped; settles: per
    carried cotangent, whether its next value reads the tape.  A carried cotangent may
    start as a Python float (a gradient's 1.0) where it settles, the first iteration's
    values are float64 scalars and every division reads one: NumPy's run holds float64
    scalars from then on (codegen/float_loops.py)."""
    if type(steps) is not type(reversed(range(0))):  # (no module constant: aot/ copies this)
        return None
    budget = steps.__length_hint__() * width
    if budget == 0:
        return None
    starts_as_float = False
    for value, settled in zip(carried, settles):
        if type(value) is not _float64:
            if type(value) is not float or not settled:
                return None
            starts_as_float = True
    if not {"ignore", "warn"}.issuperset(np.geterr().values()):
        return None
    types, kinds = ((_float64,), ("float64",)) if float64_pops else \
        ((_float64, float), ("float64", "float"))
    end = len(tape)
    listed = min(budget, end - 1)
    start = end - listed
    for k in range(start, end):
        if type(tape[k]) not in types:
            return None
    need = budget - listed
    blocks = tape[0]
    k = len(blocks)
    while need > 0:
        k -= 1
        if k < 0:
            return None  # fewer values than the loop pops: it fails as it would have
        _, n, columns = blocks[k]
        for kind, column in columns:
            # a list of objects: a column of two float types (W1 called with a Python float
            # saves it first, float64 scalars after), whose values are checked one by one
            if kind not in kinds and (kind != "objects" or any(type(v) not in types for v in column)):
                return None
        need -= n
    if starts_as_float and not (divisions_read_tape and _first_values_float64(tape, width)):
        return None
    if listed:
        tape[start:end] = np.array(tape[start:end], dtype=_float64).tolist()
    return [budget - listed, all(_isfinite(value) for value in carried)]


def _first_values_float64(tape: list, width: int) -> bool:
    """Whether the width values the loop pops first (the tape's last) are float64 scalars."""
    listed = len(tape) - 1
    if listed >= width:
        return all(type(v) is _float64 for v in tape[listed + 1 - width:])
    if listed or not tape[0]:
        return False  # (a block holds whole iterations: not seen)
    block_width, _, columns = tape[0][-1]
    if block_width == 1:
        kind, column = columns[0]
        return kind == "float64" or (kind == "objects" and all(type(v) is _float64 for v in column[-width:]))
    return block_width == width and all(
        kind == "float64" or (kind == "objects" and type(column[-1]) is _float64) for kind, column in columns)


def leave_float_loop(floats: list, *values):
    """The carried cotangents after a loop run on Python floats: float64 scalars again, as
    NumPy's run leaves them (codegen/float_loops.py: every one is made from its own).

    Python's arithmetic does not warn where NumPy's does: where a cotangent that entered
    finite leaves as inf or nan and NumPy's error modes say "warn" for overflows or
    invalid values, a RuntimeWarning says so here, once for the loop."""
    out = tuple(_float64(v) if type(v) is float else v for v in values)
    if floats[1] and not all(_isfinite(v) for v in out):
        modes = np.geterr()
        if modes["over"] == "warn" or modes["invalid"] == "warn":
            warnings.warn("overflow or invalid value encountered in the scalar arithmetic of a "
                          "gradient's backward loop (zygote_py ran it on Python floats, which "
                          "do not warn for each operation)", RuntimeWarning, stacklevel=2)
    return out if len(out) != 1 else out[0]


def divide_scalars(a, b, floats):
    """`a / b` where the divisor is 0 in a loop that may run on Python floats: NumPy's
    quotient (inf or nan, with its warning) where the loop does, since its values are
    float64 scalars in NumPy's run; Python's own division (which raises) where not."""
    if floats is None:
        return a / b
    return _float64(a) / _float64(b)
