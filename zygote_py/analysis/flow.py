"""Forward propagation of a property of values through structured IR.

Activity (activity.py: "depends differentiably on the inputs") and complexity
(complexity.py: "may hold a complex value") are the same computation: start
from a set of marked values, mark the results of every op the property's
`op_marks(op)` says it reaches, carry marks out of `if` branches into their
merged results and around loops through their carried values and iteration
targets, and repeat to a fixed point.  `propagate` is that computation once.
"""

from __future__ import annotations

from collections.abc import Callable

from ..ir.core import Block, Function, Op, iteration_pairs
from ..ir.ops import loop_layout


def propagate(fn: Function, marked: set[int], op_marks: Callable[[Op], bool]) -> set[int]:
    """marked (value ids), grown to its fixed point over fn; op_marks(op) says whether an
    op other than if/for/while marks its results (it may read `marked`)."""

    def visit(block: Block) -> bool:
        changed = False
        for op in block.ops:
            code = op.opcode
            if code == "if":
                for region in op.regions:
                    changed |= visit(region)
                for k, result in enumerate(op.results):
                    if result.id not in marked and any(
                            r.ops[-1].operands[k].id in marked for r in op.regions):
                        marked.add(result.id)
                        changed = True
            elif code in ("for", "while"):
                changed |= visit_loop(op)
            elif op.results and op_marks(op):
                for result in op.results:
                    if result.id not in marked:
                        marked.add(result.id)
                        changed = True
        return changed

    def visit_loop(op: Op) -> bool:
        changed = False
        layout = loop_layout(op)
        if op.opcode == "for":
            for iterable, target in iteration_pairs(op):
                if iterable.id in marked and target.id not in marked:
                    marked.add(target.id)
                    changed = True
        for _ in range(len(op.results) + 2):
            step = False
            for k, result in enumerate(op.results):
                if layout.inits[k].id in marked or layout.yields[k].id in marked:
                    for value in (result, layout.carried[k], *layout.cond_args[k:k + 1]):
                        if value.id not in marked:
                            marked.add(value.id)
                            step = True
            for region in op.regions:
                step |= visit(region)
            changed |= step
            if not step:
                break
        return changed

    while visit(fn.body):
        pass
    return marked
