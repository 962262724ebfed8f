"""Shape equality: which array values certainly have the same shape.

Read-only, from the array kinds a top-level gradient is specialised on
(`kinds.array_kinds`, in the cache key: the ndim of each argument that is an
exact real float ndarray).  Each value gets a *shape key*; two values with
the same key have the same shape whatever the arguments' sizes:

- an argument of known kind: its own key; `.copy()` / `np.copy` of a value and
  a write into it (`x[i] = v`, which never changes a shape) keep the key;
- an elementwise operator or ufunc whose array operands all have one key and
  whose other operands are certainly numbers: that key (nothing broadcasts);
- `a[s:-e]` of a 1-D value (`s` an int >= 0 or None, `-e` an int < 0 or None,
  step None or 1): NumPy clips both ends, so its length is max(0, n - s - e) for
  the length n of `a`, and the key is (the root's key, s + e): `u[1:-1]`,
  `u[2:]` and `u[:-2]` share one, whatever n is;
- a loop's carried value: its initial value's key when every iteration yields
  a value of that key (optimistic, then checked).

The adjoint drops `unbroadcast(e, a)` for an elementwise call whose operand `a`
has its result's key (ad/splice.py): nothing was broadcast.
"""

from __future__ import annotations

import operator

import numpy as np

from ..ir.core import Block, Function, Op
from ..ir.ops import loop_layout
from ..runtime import writes

_ELEMENTWISE = (operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
                operator.mod, operator.pow, operator.neg, operator.pos, abs)
_SAME_ARRAY = (writes.write_item, writes.write_item_augmented)


def shape_keys(fn: Function, array_params=(), scalars=frozenset()) -> dict[int, tuple]:
    """value id -> shape key, for the values whose shape is known relative to the
    arguments' (see the module docstring); empty without array kinds."""
    roots = {p.id: (("argument", k), n) for k, (p, n) in enumerate(zip(fn.params, array_params))
             if type(n) is int}
    if not roots:
        return {}
    dropped: set[tuple[int, int]] = set()  # (loop op id, slot) assumptions proven wrong
    while True:
        keys = {vid: key for vid, (key, _) in roots.items()}
        ndims = {vid: n for vid, (_, n) in roots.items()}
        wrong = _visit(fn.body, keys, ndims, scalars, dropped)
        if not wrong:
            return keys
        dropped |= wrong


def _visit(block: Block, keys: dict, ndims: dict, scalars, dropped: set) -> set:
    wrong: set = set()
    for op in block.ops:
        if op.opcode in ("for", "while"):
            wrong |= _visit_loop(op, keys, ndims, scalars, dropped)
        elif op.regions:  # a branch: its results are not followed
            for region in op.regions:
                wrong |= _visit(region, keys, ndims, scalars, dropped)
        else:
            _visit_op(op, keys, ndims, scalars)
    return wrong


def _visit_loop(op: Op, keys: dict, ndims: dict, scalars, dropped: set) -> set:
    layout = loop_layout(op)
    assumed = [k for k in range(len(op.results))
               if layout.inits[k].id in keys and (id(op), k) not in dropped]
    for k in assumed:
        init = layout.inits[k].id
        for v in (layout.carried[k], *([layout.cond_args[k]] if layout.cond_args else ())):
            keys[v.id], ndims[v.id] = keys[init], ndims[init]
    wrong: set = set()
    for region in op.regions:
        wrong |= _visit(region, keys, ndims, scalars, dropped)
    for k in assumed:
        init = layout.inits[k].id
        if keys.get(layout.yields[k].id) != keys[init]:
            wrong.add((id(op), k))
        else:
            keys[op.results[k].id], ndims[op.results[k].id] = keys[init], ndims[init]
    return wrong


def _visit_op(op: Op, keys: dict, ndims: dict, scalars) -> None:
    if not op.results or op.attrs.get("kw") or op.attrs.get("star"):
        return
    result = op.results[0].id
    operands = op.operands
    if op.opcode == "method":
        if op.attrs.get("name") == "copy" and len(operands) == 1 and operands[0].id in keys:
            keys[result], ndims[result] = keys[operands[0].id], ndims[operands[0].id]
        return
    if op.opcode != "call":
        return
    fn = op.attrs.get("fn")
    if (any(fn is f for f in _SAME_ARRAY) or fn is np.copy) and operands and operands[0].id in keys:
        if fn is np.copy and len(operands) != 1:
            return
        keys[result], ndims[result] = keys[operands[0].id], ndims[operands[0].id]
    elif fn is operator.getitem and len(operands) == 2 and ndims.get(operands[0].id) == 1:
        key = sliced_key(keys[operands[0].id], operands[1])
        if key is not None:
            keys[result], ndims[result] = key, 1
    elif _elementwise(fn, len(operands)):
        arrays = [v for v in operands if v.id in keys]
        if arrays and all(v.id in keys or v.id in scalars or _number_constant(v) for v in operands) \
                and len({keys[v.id] for v in arrays}) == 1:
            keys[result], ndims[result] = keys[arrays[0].id], ndims[arrays[0].id]


def sliced_key(base: tuple, index) -> tuple | None:
    """The shape key of `a[index]` for a 1-D value a of key base and a constant slice
    s:-e (see the module docstring); None for any other index."""
    trimmed = _trimmed(index)
    if trimmed is None:
        return None
    root, removed = (base[1], base[2]) if base[0] == "trim" else (base, 0)
    return ("trim", root, removed + trimmed)


def _elementwise(fn, noperands: int) -> bool:
    if isinstance(fn, np.ufunc):
        return fn.nin == noperands and fn.nout == 1
    try:
        return any(fn is f for f in _ELEMENTWISE)
    except TypeError:
        return False


def _number_constant(value) -> bool:
    op = value.defining_op
    return op is not None and op.opcode == "const" and type(op.attrs["value"]) in (int, float, bool)


def _trimmed(index) -> int | None:
    """s + e for a constant slice s:-e (see the module docstring), None for anything else."""
    op = index.defining_op
    if op is None or op.opcode != "const" or type(op.attrs["value"]) is not slice:
        return None
    s = op.attrs["value"]
    start, stop, step = s.start, s.stop, s.step
    if step not in (None, 1) or not (start is None or type(start) is int and start >= 0) \
            or not (stop is None or type(stop) is int and stop < 0):
        return None
    return (start or 0) + (-stop if stop is not None else 0)
