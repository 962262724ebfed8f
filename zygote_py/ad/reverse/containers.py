"""Adjoints of containers: tuple, list and dict literals, unpacking, list and dict
updates, and nested functions made as values (whose cotangent is a dict).

The cotangent of a container mirrors it: a tuple of cotangents for a tuple,
a list for a list, a dict for a dict, with None where an element got none.
"""

from __future__ import annotations

from ...ir.core import Function, Op, Value
from ...runtime import helpers as runtime
from ...runtime.containers import dict_update, note_derived_key, note_derived_keys_of
from .adjoint import AdjointBuilder, adjoint_of
from .augment import OperandOf


@adjoint_of("closure")
def adjoint_closure(builder: AdjointBuilder, op: Op) -> None:
    """A nested function made here: its cotangent {name: bar} goes to the captured values."""
    g = builder.bar(op.result)
    for name, operand in zip(op.attrs["names"], op.operands):
        if builder.varied_operand(operand):
            part = builder.call(runtime.item_cotangent, g, builder.const(name),
                                expr="_zp_item_cotangent")
            builder.maybe_none.add(part.id)
            builder.accumulate(operand, part)


@adjoint_of("tuple", "list")
def adjoint_tuple(builder: AdjointBuilder, op: Op) -> None:
    _adjoint_sequence(builder, op)


def _adjoint_sequence(builder: AdjointBuilder, op: Op) -> None:
    g = builder.bar(op.result)
    for i, operand in enumerate(op.operands):
        if builder.varied_operand(operand):
            part = builder.call(runtime.item_cotangent, g, builder.const(i),
                                expr="_zp_item_cotangent")
            builder.maybe_none.add(part.id)
            builder.accumulate(operand, part)


@adjoint_of("dict")
def adjoint_dict(builder: AdjointBuilder, op: Op) -> None:
    g = builder.bar(op.result)
    for key, value in zip(op.operands[::2], op.operands[1::2]):
        if builder.varied_operand(value):
            part = builder.call(runtime.item_cotangent, g, builder.fetch(key),
                                expr="_zp_item_cotangent")
            builder.maybe_none.add(part.id)
            builder.accumulate(value, part)


@adjoint_of("unpack")
def adjoint_unpack(builder: AdjointBuilder, op: Op) -> None:
    source = op.operands[0]
    if not builder.varied_operand(source):
        return
    parts = []
    for result in op.results:
        bar = builder.bar(result)
        parts.append(bar if bar is not None else builder.const(None))
    packed = builder.emit("tuple", parts).result
    star = op.attrs.get("star")
    value = builder.call(runtime.unpack_cotangent, builder.fetch(source), packed,
                         builder.const(star), expr="_zp_unpack_cotangent")
    builder.maybe_none.add(value.id)
    builder.accumulate(source, value)


def _split_nullness(builder: AdjointBuilder, g: Value, rest: Value, part: Value) -> None:
    """Splitting a container's cotangent: the rest is a container whenever g is set;
    the split-off part may still be None (an element nobody used)."""
    builder.maybe_none.add(part.id)
    if g.id in builder.maybe_none:
        builder.maybe_none.add(rest.id)


@adjoint_of("append")
def adjoint_append(builder: AdjointBuilder, op: Op) -> None:
    container, item = op.operands
    g = builder.bar(op.result)
    split = builder.call(runtime.split_last, g, expr="_zp_split_last")
    unpack = builder.emit("unpack", [split], 2, {"n": 2, "star": None})
    rest, last = unpack.results
    _split_nullness(builder, g, rest, last)
    if builder.varied_operand(container):
        builder.accumulate(container, rest)
    if builder.varied_operand(item):
        builder.accumulate(item, last)


@adjoint_of("extend")
def adjoint_extend(builder: AdjointBuilder, op: Op) -> None:
    container, items = op.operands
    g = builder.bar(op.result)
    pair = builder.call(runtime.split_tail, g, builder.fetch(items), expr="_zp_split_tail")
    unpack = builder.emit("unpack", [pair], 2, {"n": 2, "star": None})
    rest, tail = unpack.results
    _split_nullness(builder, g, rest, tail)
    if builder.varied_operand(container):
        builder.accumulate(container, rest)
    if builder.varied_operand(items):
        builder.accumulate(items, tail)


@adjoint_of("setitem")
def adjoint_setitem(builder: AdjointBuilder, op: Op) -> None:
    container, key, value = op.operands
    g = builder.bar(op.result)
    pair = builder.call(runtime.split_key, g, builder.fetch(key), expr="_zp_split_key")
    unpack = builder.emit("unpack", [pair], 2, {"n": 2, "star": None})
    rest, item = unpack.results
    _split_nullness(builder, g, rest, item)
    if builder.varied_operand(container):
        builder.accumulate(container, rest)
    if builder.varied_operand(value):
        builder.accumulate(value, item)


def note_derived_keys(fn: Function, varied: set[int], plan) -> None:
    """A dict key that may carry a derivative (`{v: i for i, v in enumerate(x)}`,
    `dict(zip(x, ys))`) would lose it: a dict's cotangent holds its values' only, and the
    keys' are dropped where they are read back (rules/iterators.py, runtime.accum_item).
    The forward notes such float keys while running (runtime/containers.note_derived_key),
    and the backward refuses a derivative that reaches one of them.  Varied is wider than
    "carries a derivative" (every attribute read of an object is varied), so the decision
    waits for the key being read back and its derivative being nonzero."""
    for op in fn.walk():
        if op.opcode == "dict":
            for k, key in enumerate(op.operands[::2]):
                if key.id in varied:
                    plan.check_after(op, note_derived_key, [OperandOf(2 * k)])
        elif op.opcode == "setitem" and op.operands[1].id in varied:
            plan.check_after(op, note_derived_key, [OperandOf(1)])
        elif op.opcode == "call" and _builds_keys(op.attrs.get("fn")) and \
                any(v.id in varied for v in op.operands):
            plan.check_after(op, note_derived_keys_of, [])


def _builds_keys(fn) -> bool:
    """Calls whose result is a dict that may take its keys from the operands."""
    return fn is dict or fn is _FROMKEYS or fn is dict_update


_FROMKEYS = dict.fromkeys
