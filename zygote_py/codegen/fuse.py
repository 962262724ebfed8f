"""Fusions of adjoint helper calls, made on the backward IR just before it is written out.

The adjoint builds a cotangent from small helpers, one per rule; a few pairs of them are
cheaper as one call.  Today one pair: the cotangent of a read `a[index]` scattered into
zeros (`_index_cotangent`) and added to the cotangent gathered so far (`accum`) becomes
`_add_index_cotangent(acc, g, a, index)`, which adds g into a copy of acc's region (an
LSTM's four gate slices, a stencil's three shifted reads).

Only for code that runs and is never read again: forward mode over a compiled gradient
(zp.hessian, forward_compiler.py) differentiates the helpers it meets, and the fused one
has no rule of its own, so the compiler asks for fusions exactly where it spills tapes.
"""

from __future__ import annotations

from ..analysis.purity import is_pure
from ..ir.builder import replace_op
from ..ir.core import Block, Op
from ..rules.indexing import _add_index_cotangent, _index_cotangent
from ..runtime import accum


def fuse_adjoint_helpers(backward: Block) -> None:
    """Rewrite every fusable pair in backward and the blocks nested in it, in place."""
    uses: dict[int, int] = {}
    for op in backward.walk():
        for value in op.operands:
            uses[value.id] = uses.get(value.id, 0) + 1
    for op in list(backward.walk()):
        if op.block is not None and _plain_call(op, accum) and len(op.operands) == 2:
            _fuse_index_accumulation(op, uses)


def _plain_call(op: Op, fn) -> bool:
    return op.opcode == "call" and op.attrs.get("fn") is fn and not op.attrs.get("kw") \
        and not op.attrs.get("star")


def _fuse_index_accumulation(op: Op, uses: dict[int, int]) -> None:
    """`t = _index_cotangent(g, a, index); r = accum(acc, t)` -> `r = _add_index_cotangent(acc,
    g, a, index)` where t is read by this accum alone, in the same block, with nothing but
    pure ops between (so computing t later reads the same values)."""
    acc, scattered = op.operands
    source = scattered.defining_op
    if source is None or source.block is not op.block or uses.get(scattered.id) != 1:
        return
    if not _plain_call(source, _index_cotangent) or len(source.operands) != 3:
        return
    ops = op.block.ops
    start, end = ops.index(source), ops.index(op)
    if start > end or not all(is_pure(between) for between in ops[start + 1:end]):
        return
    attrs = {**op.attrs, "fn": _add_index_cotangent, "expr": "add_index_cotangent"}
    replace_op(op, "call", [acc, *source.operands], attrs)
    del ops[start]
    source.block = None
