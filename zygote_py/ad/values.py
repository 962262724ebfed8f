"""Facts about adjoint values shared by the reverse-transform modules."""

from __future__ import annotations

import operator

import numpy as np

from ..runtime import helpers as runtime
from ..ir.core import Value
from ..ir.intrinsics import scalar_strong_zero

# results of these are numbers or arrays, so two of them add with a plain `+`
NUMERIC_OPERATORS = {operator.add, operator.sub, operator.mul, operator.truediv, operator.neg,
                     operator.pos, operator.pow, operator.matmul}
NUMERIC_HELPERS = {runtime.unbroadcast, runtime.expand_reduced, runtime.strong_zero, scalar_strong_zero}

def produces_numeric(value: Value) -> bool:
    op = value.defining_op
    if op is None or op.opcode != "call":
        return False
    fn = op.attrs["fn"]
    if fn in NUMERIC_OPERATORS or fn in NUMERIC_HELPERS or isinstance(fn, np.ufunc):
        return True
    return (getattr(fn, "__module__", "") or "").startswith("numpy") and fn is not np.array
