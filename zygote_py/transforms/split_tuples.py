"""Splitting tuple-valued branch results into one result per element.

An `if` result used only as r[0], r[1], ... becomes one result per element.
Rules often return a tuple of cotangents from inside a branch; splitting it
lets dead-code removal drop the cotangents nobody needs (an inactive
operand's matmul, say).  Each reader `r[i]` is removed and its uses read the
new result directly.
"""

from __future__ import annotations

import operator

from ..ir.builder import IRBuilder
from ..ir.clone import replace_all_uses
from ..ir.core import Block, Function, Op, Value
from .fold import NOT_CONST, const_value


def split_tuple_results(block: Block) -> bool:
    uses: dict[int, list[Op]] = {}
    for op in block.walk():
        for v in op.operands:
            uses.setdefault(v.id, []).append(op)
    forwarded: dict[int, Value] = {}
    changed = False
    for op in list(block.walk()):
        if op.opcode != "if":
            continue
        for k, result in enumerate(list(op.results)):
            readers = uses.get(result.id, [])
            indices = set()
            for reader in readers:
                key = const_value(reader.operands[1], NOT_CONST) if len(reader.operands) == 2 else NOT_CONST
                if not (reader.opcode == "call" and reader.attrs["fn"] is operator.getitem
                        and reader.operands[0] is result and type(key) is int and key >= 0):
                    break
                indices.add(key)
            else:
                if not readers:
                    continue
                tuples = [r.ops[-1].operands[k].defining_op for r in op.regions]
                # a branch yielding a tuple literal, or another if's result (which the
                # getitems inserted below then let the next round split in turn)
                if not any(t is not None and t.opcode in ("tuple", "if") for t in tuples):
                    continue
                new_results = _add_element_results(op, k, result, indices)
                for reader in readers:
                    forwarded[reader.result.id] = new_results[const_value(reader.operands[1])]
                    reader.block.ops.remove(reader)
                    reader.block = None
                changed = True
    replace_all_uses(block, forwarded)
    return changed


def _add_element_results(op: Op, k: int, result: Value, indices: set[int]) -> dict[int, Value]:
    """Give the branch one new result per index read, each branch yielding that element."""
    size = max(indices) + 1
    new_results = {}
    for i in sorted(indices):
        value = Value(result.hint, op)
        op.results.append(value)
        new_results[i] = value
        for region in op.regions:
            term = region.ops[-1]
            src = term.operands[k].defining_op
            if src is not None and src.opcode == "tuple" and len(src.operands) >= size:
                term.operands.append(src.operands[i])
            elif src is not None and (src.opcode == "undef" or (
                    src.opcode == "const" and src.attrs["value"] is None)):
                term.operands.append(term.operands[k])  # a path that returns nothing here
            else:  # index the yielded tuple just before the yield
                builder = IRBuilder(region, len(region.ops) - 1)
                term.operands.append(builder.call(operator.getitem, term.operands[k], builder.const(i),
                                                  expr="getitem"))
    return new_results


def split_tuples_pass(fn: Function) -> bool:
    return split_tuple_results(fn.body)
