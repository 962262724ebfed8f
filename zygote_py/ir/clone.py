"""Copying IR with values substituted: how rule bodies are spliced into adjoints."""

from __future__ import annotations

from .core import Block, Op, Value


def clone_op(op: Op, vmap: dict[int, Value]) -> Op:
    """A copy of op (and its regions) with operands looked up in vmap; results are mapped too."""
    regions = [clone_block(region, vmap) for region in op.regions]
    new = Op(op.opcode, [vmap.get(v.id, v) for v in op.operands], len(op.results), op.attrs,
             regions, op.loc, hints=[r.hint for r in op.results])
    for old, result in zip(op.results, new.results):
        vmap[old.id] = result
    return new


def clone_block(block: Block, vmap: dict[int, Value]) -> Block:
    new = Block([a.hint for a in block.args])
    for old, arg in zip(block.args, new.args):
        vmap[old.id] = arg
    for op in block.ops:
        new.append(clone_op(op, vmap))
    return new


def replace_uses(block: Block, old: Value, new: Value) -> None:
    for op in block.walk():
        op.operands = [new if v is old else v for v in op.operands]


def replace_all_uses(block: Block, mapping: dict[int, Value]) -> None:
    if not mapping:
        return
    for op in block.walk():
        op.operands = [_resolve(mapping, v) for v in op.operands]


def _resolve(mapping, value):
    seen = 0
    while value.id in mapping and seen < 1000:
        value = mapping[value.id]
        seen += 1
    return value
