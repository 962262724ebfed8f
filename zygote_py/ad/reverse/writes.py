"""Adjoints of in-place writes into arrays (runtime/writes.py; docs/mutation.md).

`x2 = write_item(x1, i, v)` is the same array as x1 after the write.  Its
adjoint, reached in the reverse walk exactly where the write happened:
  - restores what the write destroyed (saved by the forward just before the
    write: `ForwardPlan.save_before`), so the adjoints of earlier ops, still
    to come, read the array as it was when they ran;
  - gives the written region of the cotangent to v (NumPy's last write wins
    for repeated indices) and the rest to x1.
After a write, every other array the function names that may share memory with
it is noted as changed: `m2 = view_writeback(m1, t)` gives the elements m1
shares with t (found from their addresses) t's cotangent.
A write is visited even when no cotangent reaches it, and so are the loops and
branches holding one (`restoring_ops`): an earlier op's adjoint may read the array.
`y2 = augmented_write(y1, new)` (`y op= v` on a name) is all of new: its
cotangent goes to new, and an in-place write is undone the same way.
`xs2 = replace_contents(xs1, new)` (a list or dict from outside updated in place,
runtime/outside_containers.py) is the same for a container: its cotangent goes to new,
and the items it replaced are put back.
"""

from __future__ import annotations

from ...errors import MutationError
from ...ir.core import Function, Op
from ...runtime import outside_containers, writes
from .callees import CalleeRef, bind_parameters, callee_kind

# AdjointBuilder (adjoint.py, which imports this module) appears only in annotations,
# strings under `from __future__ import annotations`: no import, no circle

ITEM_WRITES = (writes.write_item, writes.write_item_augmented)
WHOLE_WRITES = (writes.augmented_write,)


def is_write(op: Op) -> bool:
    """A write into an array, the note that another array changed with it, or a call of a
    function that writes into arrays it is passed."""
    if op.opcode != "call":
        return False
    fn = op.attrs["fn"]
    return any(fn is w for w in ITEM_WRITES + WHOLE_WRITES) or fn is writes.view_writeback \
        or type(fn) is writes.ArgumentWrites or fn is outside_containers.replace_contents


def _undoes(op: Op) -> bool:
    return is_write(op) and op.attrs["fn"] is not writes.view_writeback


def restoring_ops(fn: Function) -> set[int]:
    """ids of the writes and of the branches and loops that contain one."""
    out: set[int] = set()

    def visit(block) -> bool:
        found = False
        for op in block.ops:
            inner = False
            for region in op.regions:  # every region is visited (no short cut)
                inner = visit(region) or inner
            if inner or _undoes(op):
                out.add(id(op))
                found = True
        return found

    visit(fn.body)
    return out


def adjoint_write(builder: AdjointBuilder, op: Op) -> None:
    fn = op.attrs["fn"]
    if fn is writes.view_writeback:
        _adjoint_writeback(builder, op)
    elif type(fn) is writes.ArgumentWrites:
        _adjoint_argument_writes(builder, op)
    elif any(fn is w for w in ITEM_WRITES):
        _adjoint_item_write(builder, op)
    elif fn is outside_containers.replace_contents:
        _adjoint_replace_contents(builder, op)
    else:
        _adjoint_whole_write(builder, op)


def _adjoint_item_write(builder: AdjointBuilder, op: Op) -> None:
    if builder.plan.fused_writes:
        _adjoint_item_write_fused(builder, op)
        return
    array, index, value = op.operands[:3]
    saved = builder.plan.save_before(op, writes.saved_region, [array, index],
                                     (array.hint or "x") + "_saved")
    g = builder.bar(op.result)
    if g is not None:
        if builder.varied_operand(value):
            like = builder.plan.save_before(op, writes.written_like, [value],
                                            (array.hint or "x") + "_written")
            part = builder.call(writes.written_value_cotangent, g, builder.fetch(index),
                                builder.fetch(like), builder.fetch(op.result),
                                expr="_zp_written_value_cotangent",
                                hint=(value.hint + "_bar") if value.hint else "")
            builder.maybe_none.add(part.id)
            builder.accumulate(value, part)
        if builder.varied_operand(array):
            rest = builder.call(writes.overwritten_cotangent, g, builder.fetch(index),
                                expr="_zp_overwritten_cotangent")
            if g.id in builder.maybe_none:  # (else a loop carries it with no zeros_if_none)
                builder.maybe_none.add(rest.id)
            builder.accumulate(array, rest)
    builder.call(writes.restore_region, builder.fetch(op.result), builder.fetch(index),
                 builder.fetch(saved), expr="_zp_restore_region")


def _adjoint_item_write_fused(builder: AdjointBuilder, op: Op) -> None:
    """The same as the three calls a write costs each way above, in one call each way (and
    overwritten_cotangent), for gradients that run: the forward's write itself becomes
    `saved = save_and_write(x, index, value, loc, log)` (`ForwardPlan.absorb_write`: x's
    new SSA value is x's old one in the forward, as the write returns the same object),
    and the backward calls `undo_write_split(g, index, x, saved, wanted)`, which restores x
    and returns the value's cotangent and the rest of g (`undo_write` where the array's own
    cotangent is not needed).  Code compiled for forward mode to read again (zp.hessian)
    keeps the separate calls, whose tangents forward mode knows."""
    array, index, value = op.operands[:3]
    fuse = writes.save_and_write if op.attrs["fn"] is writes.write_item \
        else writes.save_and_write_augmented
    saved = builder.plan.save_before(op, fuse, op.operands[:4], (array.hint or "x") + "_saved")
    builder.plan.absorb_write(op)
    g = builder.bar(op.result)
    wanted = g is not None and builder.varied_operand(value)
    i, x = builder.fetch(index), builder.fetch(op.result)
    hint = (value.hint + "_bar") if value.hint else ""
    if g is not None and builder.varied_operand(array):
        # `v_bar, x_bar = undo_write_split(x_bar, ...)`: one call, unpacked where it is made
        pair = builder.call(writes.undo_write_split, g, i, x, builder.fetch(saved),
                            builder.const(wanted), expr="_zp_undo_write_split")
        part, rest = builder.emit("unpack", [pair], 2, {"n": 2, "star": None}).results
        part.hint, rest.hint = hint, ""
        if g.id in builder.maybe_none:  # (else a loop carries it with no zeros_if_none)
            builder.maybe_none.add(rest.id)
        builder.accumulate(array, rest)
    else:
        part = builder.call(writes.undo_write, g if wanted else builder.const(None), i, x,
                            builder.fetch(saved), expr="_zp_undo_write", hint=hint)
    if wanted:
        builder.maybe_none.add(part.id)
        builder.accumulate(value, part)


def _adjoint_whole_write(builder: AdjointBuilder, op: Op) -> None:
    old, new = op.operands[:2]
    g = builder.bar(op.result)
    if g is not None and builder.varied_operand(new):
        builder.accumulate(new, g)
    if old.id in builder.scalars:
        return  # a number is rebound, never written into: nothing to undo
    saved = builder.plan.save_before(op, writes.saved_whole, [old], (old.hint or "y") + "_saved")
    builder.call(writes.restore_whole, builder.fetch(op.result), builder.fetch(saved),
                 expr="_zp_restore_whole")


def _adjoint_replace_contents(builder: AdjointBuilder, op: Op) -> None:
    """xs2 = replace_contents(xs1, new): all of xs2's cotangent is new's; the items the
    update replaced (saved by the forward) are put back."""
    old, new = op.operands[:2]
    saved = builder.plan.save_before(op, outside_containers.saved_contents, [old],
                                     (old.hint or "xs") + "_saved")
    g = builder.bar(op.result)
    if g is not None and builder.varied_operand(new):
        builder.accumulate(new, g)
    builder.call(outside_containers.restore_contents, builder.fetch(op.result),
                 builder.fetch(saved), expr="_zp_restore_contents")


def _adjoint_writeback(builder: AdjointBuilder, op: Op) -> None:
    """m2 = view_writeback(m1, t): m1 with the elements it shares with the written t
    replaced by t's (found from their addresses while running)."""
    other, written = op.operands[:2]
    g = builder.bar(op.result)
    if g is None:
        return
    m, t = builder.fetch(other), builder.fetch(written)
    if builder.varied_operand(written):
        part = builder.call(writes.writeback_value_cotangent, g, m, t,
                            expr="_zp_writeback_value_cotangent")
        builder.maybe_none.add(part.id)
        builder.accumulate(written, part)
    if builder.varied_operand(other):
        rest = builder.call(writes.writeback_rest_cotangent, g, m, t,
                            expr="_zp_writeback_rest_cotangent")
        builder.maybe_none.add(rest.id)
        builder.accumulate(other, rest)


def _adjoint_argument_writes(builder: AdjointBuilder, op: Op) -> None:
    """`(r, u2) = ArgumentWrites(f, ...)(u, ...)`: the forward calls the pullback of f's
    threaded variant, which returns the same tuple; its back takes the cotangent of the
    tuple (r's and the written arrays' after the call), undoes f's writes and gives the
    cotangents of the arguments as they were at the call.  It runs even when no cotangent
    reaches the call (an earlier op's adjoint may read the arrays f wrote); the arrays are
    logged as written here, so the backward's end puts back what the forward left."""
    wrapper = op.attrs["fn"]
    fn = wrapper.fn
    if builder.reads.calls_through_dispatch(fn):
        # a closure in a zp.params gradient: its captured parameters' cotangents are collected
        # through run-time dispatch, whose pullbacks cannot return the written arrays
        raise MutationError(
            f"{wrapper.__name__}() writes into an array passed to it and is a closure; in a "
            "zp.params gradient its captured values are differentiated through run-time "
            "dispatch, which cannot follow the write", op.loc,
            "define it at module level and pass what it captures as arguments")
    mapping = bind_parameters(fn, op, builder.current_loc)
    npos = len(op.operands) - len(op.attrs.get("kw", ()))
    passed = [op.operands[s] if type(s) is int else op.operands[npos + op.attrs["kw"].index(s)]
              for s in wrapper.sources]
    builder.plan.save_before(op, writes.log_written_arguments, passed, "_zp_logged")
    active = tuple(any(builder.varied_operand(op.operands[i]) for i in idx) for idx in mapping)
    kinds = tuple(callee_kind(builder, op, idx) for idx in mapping)
    callee = CalleeRef(fn, active, builder.reads.implicit, kinds, wrapper.params)
    if callee not in builder.callees:
        builder.callees.append(callee)
    back = builder.plan.call_with_back(op, "call_pb",
                                       dict(op.attrs, fn=fn, callee=callee, pb_expr=callee.expr))
    g = builder.bar(op.result)
    if g is None:
        g = builder.const(None)
        builder.maybe_none.add(g.id)
    call = builder.emit("call_back", [builder.fetch(back), g], len(mapping))
    for param_index, result in enumerate(call.results):
        if not active[param_index]:
            continue
        builder.maybe_none.add(result.id)
        for operand_index in mapping[param_index]:
            if builder.varied_operand(op.operands[operand_index]):
                builder.accumulate(op.operands[operand_index], result)
