"""Constant folding and forwarding.

Calls of pure operators on constants are evaluated; an `if` on a constant
keeps one branch; results that every branch yields alike are forwarded;
unpacking or indexing a tuple literal forwards the element.  Rule bodies lean
on folding: `if b == 2:` with a constant exponent disappears.

A folded op is replaced by a new `const` op that takes over its result
values (ir/builder.replace_op); a forwarded op is removed once its results
are mapped to the values they forward.
"""

from __future__ import annotations

import builtins
import operator

from ..analysis.purity import is_constant_foldable
from ..ir.builder import replace_op
from ..ir.clone import replace_all_uses
from ..ir.core import Block, Function, Op, Value

_PLAIN = (bool, int, float, complex, str, slice, type(None), type(Ellipsis))


def _is_plain(value) -> bool:
    if isinstance(value, tuple):
        return all(_is_plain(v) for v in value)
    return isinstance(value, _PLAIN)


def _is_type_spec(value) -> bool:
    if isinstance(value, type):
        return True
    return isinstance(value, tuple) and value != () and all(isinstance(t, type) for t in value)


def const_value(value: Value, default=None):
    op = value.defining_op
    if op is not None and op.opcode == "const":
        return op.attrs["value"]
    return default


NOT_CONST = object()
_FORWARDED = "forwarded"  # every result of the op now maps to another value: remove it


def _make_const(op: Op, value) -> None:
    replace_op(op, "const", (), {"value": value})


def fold(block: Block, mapping: dict[int, Value]) -> bool:
    """Fold block (and its regions) in place; values to forward go into mapping,
    which the caller applies (ir.clone.replace_all_uses)."""
    changed = False
    index = 0
    while index < len(block.ops):
        op = block.ops[index]
        for region in op.regions:
            changed |= fold(region, mapping)
        operands = [mapping.get(v.id, v) for v in op.operands]
        op.operands = operands
        outcome = False
        if op.opcode == "call" and not op.attrs.get("kw") and not op.attrs.get("star") \
                and is_constant_foldable(op.attrs["fn"]):
            values = [const_value(v, NOT_CONST) for v in operands]
            if all(v is not NOT_CONST and _is_plain(v) for v in values):
                try:
                    result = op.attrs["fn"](*values)
                except Exception:  # leave it for run time, where it raises as in Python
                    result = NOT_CONST
                if result is not NOT_CONST and _is_plain(result):
                    _make_const(op, result)
                    outcome = True
            elif op.attrs["fn"] is operator.getitem:
                outcome = _forward_getitem(op, operands, mapping)
            elif op.attrs["fn"] is builtins.isinstance and len(values) == 2 \
                    and values[0] is not NOT_CONST and _is_plain(values[0]) and _is_type_spec(values[1]):
                _make_const(op, isinstance(values[0], values[1]))
                outcome = True
        elif op.opcode == "unpack" and op.attrs.get("star") is None:
            outcome = _forward_unpack(op, operands[0], mapping)
        elif op.opcode == "if":
            cond = const_value(operands[0], NOT_CONST)
            if cond is not NOT_CONST:
                branch = op.regions[0] if cond else op.regions[1]
                yields = branch.ops[-1].operands
                inner = branch.ops[:-1]
                for k, result in enumerate(op.results):
                    mapping[result.id] = mapping.get(yields[k].id, yields[k])
                del block.ops[index]
                for offset, moved in enumerate(inner):
                    block.insert(index + offset, moved)
                changed = True
                continue
            outcome = _forward_same_yields(op, mapping)
        if outcome == _FORWARDED:
            del block.ops[index]
            op.block = None
            changed = True
            continue
        changed |= bool(outcome)
        index += 1
    return changed


def _forward_getitem(op, operands, mapping):
    container, key = operands
    src = container.defining_op
    k = const_value(key, NOT_CONST)
    if src is None or type(k) is not int or src.opcode not in ("tuple",):
        if src is not None and src.opcode == "const" and isinstance(src.attrs["value"], tuple) \
                and type(k) is int:
            try:
                item = src.attrs["value"][k]
            except IndexError:
                return False
            _make_const(op, item)
            return True
        return False
    if -len(src.operands) <= k < len(src.operands):
        mapping[op.result.id] = src.operands[k]
        return _FORWARDED
    return False


def _forward_unpack(op, source, mapping):
    src = source.defining_op
    if src is None:
        return False
    if src.opcode == "tuple" and len(src.operands) == len(op.results):
        for result, value in zip(op.results, src.operands):
            mapping[result.id] = value
        return _FORWARDED
    return False


def _forward_same_yields(op: Op, mapping) -> bool:
    then_yield, else_yield = (r.ops[-1].operands for r in op.regions)
    changed = False
    for k, result in enumerate(op.results):
        a, b = then_yield[k], else_yield[k]
        if a is b and result.id not in mapping:
            mapping[result.id] = a
            changed = True
    return changed


def fold_pass(fn: Function) -> bool:
    """fold over a whole function, forwarded values substituted."""
    mapping: dict[int, Value] = {}
    changed = fold(fn.body, mapping)
    replace_all_uses(fn.body, mapping)
    return changed
