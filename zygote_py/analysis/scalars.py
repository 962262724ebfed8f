"""Scalar inference: which values are certainly plain numbers (float, np.float64, int).

The compiled gradient is specialised on which arguments are scalars (part of
the cache key, as Zygote specialises on types).  Arithmetic and elementwise
functions of scalars are scalars; so are numeric literals.  Between scalars
broadcasting cannot happen, so the adjoint drops `unbroadcast` there: in a
scalar loop that is most of the per-iteration overhead.
"""

from __future__ import annotations

import operator

import numpy as np

from ..ir.core import Block, Function, Op
from ..ir.ops import loop_layout
from ..rules.untracked import untracked

from ..runtime import writes

_ARITHMETIC = {operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
               operator.neg, operator.pos, operator.mod, operator.floordiv, abs, pow, float}


def _scalar_fn(fn) -> bool:
    if fn is untracked:  # x itself (inside `with zp.no_grad():`)
        return True
    if fn in _ARITHMETIC or isinstance(fn, np.ufunc):
        return True
    return getattr(fn, "__module__", None) == "math"


def scalar_values(fn: Function, scalar_params: list[bool]) -> set[int]:
    scalars = {p.id for p, s in zip(fn.params, scalar_params) if s is True}

    def is_scalar(v) -> bool:
        if v.id in scalars:
            return True
        op = v.defining_op
        return op is not None and op.opcode == "const" and type(op.attrs["value"]) in (int, float)

    def visit(block: Block) -> bool:
        changed = False
        for op in block.ops:
            if op.opcode == "call" and op.results and not op.attrs.get("kw") and not op.attrs.get("star"):
                fn = op.attrs["fn"]
                if fn is writes.augmented_write:  # `s += v` of numbers rebinds s: a number
                    if is_scalar(op.operands[0]) and is_scalar(op.operands[1]):
                        changed |= _mark(op.result, scalars)
                elif _scalar_fn(fn) and op.operands and all(is_scalar(v) for v in op.operands):
                    changed |= _mark(op.result, scalars)
            elif op.opcode == "if":
                for region in op.regions:
                    changed |= visit(region)
                for k, result in enumerate(op.results):
                    if all(is_scalar(r.ops[-1].operands[k]) for r in op.regions):
                        changed |= _mark(result, scalars)
            elif op.opcode in ("for", "while"):
                changed |= visit_loop(op)
        return changed

    def visit_loop(op: Op) -> bool:
        body = op.regions[-1]
        layout = loop_layout(op)
        # optimistic: a slot is scalar if its initial value is, unless the body says otherwise
        assumed = [k for k in range(len(op.results)) if is_scalar(layout.inits[k])]
        while True:
            trial = set(scalars)
            for k in assumed:
                trial.add(layout.carried[k].id)
                if layout.cond_args:
                    trial.add(layout.cond_args[k].id)
            saved = set(scalars)
            scalars.clear()
            scalars.update(trial)
            for region in op.regions:
                visit(region)
            still = [k for k in assumed if is_scalar(body.ops[-1].operands[k])]
            if still == assumed:
                changed = False
                for k in assumed:
                    changed |= _mark(op.results[k], scalars)
                return changed or scalars != saved
            scalars.clear()
            scalars.update(saved)
            assumed = still

    for _ in range(10):
        if not visit(fn.body):
            break
    return scalars


def _mark(value, scalars: set[int]) -> bool:
    if value.id in scalars:
        return False
    scalars.add(value.id)
    return True
