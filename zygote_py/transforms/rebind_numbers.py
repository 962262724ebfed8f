"""`n += 1` on a number is a plain rebinding: the in-place form goes away.

Lowering writes `y op= v` as `y = augmented_write(y, y op v)` (runtime/writes.py),
which writes into y when it is an ndarray and is therefore never dropped as
dead code.  Where y is certainly a Python number (a counter started at a
literal, a float accumulator: analysis/scalars.py, with no assumption about the
arguments), the call is replaced by `y op v` itself, so unused counters
disappear and the generated code reads as the user wrote it.
"""

from __future__ import annotations

from ..analysis.scalars import scalar_values
from ..ir.clone import replace_all_uses
from ..ir.core import Function
from ..runtime.writes import augmented_write


def rebind_numbers_pass(fn: Function) -> bool:
    writes = [op for op in fn.walk()
              if op.opcode == "call" and op.attrs["fn"] is augmented_write]
    if not writes:
        return False
    scalars = scalar_values(fn, [False] * len(fn.params))
    mapping = {}
    for op in writes:
        if op.operands[0].id in scalars:
            mapping[op.result.id] = op.operands[1]
            if not op.operands[1].hint:
                op.operands[1].hint = op.result.hint
            op.block.ops.remove(op)
    replace_all_uses(fn.body, mapping)
    return bool(mapping)
