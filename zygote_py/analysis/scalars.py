"""Scalar inference: which values are certainly plain numbers (float, np.float64, int).

The compiled gradient is specialised on which arguments are scalars (part of
the cache key, as Zygote specialises on types).  Arithmetic and elementwise
functions of scalars are scalars; so are numeric literals.  Between scalars
broadcasting cannot happen, so the adjoint drops `unbroadcast` there: in a
scalar loop that is most of the per-iteration overhead.

A gradient called from the API is also specialised on the array kind of each
argument (`kinds.array_kinds`: the ndim of an exact ndarray of real float
dtype, in the cache key): an item `x[i]` (`x[i, j]`, one index per dimension)
of such an array, at indices that are certainly Python ints (a `range` loop's
target, an int literal, `len(...)`, their sums and differences), is a NumPy
float scalar.  The array's values written in place (`x[k] = v`) keep its kind,
so the arrays a write returns and a loop carries are followed too, and so are
`.copy()` of such an array and `np.zeros(n)` (`ones`, `empty`) of one number,
a 1-D float64 array whatever the arguments.
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


_INT_ARITHMETIC = (operator.add, operator.sub, operator.mul, operator.floordiv, operator.mod,
                   operator.neg)
# writes into an array that return the array itself, its ndim and dtype unchanged
_SAME_ARRAY = (writes.write_item, writes.write_item_augmented)
# called with one number (no dtype): a 1-D float64 array, or NumPy raises
_FLOAT_VECTORS = (np.zeros, np.ones, np.empty)


def scalar_values(fn: Function, scalar_params: list[bool], array_params=(),
                  arrays_out: dict | None = None) -> set[int]:
    """The ids of the values certainly plain numbers.  arrays_out, if given, receives the
    values certainly exact real float ndarrays (id -> ndim): the arguments of that array
    kind, their `.copy()`, the arrays writes into them return, loops carrying them."""
    scalars = {p.id for p, s in zip(fn.params, scalar_params) if s is True}
    # value id -> ndim, for values certainly exact real float ndarrays (array_params)
    # (an array's ndim and dtype never change in place here: `a.shape = ...` and
    # `a.resize()` are refused by the frontend and set_attribute)
    arrays = {p.id: n for p, n in zip(fn.params, array_params) if type(n) is int}

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
                elif fn is operator.getitem and len(op.operands) == 2 and \
                        op.operands[0].id in arrays and \
                        int_indices(op.operands[1], arrays[op.operands[0].id]):
                    changed |= _mark(op.result, scalars)  # an item of a float array
                elif any(fn is f for f in _FLOAT_VECTORS) and len(op.operands) == 1 and \
                        (is_scalar(op.operands[0]) or certainly_int(op.operands[0], 3)):
                    if op.result.id not in arrays:  # np.zeros(n): a 1-D float64 array
                        arrays[op.result.id] = 1
                        changed = True
                elif (fn in _SAME_ARRAY or fn is np.copy and len(op.operands) == 1) and \
                        op.operands[0].id in arrays and op.result.id not in arrays:
                    arrays[op.result.id] = arrays[op.operands[0].id]
                    changed = True
                elif _scalar_fn(fn) and op.operands and all(is_scalar(v) for v in op.operands):
                    changed |= _mark(op.result, scalars)
            elif op.opcode == "method" and op.attrs.get("name") == "copy" and \
                    len(op.operands) == 1 and not op.attrs.get("kw") and \
                    op.operands[0].id in arrays and op.results[0].id not in arrays:
                arrays[op.results[0].id] = arrays[op.operands[0].id]  # (keeps its dtype)
                changed = True
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
        _carry_arrays(op, layout, arrays)
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
    if arrays_out is not None:
        arrays_out.update(arrays)
    return scalars


_PLAIN_OPERATORS = (operator.add, operator.sub, operator.mul, operator.truediv, operator.neg,
                    operator.pos, operator.pow, operator.getitem, abs, len, float)


def repeated_item_reads(fn: Function, arrays: dict, scalars: set) -> dict[int, object]:
    """id(op) -> the value of an earlier op, for an item read `x[i]` that repeats one in
    the same block: x an exact real float ndarray (arrays, from scalar_values' arrays_out)
    read at the same int index value (so both are numbers, not views), with only
    arithmetic and ufuncs of numbers and such arrays between them (nothing that could
    write into x: no call of anything else, no branch, no loop).  The second read then
    gives the same number, and the forward need not read, nor the tape keep, it twice
    (`np.sin(x[i]) * x[i]`)."""
    out: dict[int, object] = {}

    def plain(v) -> bool:
        op = v.defining_op
        return v.id in scalars or v.id in arrays or \
            op is not None and op.opcode == "const" and type(op.attrs["value"]) in (int, float)

    def visit(block: Block) -> None:
        seen: dict[tuple[int, int], object] = {}
        for op in block.ops:
            for region in op.regions:
                visit(region)
            if op.regions:
                seen.clear()
                continue
            if op.opcode == "const":
                continue
            fn_ = op.attrs.get("fn") if op.opcode == "call" else None
            if fn_ is operator.getitem and len(op.operands) == 2 and not op.attrs.get("kw") \
                    and op.result.id in scalars and op.operands[0].id in arrays \
                    and int_indices(op.operands[1], arrays[op.operands[0].id]):
                key = (op.operands[0].id, op.operands[1].id)
                if key in seen:
                    out[id(op)] = seen[key]
                else:
                    seen[key] = op.result
                continue
            harmless = fn_ is not None and not op.attrs.get("kw") and not op.attrs.get("star") \
                and (isinstance(fn_, np.ufunc) or any(fn_ is f for f in _PLAIN_OPERATORS)) \
                and all(plain(v) for v in op.operands)
            if not harmless:
                seen.clear()

    visit(fn.body)
    return out


def _carry_arrays(op: Op, layout, arrays: dict) -> None:
    """The loop slots that hold a float array of one ndim on entry and after every
    iteration (the array a fill loop writes into): optimistic, then checked, as for
    scalars.  A slot the body rebinds to anything else is dropped."""
    slots = [k for k in range(len(op.results)) if layout.inits[k].id in arrays
             and layout.carried[k].id not in arrays]
    body = op.regions[-1]
    while slots:
        added = []
        for k in slots:
            for v in (layout.carried[k], *([layout.cond_args[k]] if layout.cond_args else ())):
                arrays[v.id] = arrays[layout.inits[k].id]
                added.append(v.id)
        for _ in range(len(body.ops) + 1):  # the writes in the body, in order
            grown = False
            for inner in body.walk():
                if inner.opcode == "call" and inner.attrs.get("fn") in _SAME_ARRAY and \
                        inner.operands and inner.operands[0].id in arrays and \
                        inner.result.id not in arrays:
                    arrays[inner.result.id] = arrays[inner.operands[0].id]
                    added.append(inner.result.id)
                    grown = True
            if not grown:
                break
        still = [k for k in slots if arrays.get(body.ops[-1].operands[k].id) ==
                 arrays[layout.inits[k].id]]
        if still == slots:
            for k in slots:
                arrays[op.results[k].id] = arrays[layout.inits[k].id]
            return
        for vid in added:
            arrays.pop(vid, None)
        slots = still


def int_indices(index, ndim: int) -> bool:
    """index is ndim certain Python ints (one, or a tuple of them)."""
    source = index.defining_op
    if source is not None and source.opcode == "tuple":
        return len(source.operands) == ndim and all(certainly_int(v, 3) for v in source.operands)
    return ndim == 1 and certainly_int(index, 3)


def certainly_int(value, depth: int) -> bool:
    """A Python int (never a bool, an np.integer or an array): a `range` loop's target,
    an int literal, `len(...)`, or int arithmetic of such values."""
    source = value.defining_op
    if source is None:
        block = value.owner
        loop = getattr(block, "parent", None)
        return loop is not None and loop.opcode == "for" and loop.attrs.get("kind") == "range" \
            and any(value is t for t in loop_layout(loop).targets)
    if source.opcode == "const":
        return type(source.attrs["value"]) is int
    if source.opcode != "call" or source.attrs.get("kw") or source.attrs.get("star"):
        return False
    fn = source.attrs["fn"]
    if fn is len:
        return True
    return depth > 0 and any(fn is f for f in _INT_ARITHMETIC) and \
        all(certainly_int(v, depth - 1) for v in source.operands)


def _mark(value, scalars: set[int]) -> bool:
    if value.id in scalars:
        return False
    scalars.add(value.id)
    return True
