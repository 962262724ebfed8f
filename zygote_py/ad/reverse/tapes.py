"""Tapes: the forward values the adjoint reads from inside loops.

A value defined in a loop body changes every iteration, so the adjoint cannot
read it directly: the forward pushes it onto a tape and the adjoint pops it in
reverse.  Each forward region that saves anything has one tape.  Its block
arguments are pushed as the region starts (later in the region the variable may
already hold the next iteration's value) and the values defined in it just
before its terminator; the backward pops the second group first, then the
first, so one last-in-first-out list serves both.

Tape placement is a step of its own.  While the adjoint is built it only asks
for a value (`Tapes.pop`), which records the need and returns the popped
value at once.  When the backward is complete, `Tapes.place` puts the pops at
the top of the backward regions that mirror the forward ones (the "end" pop
first) and the tapes' openings at the top of the backward block; the augment
step (augment.py) asks `saves_at` and `entry_tapes` for the pushes and tape
creations to write into the forward function it builds.

How a tape stores its values (a list of values, spilled into typed blocks when
it grows long) is the code generator's business: `codegen/emit.py` and
`runtime/tapes.py`.  The push that ends a region's saves is marked `last` (with
the number of values the region pushes per iteration) and the pop that begins a
backward region's reads `first`: that is where a long tape is spilled and
refilled, always on an iteration's boundary.
"""

from __future__ import annotations

from ...ir.core import Block, Op, Value


class SaveRecord:
    """What one forward region pushes to its tape, and where the adjoint pops it."""

    def __init__(self, region: Block):
        self.region = region
        self.start: list[Value] = []  # block arguments, pushed as the region starts
        self.end: list[Value] = []  # values defined in it, pushed as it ends
        self.pops: dict[str, Op] = {}  # "start" / "end" -> the backward's pop
        self.tape: Value | None = None  # the forward's tape (made by a tape_new at entry)
        self.opened: Op | None = None  # the backward's tape_open


class Tapes:
    """The residuals one reverse transform saves, per forward region."""

    def __init__(self):
        self.records: dict[int, SaveRecord] = {}  # id(forward region) -> its record
        self.created: list[SaveRecord] = []  # in the order the tapes were asked for

    def pop(self, value: Value, region: Block) -> Value:
        """value (defined in region, a loop body or inside one) as the adjoint pops it."""
        record = self.records.get(id(region))
        if record is None:
            record = self.records[id(region)] = SaveRecord(region)
            record.tape = Value("_zp_tape")
            record.opened = Op("tape_open", [record.tape], 1, {}, (), None, hints=["_zp_tape"])
            self.created.append(record)
        where = "start" if value in region.args else "end"
        (record.start if where == "start" else record.end).append(value)
        pop = record.pops.get(where)
        if pop is None:
            pop = record.pops[where] = Op("tape_pop", [record.opened.result], 0, {}, (), None)
        popped = Value(value.hint, pop)
        pop.results.append(popped)
        return popped

    def place(self, backward: Block, mirror: dict[int, Block]) -> None:
        """Put each region's pops at the top of the backward region mirroring it (what was
        pushed last first) and each tape's opening at the top of the backward block."""
        for record in self.created:
            pops = [record.pops[w] for w in ("end", "start") if w in record.pops]
            pops[0].attrs = {"first": True}
            target = mirror[id(record.region)]
            for pop in reversed(pops):
                target.insert(0, pop)
            backward.insert(0, record.opened)

    def entry_tapes(self) -> list[Value]:
        """The tapes the forward makes at its entry, in the order it makes them."""
        return [record.tape for record in reversed(self.created)]

    def saves_at(self, region: Block) -> tuple[tuple[Value, list[Value]] | None, ...]:
        """(tape, values) pushed as region starts and as it ends; None where nothing is.
        The tape is the region's one tape; the push that comes last is marked `last`."""
        record = self.records.get(id(region))
        if record is None:
            return None, None
        return tuple((record.tape, values) if values else None
                     for values in (record.start, record.end))
