"""Which backward loops may run their scalar arithmetic on Python floats.

A backward loop of a scalar recurrence (W1's `x = np.sin(x) * x + ...`, a million
steps) multiplies and adds NumPy float64 scalars: 60-170 ns an operation, most of it
NumPy's scalar machinery (the operand conversion, the floating-point status check,
and the error-mode lookup when a flag is raised, as every operation on a subnormal
cotangent does), against 25 ns for Python floats.  The results are the same bits:
`+ - * /` and negation are IEEE operations on doubles either way.  What differs is
only what happens around them, so a loop may run on Python floats where nothing in
it can tell the two types apart:

  - its body is straight-line code of tape pops, constants (floats, and ints small
    enough to convert exactly), `+ - * /`, negation, `accum` (`a + b` for two numbers,
    as none of these is None) and the strong zero (`r if g else strong_zero(g, r)`,
    which keeps r's type), ending in the yield;
  - it reads nothing from outside but its carried cotangents and the tape (an
    array from outside would meet a Python float, which NumPy treats as a weak
    scalar: `2.0 * float32_array` stays float32, `np.float64(2) * ...` does not);
  - it walks `reversed(range(...))`, whose length says how many values it pops.

In NumPy's run a value is a float64 scalar exactly when one of the leaves it is made
from is one (a carried cotangent or a value popped; constants are Python numbers):
NumPy's arithmetic with a float64 scalar gives one, and the strong zero gives r's
type.  The plan records those leaves (`leaves` in float_loop_plan), so that the run on
Python floats can end as NumPy's would, and divide as NumPy's would:

  - every value yielded for the next iteration is made from its own carried cotangent:
    once a float64 scalar it stays one; where it is made from the tape as well, it is
    one after the first iteration if that iteration's values are (the cotangent a
    gradient starts from is a Python float, 1.0), else it must start as one (`settles`);
    the loop converts it back when it ends;
  - a division by zero gives inf or nan for float64 scalars and raises
    ZeroDivisionError for Python floats: the emitter writes each division by a value
    with a test of its divisor (runtime/float_loops.py: divide_scalars), and the run on
    Python floats takes NumPy's quotient, which is right where the division reads a
    float64 scalar in NumPy's run: always where it reads a cotangent (after the first
    iteration, and in the first where it also reads the tape: `divisions_read_tape`),
    and where it reads only the tape, only if every value popped is one
    (`float64_pops`).  A division by a nonzero constant needs no test; one by a zero
    constant, or by arithmetic on constants alone, keeps the loop on float64 scalars.

Whether the values are float64 scalars is decided while running, from the values
themselves (runtime/float_loops.py: float_loop); otherwise the same loop runs on the
values as they are.  Only in code the reverse compiler builds to run, whose long tapes
spill into typed blocks (codegen/emit.py): the loop is worth it only where a tape was
spilled, and forward mode reads the other kind of gradient code again.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

from ..ir.core import Op
from ..ir.intrinsics import scalar_strong_zero
from ..ir.ops import loop_layout
from ..runtime.helpers import accum, strong_zero

_ARITHMETIC = {operator.add: 2, operator.sub: 2, operator.mul: 2, operator.truediv: 2, operator.neg: 1}
_STRONG_ZEROS = (scalar_strong_zero, strong_zero)
_EXACT_INT = 1 << 53  # ints up to here convert to a float64 exactly (Python and NumPy alike)


@dataclass(frozen=True)
class FloatLoopPlan:
    """A backward loop that may run on Python floats: how many values an iteration pops,
    the pop that refills the tape, the divisions whose divisor the emitter tests, and
    what the run must find to start on floats (runtime/float_loops.py: float_loop)."""

    width: int
    first_pop: Op
    divisions: frozenset[int]  # ids of the truediv ops
    # a division reads only values popped (no cotangent): every value popped must then be
    # a float64 scalar, else Python floats (W1's first step saves the float it was called
    # with) may be among them
    float64_pops: bool
    # every division reads the tape (so in the first iteration, whose values are float64
    # scalars where a carried cotangent starts as a Python float, NumPy divides)
    divisions_read_tape: bool
    # per carried cotangent: whether the value yielded for it reads the tape (one that
    # does not, `y_bar` passed on as it is, must be a float64 scalar from the start)
    settles: tuple[bool, ...]


def float_loop_plan(op: Op) -> FloatLoopPlan | None:
    """The plan for a `for` op of a backward, or None where the loop must run as it is."""
    if op.opcode != "for" or op.attrs.get("kind") != "iter" or op.attrs.get("exit"):
        return None
    layout = loop_layout(op)
    if len(layout.iterables) != 1 or not _reversed_range(layout.iterables[0].defining_op):
        return None
    body = op.regions[0]
    if not layout.carried:
        return None  # no cotangent goes round the loop: nothing to run on floats
    read = _read_ids(body)
    if any(t.id in read for t in layout.targets):
        return None  # the loop reads its counter (an int meeting a float)
    carried = {arg.id: k for k, arg in enumerate(layout.carried)}
    # value id -> (carried indexes, True where a popped value) it is made from
    leaves: dict[int, tuple[frozenset[int], bool]] = {
        arg.id: (frozenset((k,)), False) for arg, k in zip(layout.carried, range(len(carried)))}
    width, first_pop, tape, divisions, settles = 0, None, None, set(), ()
    float64_pops, divisions_read_tape = False, True
    for inner in body.ops:
        if inner.regions:
            return None
        code = inner.opcode
        if code == "yield":
            for k, value in enumerate(inner.operands):
                if k not in leaves.get(value.id, (frozenset(), False))[0]:
                    return None  # (made from its own cotangent: a float64 scalar stays one)
            settles = tuple(leaves[value.id][1] for value in inner.operands)
            continue
        if code == "tape_pop":
            if tape is not None and inner.operands[0] is not tape:
                return None  # pops from two tapes: the values counted would not be one tape's
            tape = inner.operands[0]
            width += len(inner.results)
            if inner.attrs.get("first"):
                first_pop = inner
            for result in inner.results:
                leaves[result.id] = (frozenset(), True)
            continue
        if code == "const":
            if not _plain_number(inner.attrs.get("value")):
                return None
            leaves[inner.result.id] = (frozenset(), False)
            continue
        if code != "call" or inner.attrs.get("kw") or inner.attrs.get("star"):
            return None
        fn = inner.attrs.get("fn")
        if any(v.id not in leaves for v in inner.operands):
            return None  # a value from outside the loop
        if fn in _STRONG_ZEROS:
            if len(inner.operands) not in (2, 3):
                return None
            made_of = leaves[inner.operands[1].id]  # r's type
        elif _ARITHMETIC.get(fn) == len(inner.operands) or (fn is accum and len(inner.operands) == 2):
            parts = [leaves[v.id] for v in inner.operands]
            made_of = (frozenset().union(*(c for c, _ in parts)), any(t for _, t in parts))
        else:
            return None
        if fn is operator.truediv:
            if not made_of[0] and not made_of[1]:
                return None  # constants alone: Python's division, as written
            divisor = inner.operands[1]
            if leaves[divisor.id] == (frozenset(), False):
                # a divisor made of constants: a Python number in both runs (an int, where
                # the test of a float divisor would not look); a nonzero constant needs none
                source = divisor.defining_op
                if source is None or source.opcode != "const" or not source.attrs.get("value"):
                    return None
            else:
                divisions.add(id(inner))
                float64_pops = float64_pops or not made_of[0]
                divisions_read_tape = divisions_read_tape and made_of[1]
        leaves[inner.result.id] = made_of
    if width == 0 or first_pop is None:
        return None
    return FloatLoopPlan(width, first_pop, frozenset(divisions), float64_pops, divisions_read_tape,
                         settles)


def _reversed_range(op: Op | None) -> bool:
    """Whether op makes `reversed(range(...))` (a range iterator, whose length is exact)."""
    if op is None or op.opcode != "call" or op.attrs.get("fn") is not reversed or len(op.operands) != 1:
        return False
    inner = op.operands[0].defining_op
    return inner is not None and inner.opcode == "call" and inner.attrs.get("fn") is range


def _plain_number(value) -> bool:
    kind = type(value)
    return kind is float or (kind is int and -_EXACT_INT <= value <= _EXACT_INT)


def _read_ids(body) -> set[int]:
    return {v.id for inner in body.walk() for v in inner.operands}
