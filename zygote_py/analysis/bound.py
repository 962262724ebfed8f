"""Which values are variables that some path leaves unassigned.

Python lets a variable be assigned on only some paths (`else: y = ...` in a
loop that may `return` before the else ever ran); reading it before then
raises UnboundLocalError, and only then.  In the IR such a path carries an
`undef` op; the code generator asks here before it reads a variable for its
own purposes (a tape save), so that it does not raise where Python would not.
"""

from __future__ import annotations

from ..ir.core import Block, Value
from ..ir.ops import loop_layout
def may_be_unbound(value: Value, seen: set | None = None) -> bool:
    """Whether value is a variable that some path leaves unassigned (an `undef` reaches it)."""
    seen = set() if seen is None else seen
    if value.id in seen:
        return False
    seen.add(value.id)
    op = value.defining_op
    if op is not None:
        if op.opcode == "undef":
            return True
        if op.opcode == "if":
            k = op.results.index(value)
            return any(may_be_unbound(region.ops[-1].operands[k], seen) for region in op.regions
                       if region.ops and len(region.ops[-1].operands) > k)
        return False
    block = value.owner
    loop = block.parent if isinstance(block, Block) else None
    if loop is None or loop.opcode not in ("for", "while") or block is not loop.regions[-1]:
        return False
    layout = loop_layout(loop)
    if value not in layout.carried:
        return False
    k = layout.carried.index(value)
    return may_be_unbound(layout.inits[k], seen) or may_be_unbound(layout.yields[k], seen)
