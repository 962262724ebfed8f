"""Fusions of adjoint helper calls, made on the backward IR just before it is written out.

The adjoint builds a cotangent from small helpers, one per rule; a few pairs of them are
cheaper as one call.  Today one pair: the cotangent of a read `a[index]` scattered into
zeros (`_index_cotangent`) and added to the cotangent gathered so far (`accum`) becomes
`_add_index_cotangent(acc, g, a, index, last_read)`, which adds g into acc's region (an
LSTM's four gate slices, a stencil's three shifted reads): no array of zeros, no sum.

`last_read` says the generated code never reads acc's value after this call, on any
path (`_is_last_read`).  The helper then adds in place when, besides, nothing else holds
the array at run time (its reference count, as `overwritten_cotangent` decides); else it
adds into a copy.  So no other value can see the write.  The count proves it only for an
accumulator written in the call as a local variable: the emitter writes the flag False
where the accumulator is an expression (an item or attribute read, a global: what a
container or object holds once counts as one variable would; codegen/emit.py).

Only in code the reverse compiler builds to run (where it also spills tapes): gradients
compiled for forward mode to read again (zp.hessian, forward_compiler.py) keep the two
calls and their rules.  The fused helper has rules too (rules/rule_helpers.py), for
generated code that is differentiated all the same (a gradient function called from a
function being differentiated).
"""

from __future__ import annotations

import operator

from ..analysis.purity import is_pure
from ..ir.builder import IRBuilder, replace_op
from ..ir.core import Block, Op, Value
from ..rules.indexing import _add_index_cotangent, _index_cotangent
from ..runtime import accum
from ..runtime.helpers import strong_times, strong_zero, summed_strong_times, unbroadcast


def fuse_adjoint_helpers(backward: Block) -> None:
    """Rewrite every fusable pair in backward and the blocks nested in it, in place."""
    readers: dict[int, list[Op]] = {}
    for op in backward.walk():
        for value in op.operands:
            readers.setdefault(value.id, []).append(op)
    for op in list(backward.walk()):
        if op.block is not None and _plain_call(op, accum) and len(op.operands) == 2:
            _fuse_index_accumulation(op, readers)
        elif op.block is not None and _plain_call(op, strong_zero) and len(op.operands) == 2:
            _fuse_strong_product(op, readers)
        elif op.block is not None and _plain_call(op, unbroadcast) and len(op.operands) == 2:
            _fuse_summed_product(op, readers)


def _plain_call(op: Op, fn) -> bool:
    return op.opcode == "call" and op.attrs.get("fn") is fn and not op.attrs.get("kw") \
        and not op.attrs.get("star")


def _fuse_index_accumulation(op: Op, readers: dict[int, list[Op]]) -> None:
    """`t = _index_cotangent(g, a, index); r = accum(acc, t)` -> `r = _add_index_cotangent(acc,
    g, a, index, last_read)` where t is read by this accum alone, in the same block, with
    nothing but pure ops between (so computing t later reads the same values)."""
    acc, scattered = op.operands
    source = scattered.defining_op
    if source is None or source.block is not op.block or len(readers.get(scattered.id, ())) != 1:
        return
    if not _plain_call(source, _index_cotangent) or len(source.operands) != 3:
        return
    ops = op.block.ops
    start, end = ops.index(source), ops.index(op)
    if start > end or not all(is_pure(between) for between in ops[start + 1:end]):
        return
    last_read = IRBuilder(op.block, end, op.loc).const(_is_last_read(acc, op, readers))
    attrs = {**op.attrs, "fn": _add_index_cotangent, "expr": "add_index_cotangent"}
    fused = replace_op(op, "call", [acc, *source.operands, last_read], attrs)
    readers.setdefault(last_read.id, []).append(fused)
    for value in (acc, *source.operands):
        readers[value.id] = [fused if r is op or r is source else r for r in readers[value.id]]
    del ops[ops.index(source)]
    source.block = None


def _fuse_strong_product(op: Op, readers: dict[int, list[Op]]) -> None:
    """`r = g * p; s = strong_zero(g, r)` -> `s = strong_times(g, p)` where r is read by this
    strong_zero alone, in the same block, with nothing but pure ops between: the same
    value (strong_times computes g * p and applies the strong zero to it), and where p is
    a finite number no pass over the product at all (runtime/helpers.py: strong_times)."""
    g, product = op.operands
    source = product.defining_op
    if source is None or source.block is not op.block or len(readers.get(product.id, ())) != 1:
        return
    if not _plain_call(source, operator.mul) or len(source.operands) != 2 \
            or source.operands[0] is not g:
        return
    ops = op.block.ops
    start, end = ops.index(source), ops.index(op)
    if start > end or not all(is_pure(between) for between in ops[start + 1:end]):
        return
    factor = source.operands[1]
    attrs = {**op.attrs, "fn": strong_times, "expr": "strong_times"}
    fused = replace_op(op, "call", [g, factor], attrs)
    for value in (g, factor):
        readers[value.id] = [fused if r is op or r is source else r for r in readers[value.id]]
    del ops[ops.index(source)]
    source.block = None


def _fuse_summed_product(op: Op, readers: dict[int, list[Op]]) -> None:
    """`s = strong_times(g, p); t = unbroadcast(s, x)` -> `t = summed_strong_times(g, p, x)`
    where s is read by this unbroadcast alone, in the same block, with nothing but pure ops
    between: the same value; where x is a number (`c * u`'s c) and g, p float64 arrays of
    one shape, their dot product, with no product array (runtime/helpers.py)."""
    product, like = op.operands
    source = product.defining_op
    if source is None or source.block is not op.block or len(readers.get(product.id, ())) != 1:
        return
    if not _plain_call(source, strong_times) or len(source.operands) != 2:
        return
    ops = op.block.ops
    start, end = ops.index(source), ops.index(op)
    if start > end or not all(is_pure(between) for between in ops[start + 1:end]):
        return
    g, factor = source.operands
    attrs = {**op.attrs, "fn": summed_strong_times, "expr": "summed_strong_times"}
    fused = replace_op(op, "call", [g, factor, like], attrs)
    for value in (g, factor, like):
        readers[value.id] = [fused if r is op or r is source else r for r in readers[value.id]]
    del ops[ops.index(source)]
    source.block = None


def _ancestry(op: Op) -> list[tuple[Block, Op]]:
    """(block, the op of that block that is or holds op), from op's own block outwards."""
    out = []
    while op is not None and op.block is not None:
        out.append((op.block, op))
        op = op.block.parent
    return out


def _is_last_read(value: Value, op: Op, readers: dict[int, list[Op]]) -> bool:
    """Whether no op reads value after op runs, on any path: every other reader runs
    before op in a block that holds both, or in another branch of an `if` that holds op;
    and no loop lies between value's definition and op (the next iteration would read it
    again).  False where unsure."""
    home = value.owner if isinstance(value.owner, Block) else getattr(value.owner, "block", None)
    chain = _ancestry(op)
    holder: dict[int, Op] = {}
    for block, held in chain:
        holder[id(block)] = held
        if block is home:
            break
        if block.parent is None or block.parent.opcode != "if":
            return False  # a loop (or a function) between the definition and op
    else:
        return False  # value is not defined in a block that holds op
    for reader in readers.get(value.id, ()):
        if reader is op:
            continue
        for block, held in _ancestry(reader):
            if id(block) in holder:
                mine = holder[id(block)]
                if held is mine:
                    # the same `if` holds both (op in one branch, reader in the other or
                    # reading value as its condition, before either branch runs)
                    if held.opcode != "if":
                        return False
                elif block.ops.index(held) > block.ops.index(mine):
                    return False  # read after op
                break
        else:
            return False
    return True
