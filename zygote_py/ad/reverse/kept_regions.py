"""An owned cotangent's region kept instead of zeroed and added back (`x[i] = x[i] + f`).

In a backward loop that owns an array cotangent (owned_slots.py), a write `u[I] = v` whose
value reads the same region, `v = u[I] + f(...)` (the heat equation's update, any
`x[I] = x[I] + ...` written out long-hand), becomes

    g = acc[I].copy()      # the written value's cotangent
    acc[I] = 0.0           # the region's old contents did not reach the result
    ...                    # g's uses; the other reads' cotangents added into acc
    acc[I] += g            # the read u[I] in v: its cotangent is g itself

Zeroing the region and adding g back to it gives the region g plus what the reads in
between add, which is what the region holds if it is neither zeroed nor added to: the
two statements go (the sums come out in another order, so their last bits may differ;
NaN and infinity arise from the same terms).  That holds when nothing between them reads
acc or writes into it other than by adding (another write's zeroing there would zero g's
part too), which the chain (owned_slots.py: each value read by the next op alone) lets
this step check op by op: between the two, acc is used by `acc[J] += h` and
`acc[J] -= h` statements alone.

Then g need not be a copy either where every use of it, and of whatever may share its
memory, comes before the first statement that changes acc: g is the view `acc[I]`.  What
may share its memory is followed through the backward's ops: a product or sum of g with
numbers or arrays (certain numbers, arrays whose shape the analysis knows: exact
ndarrays) is a new array; `strong_zero(h, r)` and `unbroadcast(r, x)` may be r itself;
any other use, or one nested in a branch, keeps the copy.
"""

from __future__ import annotations

import operator

from ...ir.core import Block, Op, Value
from ...runtime import helpers as runtime_helpers
from ...runtime import writes

_ADDS = (runtime_helpers.add_into_item, runtime_helpers.subtract_from_item)
# operators whose result is a new array where every operand is a number or an exact ndarray
_NEW_ARRAY = (operator.add, operator.sub, operator.mul, operator.truediv, operator.neg,
              operator.pos)


def keep_overwritten_regions(builder, body: Block, acc: Value) -> None:
    """Rewrite each write of the owned chain on acc (the loop body's argument) whose
    region's cotangent is added back unchanged (see the module docstring)."""
    for copy in [op for op in body.ops if _region_copy(op, acc)]:
        if copy.block is not body:
            continue
        index = copy.operands[0].defining_op.operands[1]
        ops = body.ops
        start = ops.index(copy)
        users = [op for op in ops[start + 1:] if acc in op.operands]
        if not users or not _zeroes(users[0], acc, index):
            continue
        zero, added_back = users[0], None
        for op in users[1:]:
            if _plain_call(op, runtime_helpers.add_into_item) and op.operands[2] is copy.result \
                    and _same_index(op.operands[1], index):
                added_back = op
                break
            if not any(_plain_call(op, fn) for fn in _ADDS):
                break  # a read of acc, or a zeroing: the region's contents would differ
        if added_back is None:
            continue
        for op in (zero, added_back):
            ops.remove(op)
            op.block = None
        _view_if_read_before_changed(builder, body, copy, acc)


def _region_copy(op: Op, acc: Value) -> bool:
    """`acc[index].copy()` of the chain (owned_slots.py: _write_out)."""
    if op.opcode != "method" or op.attrs.get("name") != "copy" or len(op.operands) != 1 \
            or op.attrs.get("kw") or op.attrs.get("star"):
        return False
    region = op.operands[0].defining_op
    return region is not None and _plain_call(region, operator.getitem) \
        and region.operands[0] is acc and len(region.operands) == 2


def _zeroes(op: Op, acc: Value, index: Value) -> bool:
    """`acc[index] = 0.0` (store_item of a constant 0.0 at the same constant index)."""
    if not _plain_call(op, writes.store_item) or op.operands[0] is not acc \
            or not _same_index(op.operands[1], index):
        return False
    value = op.operands[2].defining_op
    return value is not None and value.opcode == "const" and type(value.attrs["value"]) is float \
        and value.attrs["value"] == 0.0


def _same_index(a: Value, b: Value) -> bool:
    """Two constant basic indices (owned_slots.py: _basic_constant) that are equal."""
    if a is b:
        return True
    sa, sb = a.defining_op, b.defining_op
    if sa is None or sb is None or sa.opcode != "const" or sb.opcode != "const":
        return False
    return _index_key(sa.attrs["value"]) == _index_key(sb.attrs["value"])


def _index_key(value):
    parts = value if type(value) is tuple else (value,)
    return tuple((type(p).__name__, p.start, p.stop, p.step) if type(p) is slice
                 else (type(p).__name__, p) for p in parts), type(value) is tuple


def _plain_call(op: Op, fn) -> bool:
    return op.opcode == "call" and op.attrs.get("fn") is fn and not op.attrs.get("kw") \
        and not op.attrs.get("star")


def _view_if_read_before_changed(builder, body: Block, copy: Op, acc: Value) -> None:
    """copy's result read as the view it copies, where nothing reads it, or anything that
    may share its memory, once acc has changed (see the module docstring)."""
    ops = body.ops
    start = ops.index(copy)
    first_change = next((k for k in range(start + 1, len(ops)) if acc in ops[k].operands), len(ops))
    sharing = {copy.result.id}
    known = _known_plain(builder)
    for k in range(start + 1, len(ops)):
        op = ops[k]
        nested = [inner for region in op.regions for inner in region.walk()]
        if any(v.id in sharing for inner in nested for v in inner.operands):
            return  # read inside a branch or loop: not followed
        read = [v for v in op.operands if v.id in sharing]
        if not read:
            continue
        if k >= first_change or op.opcode != "call" or op.attrs.get("kw") or op.attrs.get("star"):
            return
        fn = op.attrs["fn"]
        if any(fn is f for f in _NEW_ARRAY):
            if not all(v.id in sharing or v.id in known or _number_constant(v) for v in op.operands):
                return
        elif fn is runtime_helpers.strong_zero and len(op.operands) == 2 \
                or fn is runtime_helpers.unbroadcast and len(op.operands) == 2:
            passed = op.operands[1] if fn is runtime_helpers.strong_zero else op.operands[0]
            if passed.id in sharing:
                sharing.add(op.result.id)  # (it may return that operand itself)
        else:
            return
    view = copy.operands[0]
    for op in body.walk():
        op.operands = [view if v is copy.result else v for v in op.operands]
    view.hint = view.hint or copy.result.hint
    ops.remove(copy)
    copy.block = None


def _known_plain(builder) -> set[int]:
    """Ids of values certainly numbers or exact ndarrays: the primal's certain scalars and
    exact float arrays, values with a shape key (arrays computed from those with numbers),
    and what the tape gives back for any of them."""
    known = set(builder.scalars) | set(builder.float_arrays) | set(builder.shapes)
    known |= {popped.id for primal, popped in builder.fetched.items() if primal in known}
    return known


def _number_constant(value: Value) -> bool:
    source = value.defining_op
    return source is not None and source.opcode == "const" and \
        type(source.attrs["value"]) in (int, float)
