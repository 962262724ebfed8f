"""Forward mode through in-place writes into arrays (docs/mutation.md, "Forward mode").

The lowering already turns every write into SSA form (frontend/lower_writes.py):
`x[i] = v` is `x2 = write_item(x1, i, v)` (the same object under a new value),
`y op= v` is `y2 = augmented_write(y1, y1 op v)`, and every other name that may
share memory with the written array is rebound to `view_writeback(m, x2)`.  So
forward mode follows a write by giving each of those new values its tangent
(runtime/forward_writes.py): the written array's is the old tangent with the
written region replaced by the value's tangent, another name's takes the new
tangent of the elements it shares with the written array.  Whatever the
lowering refuses (a global's array, a write through an expression, a container
holding a written array) is refused for forward mode in the same words.

The same helpers serve forward mode over gradient code (zp.hessian of a
function with writes): the saves and restores a gradient makes around each
write need no tangent work (see runtime/forward_writes.py), and its cotangent
splits are linear in the cotangent, so their tangents are the same splits of
the cotangent's tangent.  A claim of a module-level or captured list or dict in
gradient code (runtime/outside_containers.py) is copied as it is: each column of a
Hessian is its own call (forward_api._jvp) with a ledger of its own, so each claims the
container afresh, and one that is not the last leaves it as the gradient's backward put
it back (forward_objects.restore_final), so the next starts from the state at the call.

`mark_in_place` runs over the finished forward function: a write's tangent may
update the old tangent in place (at run time, when nothing else holds it) only
where the old tangent is read by nothing after the write.
"""

from __future__ import annotations

from ...calls import forward_objects as fob
from ...ir.core import Function, Op, Value, value_block
from ...runtime import built_objects, outside_containers, writes
from ...runtime import forward_containers as fc
from ...runtime import forward_writes as fw

# the gradient-code helpers that save, restore or check, whose results carry no tangent
_NO_TANGENT = (writes.written_like, writes.restore_region, writes.restore_whole,
               writes.snapshot, writes.log_written_arguments,
               writes.snapshot_except, writes.check_unaliased, writes.check_distinct_arguments,
               writes.check_sortable, writes.refuse_array_out, writes.check_output_shape,
               writes.put_positions,
               writes.place_positions, writes.diagonal_positions, writes.along_axis_positions,
               writes.putmask_positions, writes.position_count, built_objects.must_run_back,
               outside_containers.restore_contents, outside_containers.is_container,
               outside_containers.refuse_item_update, outside_containers.claim_outside,
               outside_containers.check_outside_read, outside_containers.check_binding)
# cotangent helpers linear in their first argument
_LINEAR = (writes.written_value_cotangent, writes.overwritten_cotangent,
           writes.writeback_value_cotangent, writes.writeback_rest_cotangent)
_ITEM_WRITES = (writes.write_item, writes.write_item_augmented)
_AUGMENTED = (writes.augmented_write, writes.augmented_write_in_callee)


def _is(fn, group) -> bool:
    return any(fn is f for f in group)


def follow_write(tr, op: Op) -> bool:
    """Copy op, a call of a runtime/writes helper, with its tangent; False when op is not
    one forward mode follows (the caller refuses it)."""
    fn = op.attrs["fn"]
    v, t_or_none = tr.v, tr.t_or_none
    if fn is outside_containers.claim_outside and id(op) in tr.unneeded_claims:
        return True  # (no tangent reaches the container: nothing to claim, analysis/claims.py)
    if _is(fn, _NO_TANGENT):
        tr.copy(op)
        return True
    if fn is writes.restore_final:  # (a column of a Hessian leaves the state at the call)
        tr.ir.call(fob.restore_final, *[v(x) for x in op.operands], expr="_zp_restore_final_jvp")
        return True
    if _is(fn, _ITEM_WRITES):  # x2 = write_item(x1, index, value, loc)
        x, index, value = op.operands[:3]
        new = tr.copy(op)
        if tr.t(x) is None and tr.t(value) is None:
            return True
        tangent = tr.helper(fw.item_tangent, new.result, v(index), t_or_none(x), t_or_none(value),
                            tr.ir.const(False))
        tr.set_tangent(op.result, tangent)
        return True
    if _is(fn, _AUGMENTED):  # y2 = augmented_write(y1, y1 op v, loc, ...)
        y, new_value = op.operands[:2]
        tr.copy(op)
        if tr.t(new_value) is not None:
            tr.set_tangent(op.result, tr.helper(fw.augmented_tangent, v(y), v(new_value),
                                                tr.t(new_value)))
        return True
    if fn is writes.same_if_written:
        old, new_value = op.operands
        tr.copy(op)
        tr.set_tangent(op.result, tr.helper(fw.same_if_written_tangent, v(old), v(new_value),
                                            t_or_none(old), t_or_none(new_value)))
        return True
    if fn is writes.view_writeback:  # m2 = view_writeback(m1, x2, name, loc)
        m, written = op.operands[:2]
        tr.copy(op)
        if tr.t(m) is not None or tr.t(written) is not None:
            tr.set_tangent(op.result, tr.helper(fw.writeback_tangent, v(m), v(written),
                                                t_or_none(m), t_or_none(written)))
        return True
    if fn is writes.saved_region:  # saved = saved_region(x, index, log)
        x, index = op.operands[:2]
        tr.copy(op)
        if tr.t(x) is not None:
            tr.set_tangent(op.result, tr.helper(fw.region_tangent, tr.t(x), v(index)))
        return True
    if fn is outside_containers.replace_contents:  # xs2 = replace_contents(xs1, new, loc)
        new_items = op.operands[1]
        tr.copy(op)
        tr.set_tangent(op.result, tr.t(new_items))  # xs2 holds new's items: new's tangent
        return True
    if fn is outside_containers.saved_contents:  # gradient code's save before that update
        container = op.operands[0]
        tr.copy(op)
        if tr.t(container) is not None:
            tr.set_tangent(op.result, tr.helper(fc.contents_tangent, v(container),
                                                tr.t(container)))
        return True
    if fn is writes.saved_whole:
        y = op.operands[0]
        tr.copy(op)
        if tr.t(y) is not None:
            tr.set_tangent(op.result, tr.helper(fw.whole_tangent, v(y), tr.t(y)))
        return True
    if _is(fn, _LINEAR) and not op.attrs.get("kw") and not op.attrs.get("star"):
        g, rest = op.operands[0], op.operands[1:]
        if fn is writes.overwritten_cotangent:  # never in place here: see forward_writes.py
            copy = tr.ir.call(fw.overwritten_cotangent, *[v(x) for x in op.operands],
                              expr="_zp_overwritten_cotangent_copy", hint=op.result.hint)
            tr.vmap[op.result.id] = copy
        else:
            tr.copy(op)
        if tr.t(g) is not None:  # (the other operands give positions and shapes only)
            tr.set_tangent(op.result, tr.helper(fw.linear_tangent, tr.ir.const(fn), tr.t(g),
                                                *[v(x) for x in rest]))
        return True
    return False


def mark_in_place(fn: Function) -> None:
    """Let each write's tangent update the old tangent in place where nothing reads the old
    tangent after the write: it is defined in the write's block (or is one of its
    arguments), and every other use of it comes before the write in that block."""
    uses: dict[int, list[Op]] = {}
    for op in fn.walk():
        for operand in op.operands:
            uses.setdefault(operand.id, []).append(op)
    for op in list(fn.walk()):
        if op.opcode != "call" or op.attrs["fn"] is not fw.item_tangent:
            continue
        old = op.operands[2]
        if old.defining_op is not None and old.defining_op.opcode == "const":
            continue  # no tangent yet: the helper makes a new one
        if _read_later(old, op, uses.get(old.id, ())):
            continue
        block = op.block
        flag = Op("const", (), 1, {"value": True}, loc=op.loc)
        block.insert(block.ops.index(op), flag)
        op.operands[4] = flag.result


def _read_later(old: Value, write: Op, users) -> bool:
    block = write.block
    if value_block(old) is not block:
        return True  # from an enclosing block: a loop would write it again, or it is read on
    position = block.ops.index(write)
    for user in users:
        if user is write:
            continue
        top = _ancestor_in(user, block)
        if top is None or block.ops.index(top) >= position:
            return True
    return False


def _ancestor_in(op: Op, block) -> Op | None:
    """The op of block that is op or holds it in its regions; None when op is elsewhere."""
    while op is not None:
        if op.block is block:
            return op
        parent = op.block.parent if op.block is not None else None
        op = parent
    return None
