"""Which ops may be removed when their results are unused (no side effects).

An op's purity is declared in its OpDef (ir/ops.py); calls are decided here by
the callee, branches and loops by their contents."""

from __future__ import annotations

import builtins

import numpy as np

from ..ir.intrinsics import is_pure_intrinsic
from ..ir.ops import opdef
from ..rules import registry

_PURE_BUILTINS = {builtins.len, builtins.range, builtins.zip, builtins.enumerate, builtins.reversed,
                  builtins.isinstance, builtins.slice, builtins.min, builtins.max, builtins.abs,
                  builtins.float, builtins.int, builtins.bool, builtins.tuple, builtins.list,
                  builtins.dict, builtins.sum, builtins.pow, builtins.round, builtins.format,
                  builtins.str, builtins.repr, builtins.type, builtins.set, builtins.divmod}


# operator.add.__module__ is '_operator' (the C module behind `operator`)
_OPERATOR_MODULES = ("operator", "_operator")


def is_pure_callable(fn) -> bool:
    if getattr(fn, "__module__", None) in _OPERATOR_MODULES or fn in _PURE_BUILTINS:
        return True
    if isinstance(fn, np.ufunc) or is_pure_intrinsic(fn):
        return True
    if (getattr(fn, "__module__", None) or "").startswith("zygote_py."):
        # zygote_py's own helpers have rules only so that generated code can be differentiated;
        # they stay statements that are never dropped: accum_index writes into its accumulator,
        # check_scalar raises for a non-scalar output, and one helper call a line reads best
        return bool(getattr(fn, "_zp_pure", False))
    try:
        if registry.function_rule(fn) is not None or registry.is_nondifferentiable(fn):
            return fn is not builtins.print and not _is_random(fn)
    except TypeError:
        return False
    return False


def _is_random(fn) -> bool:
    module = getattr(fn, "__module__", "") or ""
    return "random" in module or isinstance(getattr(fn, "__self__", None), np.random.Generator)


def is_pure(op) -> bool:
    """What the op's OpDef declares; where it leaves it open (None), a call is pure
    when its callee is, and a branch or loop when everything in it is."""
    declared = opdef(op.opcode).pure
    if declared is not None:
        return declared
    if op.opcode == "call":
        return is_pure_callable(op.attrs["fn"])
    return all(is_pure(inner) for region in op.regions for inner in region.ops)


def is_constant_foldable(fn) -> bool:
    """Safe to evaluate at transform time when every argument is a plain constant."""
    if is_pure_intrinsic(fn) or getattr(fn, "__module__", None) in (*_OPERATOR_MODULES, "math"):
        return True
    try:
        return fn in _PURE_BUILTINS
    except TypeError:
        return False
