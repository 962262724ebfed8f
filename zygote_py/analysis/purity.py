"""Which ops may be removed when their results are unused (no side effects)."""

from __future__ import annotations

import builtins

import numpy as np

from ..rules import registry

_PURE_OPCODES = {"const", "global", "cell", "closure", "getattr", "tuple", "list", "dict", "unpack", "undef",
                 "append", "extend", "setitem", "tape_new", "tape_copy", "yield"}
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
    if isinstance(fn, np.ufunc):
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
    return bool(getattr(fn, "_zp_pure", False))


def _is_random(fn) -> bool:
    module = getattr(fn, "__module__", "") or ""
    return "random" in module or isinstance(getattr(fn, "__self__", None), np.random.Generator)


def is_pure(op) -> bool:
    if op.opcode in _PURE_OPCODES:
        return True
    if op.opcode == "call":
        return is_pure_callable(op.attrs["fn"])
    if op.opcode in ("if", "for", "while"):
        return all(is_pure(inner) for region in op.regions for inner in region.ops)
    return False


def is_constant_foldable(fn) -> bool:
    """Safe to evaluate at transform time when every argument is a plain constant."""
    if getattr(fn, "_zp_pure", False) or getattr(fn, "__module__", None) in (*_OPERATOR_MODULES, "math"):
        return True
    try:
        return fn in _PURE_BUILTINS
    except TypeError:
        return False
