"""Which saved arrays the forward keeps in tape rows (runtime/tape_rows.py).

A value a loop body makes and its tape saves each iteration (the heat equation's stencil
difference `u[2:] - 2*u[1:-1] + u[:-2]`, which `c`'s cotangent reads) is written by the
forward as `t = _zp_tape_row(rows, <expression>)`: the array is copied into the next row of
one block made before the loop, and the program goes on with the row (augment.py).  The run
time decides whether the swap is unobservable (only the expression's own fresh array,
nobody else holding it); this step only picks the values where it is worth asking and
where a row cannot outlive the tape:

  - a gradient compiled to run (not one forward mode reads again: zp.hessian keeps lists);
  - the value is pushed as the loop's body ends, and made in the body itself (not in a
    branch of it) by an arithmetic operator or a NumPy ufunc called with its inputs only (no
    keywords, no positional `out`), whose result is a new array where its operands are arrays;
  - it certainly is an array whose shape follows the arguments' (analysis/shapes.py), so a
    loop over numbers never pays the call;
  - every other use of it, anywhere in the function, is such an operator or ufunc too:
    their results are new arrays, so no row escapes into a result, a container, an
    attribute or a loop's carried value (a row would keep the whole block alive), and
    nothing writes into it or takes a view of it.
"""

from __future__ import annotations

import operator

import numpy as np

from ...ir.core import Op, Value

# operators whose results are new arrays (none keeps or writes its operands) for arrays
_ARITHMETIC = (operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
               operator.mod, operator.pow, operator.neg, operator.pos, abs)


def tape_row_values(builder) -> dict[int, Op]:
    """id(primal op making a value kept in tape rows) -> the loop op whose body makes it."""
    if not builder.plan.fused_writes or not builder.shapes:
        return {}
    uses: dict[int, list[Op]] = {}
    for op in builder.fn.walk():
        for value in op.operands:
            uses.setdefault(value.id, []).append(op)
    chosen: dict[int, Op] = {}
    for record in builder.tapes.created:
        loop = record.region.parent
        if loop is None or loop.opcode not in ("for", "while") or loop.regions[-1] is not record.region:
            continue
        for value in record.end:
            op = value.defining_op
            if op is not None and op.block is record.region and _makes_new_array(op) \
                    and value.id in builder.shapes \
                    and all(_makes_new_array(use) for use in uses.get(value.id, ())):
                chosen[id(op)] = loop
    return chosen


def _makes_new_array(op: Op) -> bool:
    """A call of an arithmetic operator or ufunc, positional only, with one result."""
    if op.opcode != "call" or op.attrs.get("kw") or op.attrs.get("star") or len(op.results) != 1:
        return False
    fn = op.attrs.get("fn")
    if isinstance(fn, np.ufunc):  # (a further positional argument would be `out`)
        return fn.nout == 1 and len(op.operands) == fn.nin
    return any(fn is known for known in _ARITHMETIC)


def is_row_value(value: Value, chosen: dict[int, Op]) -> bool:
    return value.defining_op is not None and id(value.defining_op) in chosen
