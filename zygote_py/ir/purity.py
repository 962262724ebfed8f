"""Which ops may be removed when their results are unused (no side effects).

An op's purity is declared in its OpDef (ir/ops.py); calls are decided here by
the callee, branches and loops by their contents."""

from __future__ import annotations

import builtins
import math

import numpy as np

from .intrinsics import is_pure_intrinsic
from .ops import loop_layout, opdef
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


# builtins that read an iterable argument through: given an iterator, they consume it
_ITERABLE_READERS = {builtins.list, builtins.tuple, builtins.sum, builtins.min, builtins.max,
                     builtins.sorted, builtins.dict, builtins.set, builtins.frozenset, builtins.any,
                     builtins.all, math.fsum}


def reads_an_iterable(fn) -> bool:
    """fn is a builtin that reads an iterable argument through (list, sum, any, ...)."""
    try:
        return fn in _ITERABLE_READERS
    except TypeError:
        return False


def may_be_iterator(value) -> bool:
    """Whether value may be an iterator at run time (see _may_be_iterator)."""
    return _may_be_iterator(value)


def _may_be_iterator(value, depth: int = 0) -> bool:
    """Whether value may be an iterator at run time (anything not known to be built here
    as a container, a constant or an array: a parameter, a call's or a method's result)."""
    op = value.defining_op
    if op is None or depth > 8:
        return True
    if op.opcode in ("const", "list", "tuple", "dict", "append", "extend", "setitem", "getitem",
                     "undef", "closure"):
        return False
    if op.opcode == "if":
        k = op.results.index(value)
        return any(_may_be_iterator(region.ops[-1].operands[k], depth + 1) for region in op.regions)
    if op.opcode in ("for", "while"):
        return _may_be_iterator(loop_layout(op).inits[op.results.index(value)], depth + 1)
    if op.opcode == "call":
        fn = op.attrs["fn"]
        module = getattr(fn, "__module__", None) or ""
        if module.startswith("zygote_py.runtime.iterators"):
            return True
        return not (is_pure_callable(fn) and not module.startswith("zygote_py."))
    return True


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
        fn = op.attrs["fn"]
        if reads_an_iterable(fn) and any(_may_be_iterator(v) for v in op.operands):
            return False  # reading an iterator consumes it: the call must run, and where it is
        return is_pure_callable(fn)
    return all(is_pure(inner) for region in op.regions for inner in region.ops)


def is_constant_foldable(fn) -> bool:
    """Safe to evaluate at transform time when every argument is a plain constant."""
    if is_pure_intrinsic(fn) or getattr(fn, "__module__", None) in (*_OPERATOR_MODULES, "math"):
        return True
    try:
        return fn in _PURE_BUILTINS
    except TypeError:
        return False
