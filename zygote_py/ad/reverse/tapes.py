"""Tapes: the forward values the adjoint reads from inside loops.

A value defined in a loop body changes every iteration, so the adjoint cannot
read it directly: the forward pushes it onto a tape (a Python list) and the
adjoint pops it in reverse.  Each forward region that saves anything has at
most two tapes: one for its block arguments, pushed as the region starts, and
one for values defined in it, pushed just before its terminator.

Tape placement is a step of its own.  While the adjoint is built it only asks
for a value (`Tapes.pop`), which records the need and returns the popped
value at once.  When the backward is complete, `Tapes.place` puts the pops at
the top of the backward regions that mirror the forward ones and the tapes'
openings at the top of the backward block; the augment step (augment.py)
asks `saves_at` and `entry_tapes` for the pushes and tape creations to write
into the forward function it builds.
"""

from __future__ import annotations

from ...ir.core import Block, Op, Value


class SaveRecord:
    """What one forward region pushes to its tapes, and where the adjoint pops it."""

    def __init__(self, region: Block):
        self.region = region
        self.start: list[Value] = []  # block arguments, pushed as the region starts
        self.end: list[Value] = []  # values defined in it, pushed as it ends
        self.pops: dict[str, Op] = {}  # "start" / "end" -> the backward's pop
        self.tapes: dict[str, Value] = {}  # "start" / "end" -> the forward's list


class Tapes:
    """The residuals one reverse transform saves, per forward region."""

    def __init__(self):
        self.records: dict[int, SaveRecord] = {}  # id(forward region) -> its record
        # (record, where, the backward's tape_open), in the order the tapes were asked for
        self.created: list[tuple[SaveRecord, str, Op]] = []

    def pop(self, value: Value, region: Block) -> Value:
        """value (defined in region, a loop body or inside one) as the adjoint pops it."""
        record = self.records.get(id(region))
        if record is None:
            record = self.records[id(region)] = SaveRecord(region)
        where = "start" if value in region.args else "end"
        (record.start if where == "start" else record.end).append(value)
        pop = record.pops.get(where)
        if pop is None:
            tape = Value("_zp_tape")  # made by a tape_new at the forward's entry (augment step)
            opened = Op("tape_open", [tape], 1, {}, (), None, hints=["_zp_tape"])
            pop = Op("tape_pop", [opened.result], 0, {}, (), None)
            record.pops[where] = pop
            record.tapes[where] = tape
            self.created.append((record, where, opened))
        popped = Value(value.hint, pop)
        pop.results.append(popped)
        return popped

    def place(self, backward: Block, mirror: dict[int, Block]) -> None:
        """Put each pop at the top of the backward region mirroring its forward region,
        and each tape's opening at the top of the backward block (latest first)."""
        for record, where, opened in self.created:
            mirror[id(record.region)].insert(0, record.pops[where])
            backward.insert(0, opened)

    def entry_tapes(self) -> list[Value]:
        """The tapes the forward makes at its entry, in the order it makes them."""
        return [record.tapes[where] for record, where, _ in reversed(self.created)]

    def saves_at(self, region: Block) -> tuple[tuple[Value, list[Value]] | None, ...]:
        """(tape, values) pushed as region starts and as it ends; None where nothing is."""
        record = self.records.get(id(region))
        if record is None:
            return None, None
        return tuple((record.tapes[where], values) if values else None
                     for where, values in (("start", record.start), ("end", record.end)))
