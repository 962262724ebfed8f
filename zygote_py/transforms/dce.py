"""Dead-code removal: mark and sweep.

Marking starts from the return value and every effectful op; a live op marks
its operands and its enclosing op.  A branch or loop slot lives only if
something live reads it (a loop's exit slots always do), so unused slots are
removed from branches and loops too, not just whole ops.
"""

from __future__ import annotations

from ..analysis.purity import is_pure
from ..ir.core import Block, Function, Op, Value
from ..ir.ops import LOOPS, TERMINATORS, loop_layout
from .prune import remove_loop_slots


def dce(fn: Function) -> bool:
    live_ops: set[int] = set()
    live_vals: set[int] = set()
    live_slots: set[tuple[int, int]] = set()
    work: list = []

    def mark_val(value: Value) -> None:
        if value.id not in live_vals:
            live_vals.add(value.id)
            work.append(("val", value))

    def mark_op(op: Op) -> None:
        if id(op) not in live_ops:
            live_ops.add(id(op))
            work.append(("op", op))

    def mark_slot(op: Op, k: int) -> None:
        if (id(op), k) not in live_slots:
            live_slots.add((id(op), k))
            layout = loop_layout(op)
            mark_val(layout.inits[k])
            mark_val(layout.yields[k])
            mark_op(op)

    for op in fn.walk():
        if op.opcode == "return" or op.opcode not in ("yield",) and not is_pure(op):
            mark_op(op)

    while work:
        kind, item = work.pop()
        if kind == "op":
            op = item
            if op.opcode != "yield":
                if op.opcode in LOOPS:
                    for v in loop_layout(op).iterables:
                        mark_val(v)
                    for k in op.attrs.get("exit", ()):
                        mark_slot(op, k)
                    if op.opcode == "while":
                        mark_val(op.regions[0].ops[-1].operands[0])
                elif op.opcode == "if":
                    mark_val(op.operands[0])
                else:
                    for v in op.operands:
                        mark_val(v)
            parent = op.block.parent if op.block is not None else None
            if parent is not None:
                mark_op(parent)
        else:
            value = item
            owner = value.owner
            if isinstance(owner, Op):
                if owner.opcode == "if":
                    k = owner.results.index(value)
                    for region in owner.regions:
                        mark_val(region.ops[-1].operands[k])
                    mark_op(owner)
                elif owner.opcode in LOOPS:
                    mark_slot(owner, owner.results.index(value))
                else:
                    mark_op(owner)
            elif isinstance(owner, Block) and owner.parent is not None and owner.parent.opcode in LOOPS:
                loop = owner.parent
                index = owner.args.index(value) - len(loop_layout(loop).targets)
                if index >= 0:
                    mark_slot(loop, index)
                else:  # a for loop's target: live with the loop
                    mark_op(loop)

    changed = False

    def sweep(block: Block) -> None:
        nonlocal changed
        kept = []
        for op in block.ops:
            if op.opcode in TERMINATORS or id(op) in live_ops:
                kept.append(op)
                for region in op.regions:
                    sweep(region)
                if op.opcode == "if":
                    keep = [k for k, r in enumerate(op.results) if r.id in live_vals]
                    if len(keep) != len(op.results):
                        op.results = [op.results[k] for k in keep]
                        for region in op.regions:
                            term = region.ops[-1]
                            term.operands = [term.operands[k] for k in keep]
                        changed = True
                elif op.opcode in LOOPS:
                    keep = [k for k in range(len(op.results)) if (id(op), k) in live_slots]
                    if len(keep) != len(op.results):
                        remove_loop_slots(op, keep)
                        changed = True
            else:
                changed = True
        block.ops = kept

    sweep(fn.body)
    return changed
