"""Adjoints of containers: tuple, list and dict literals, unpacking, list and dict
updates, and nested functions made as values (whose cotangent is a dict).

The cotangent of a container mirrors it: a tuple of cotangents for a tuple,
a list for a list, a dict for a dict, with None where an element got none.
"""

from __future__ import annotations

from ..runtime import helpers as runtime
from ..ir.core import Op, Value


class ContainerAdjoints:
    """Mixin of ReverseTransform."""

    def adjoint_closure(self, op: Op) -> None:
        """A nested function made here: its cotangent {name: bar} goes to the captured values."""
        g = self.bar(op.result)
        for name, operand in zip(op.attrs["names"], op.operands):
            if self.varied_operand(operand):
                part = self.call(runtime.item_cotangent, g, self.const(name), expr="_zp_item_cotangent")
                self.maybe_none.add(part.id)
                self.accumulate(operand, part)

    def adjoint_tuple(self, op: Op) -> None:
        self._adjoint_sequence(op)

    adjoint_list = adjoint_tuple

    def _adjoint_sequence(self, op: Op) -> None:
        g = self.bar(op.result)
        for i, operand in enumerate(op.operands):
            if self.varied_operand(operand):
                part = self.call(runtime.item_cotangent, g, self.const(i), expr="_zp_item_cotangent")
                self.maybe_none.add(part.id)
                self.accumulate(operand, part)

    def adjoint_dict(self, op: Op) -> None:
        g = self.bar(op.result)
        for key, value in zip(op.operands[::2], op.operands[1::2]):
            if self.varied_operand(value):
                part = self.call(runtime.item_cotangent, g, self.fetch(key), expr="_zp_item_cotangent")
                self.maybe_none.add(part.id)
                self.accumulate(value, part)

    def adjoint_unpack(self, op: Op) -> None:
        source = op.operands[0]
        if not self.varied_operand(source):
            return
        parts = []
        for result in op.results:
            bar = self.bar(result)
            parts.append(bar if bar is not None else self.const(None))
        packed = self.emit("tuple", parts).result
        star = op.attrs.get("star")
        value = self.call(runtime.unpack_cotangent, self.fetch(source), packed,
                          self.const(star), expr="_zp_unpack_cotangent")
        self.maybe_none.add(value.id)
        self.accumulate(source, value)

    def _split_nullness(self, g: Value, rest: Value, part: Value) -> None:
        """Splitting a container's cotangent: the rest is a container whenever g is set;
        the split-off part may still be None (an element nobody used)."""
        self.maybe_none.add(part.id)
        if g.id in self.maybe_none:
            self.maybe_none.add(rest.id)

    def adjoint_append(self, op: Op) -> None:
        container, item = op.operands
        g = self.bar(op.result)
        split = self.call(runtime.split_last, g, expr="_zp_split_last")
        unpack = self.emit("unpack", [split], 2, {"n": 2, "star": None})
        rest, last = unpack.results
        self._split_nullness(g, rest, last)
        if self.varied_operand(container):
            self.accumulate(container, rest)
        if self.varied_operand(item):
            self.accumulate(item, last)

    def adjoint_extend(self, op: Op) -> None:
        container, items = op.operands
        g = self.bar(op.result)
        pair = self.call(runtime.split_tail, g, self.fetch(items), expr="_zp_split_tail")
        unpack = self.emit("unpack", [pair], 2, {"n": 2, "star": None})
        rest, tail = unpack.results
        self._split_nullness(g, rest, tail)
        if self.varied_operand(container):
            self.accumulate(container, rest)
        if self.varied_operand(items):
            self.accumulate(items, tail)

    def adjoint_setitem(self, op: Op) -> None:
        container, key, value = op.operands
        g = self.bar(op.result)
        pair = self.call(runtime.split_key, g, self.fetch(key), expr="_zp_split_key")
        unpack = self.emit("unpack", [pair], 2, {"n": 2, "star": None})
        rest, item = unpack.results
        self._split_nullness(g, rest, item)
        if self.varied_operand(container):
            self.accumulate(container, rest)
        if self.varied_operand(value):
            self.accumulate(value, item)
