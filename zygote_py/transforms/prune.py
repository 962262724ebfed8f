"""Pruning loop slots that never change.

A loop slot whose body yields its own argument back holds its initial value
on every iteration, so its uses read the initial value instead and the slot
is removed.  `remove_loop_slots` is shared with dead-code removal.
"""

from __future__ import annotations

from ..ir.clone import replace_all_uses
from ..ir.core import Block, Function, Op, Value
from ..ir.ops import LOOPS, loop_layout


def prune_invariant_slots(block: Block, mapping: dict[int, Value]) -> bool:
    changed = False
    for op in block.ops:
        for region in op.regions:
            changed |= prune_invariant_slots(region, mapping)
        if op.opcode not in LOOPS:
            continue
        layout = loop_layout(op)
        keep = []
        for k in range(len(op.results)):
            arg = layout.carried[k]
            if layout.yields[k] is arg:
                init = layout.inits[k]
                mapping[arg.id] = init
                mapping[op.results[k].id] = init
                if layout.cond_args:
                    mapping[layout.cond_args[k].id] = init
                changed = True
            else:
                keep.append(k)
        if len(keep) != len(op.results):
            remove_loop_slots(op, keep)
    return changed


def remove_loop_slots(op: Op, keep: list[int]) -> None:
    """Keep only the carried slots in `keep` (indices into op.results)."""
    layout = loop_layout(op)
    lead = len(layout.targets)  # region arguments before the carried ones
    op.operands = layout.iterables + [layout.inits[k] for k in keep]
    op.results = [op.results[k] for k in keep]
    for i, region in enumerate(op.regions):
        region.args = region.args[:lead] + [region.args[lead + k] for k in keep]
        is_cond = op.opcode == "while" and i == 0
        if not is_cond:
            term = region.ops[-1]
            term.operands = [term.operands[k] for k in keep]
    if "exit" in op.attrs:
        op.attrs["exit"] = tuple(keep.index(k) for k in op.attrs["exit"] if k in keep)


def prune_pass(fn: Function) -> bool:
    mapping: dict[int, Value] = {}
    changed = prune_invariant_slots(fn.body, mapping)
    replace_all_uses(fn.body, mapping)
    return changed
