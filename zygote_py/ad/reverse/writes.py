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

import operator

import numpy as np

from ...analysis.scalars import certainly_int
from ...analysis.shapes import sliced_key
from ...errors import MutationError
from ...ir.core import Function, Op, Value
from ...ir.ops import loop_layout
from ...runtime import helpers as runtime_helpers
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


def same_object_slots(fn: Function) -> dict[int, Value]:
    """value id -> the loop's initial value, for the values of a loop slot that only
    item writes touch: `out[i] = v` in the body (any number of writes, one after the
    other), the slot neither rebound nor merged.  A write returns the object it wrote
    into, so the carried value, each write's result and the loop's result are that one
    object every iteration: the array the loop was entered with."""
    out: dict[int, Value] = {}
    for op in fn.walk():
        if op.opcode not in ("for", "while"):
            continue
        layout = loop_layout(op)
        for k in range(len(op.results)):
            carried, chain = layout.carried[k], []
            value = layout.yields[k]
            while value is not carried:
                source = value.defining_op
                if source is None or source.opcode != "call" or \
                        not any(source.attrs.get("fn") is w for w in ITEM_WRITES):
                    break
                chain.append(value)
                value = source.operands[0]
            if value is not carried or not chain:
                continue
            for v in (carried, *chain, op.results[k],
                      *([layout.cond_args[k]] if layout.cond_args else ())):
                out[v.id] = layout.inits[k]
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
    created = _float_vector_sources(builder, op)
    g = builder.bar(op.result)
    entering = None
    if created is not None and g is not None and builder.varied_operand(array):
        entering = _owns_loop_cotangent(builder, op, g)
    restores = entering is None or not _restore_unneeded(builder, op)
    hint = (array.hint or "x") + "_saved"
    if created is not None:  # `x_saved = x[i]; x[i] = v`, inline (see _float_vector_sources)
        saved = builder.plan.inline_item_write(op, hint, save=restores)
        for made in created:
            builder.plan.log_after(made)
    else:
        fuse = writes.save_and_write if op.attrs["fn"] is writes.write_item \
            else writes.save_and_write_augmented
        saved = builder.plan.save_before(op, fuse, op.operands[:4], hint)
        builder.plan.absorb_write(op)
    wanted = g is not None and builder.varied_operand(value)
    hint = (value.hint + "_bar") if value.hint else ""
    if entering is not None:
        # `v_bar = x_bar[i]; x[i] = x_saved; x_bar[i] = 0.0`, inline (_owns_loop_cotangent);
        # x is the array the loop was entered with: the body only writes into it, so it
        # is the same object every iteration, and the tape need not keep it
        i, x = builder.fetch(index), builder.fetch(entering)
        if wanted:
            part = builder.call(operator.getitem, g, i, expr="getitem", hint=hint)
        if restores:
            builder.call(writes.store_item, x, i, builder.fetch(saved), expr="_zp_store_item")
        builder.call(writes.store_item, g, i, builder.const(0.0), expr="_zp_store_item")
        builder.accumulate(array, g)
        if wanted:
            builder.accumulate(value, part)
        return
    i, x = builder.fetch(index), builder.fetch(op.result)
    if g is not None and builder.varied_operand(array):
        # `v_bar, x_bar = undo_write_split(x_bar, ...)`: one call, unpacked where it is made
        pair = builder.call(writes.undo_write_split, g, i, x, builder.fetch(saved),
                            builder.const(wanted), expr="_zp_undo_write_split")
        if _saves_plainly(builder, op) and op.attrs["fn"] is writes.write_item:
            builder.plain_undos[pair.id] = (op, saved)  # (owned_slots.py: inline backward)
        part, rest = builder.emit("unpack", [pair], 2, {"n": 2, "star": None}).results
        part.hint, rest.hint = hint, ""
        if g.id in builder.maybe_none:  # (else a loop carries it with no zeros_if_none)
            builder.maybe_none.add(rest.id)
        builder.accumulate(array, rest)
    else:
        part = builder.call(writes.undo_write, g if wanted else builder.const(None), i, x,
                            builder.fetch(saved), expr="_zp_undo_write", hint=hint)
    if wanted:
        # a cotangent g that is not None gives the value written into a float array one
        # (undo_write: g[i], or its sum to the value's shape); only an int array's is None
        if g.id in builder.maybe_none or array.id not in builder.float_arrays:
            builder.maybe_none.add(part.id)
        builder.accumulate(value, part)


def _saves_plainly(builder: AdjointBuilder, op: Op) -> bool:
    """Whether save_and_write certainly saves what `x[index] = v` overwrites as it is (a
    float, or a copy of the region; never an `Overwritten`), so that its backward is
    `v_bar = x_bar[index].copy(); x[index] = saved; x_bar[index] = 0`: x a 1-D exact real
    float ndarray (array kinds), index a constant int (one element) or a constant slice
    s:-e whose region has the shape key of v (analysis/shapes.py: then v is an array of
    the region's shape, nothing broadcast)."""
    array, index, value = op.operands[:3]
    source = index.defining_op
    if builder.float_arrays.get(array.id) != 1 or source is None or source.opcode != "const":
        return False
    if type(source.attrs["value"]) is int:
        return True
    base = builder.shapes.get(array.id)
    region = sliced_key(base, index) if base is not None else None
    return region is not None and builder.shapes.get(value.id) == region


def _owns_loop_cotangent(builder: AdjointBuilder, op: Op, g: Value) -> Value | None:
    """For an inline write `x[i] = v` (_float_vector_sources), whether its backward may be
    inline too, `v_bar = x_bar[i]; x[i] = x_saved; x_bar[i] = 0.0`: g, the cotangent of
    the written array, must be an ndarray no other variable holds, zeroed in place.  Shown
    here from the code being generated, not from reference counts while running:
      - the write is directly in a loop's body, its array is a slot of that loop that
        the body touches only through this write (the carried value's one use is the
        write, the write's result's one use is the loop's yield: no read, no view, no
        other write of it in the body);
      - g is the backward loop's own slot for it (nothing else added into it), not
        possibly None, and nothing in the function may be complex;
    then the slot's initial value is copied once before the backward loop
    (`runtime.helpers.owned_copy`), and inside the loop only this backward reads or
    writes the copy: zeroing its element in place disturbs nothing else.  Returns the
    array the forward loop was entered with (the slot's initial value: every iteration
    writes into that same object), None where the backward keeps the call."""
    scope = builder.scope
    if scope.kind != "loop" or op.block is not scope.fwd_region or builder.maybe_complex \
            or g.id in builder.maybe_none or not any(g is arg for arg in scope.block.args):
        return None
    body = scope.fwd_region
    layout = loop_layout(body.parent)
    carried, result = op.operands[0], op.results[0]
    slots = [k for k, (c, y) in enumerate(zip(layout.carried, layout.yields))
             if c is carried and y is result]
    if len(slots) != 1 or _uses(body, carried.id) != 1 or _uses(body, result.id) != 1:
        return None
    # the backward loop's operand for this slot (its block's arguments: the target, slots)
    position = next(k for k, arg in enumerate(scope.block.args) if arg is g)
    loop_op = scope.loop_op
    init = loop_op.operands[position]
    if init.id in builder.maybe_none:
        return None
    parent_block = loop_op.block
    with builder.ir.at(parent_block, parent_block.ops.index(loop_op)), builder.ir.at_loc(None):
        owned = builder.call(runtime_helpers.owned_copy, init, expr="_zp_owned_copy",
                             hint=init.hint)
    builder.numeric.add(owned.id)
    loop_op.operands[position] = owned
    return layout.inits[slots[0]]


def _restore_unneeded(builder: AdjointBuilder, op: Op) -> bool:
    """For an inline write whose backward is inline too (_owns_loop_cotangent), whether no
    adjoint that runs after its backward reads the array, so the element the write
    destroyed need not be saved or put back (the final state is put back at the end
    anyway: writes.restore_final).  The adjoints that run later are those of the ops
    before the write: the loop's body touches the array only through this write (shown
    by _owns_loop_cotangent), so what remains is the code before the loop.  Shown from
    the array's may-alias class (every value that may be that array): each of its uses is
    the write, the loop taking it in or yielding it, or an op after the loop, at the
    function's top level (a loop inside another would run again after such reads)."""
    loop = op.block.parent
    top = builder.fn.body
    if loop is None or loop.block is not top:
        return False
    members = set((builder.fn.meta.get("closed_classes") or {}).get(op.operands[0].id) or ())
    if not members:
        return False
    order = {id(o): k for k, o in enumerate(top.ops)}
    after = order[id(loop)]
    for user in top.ops:
        for inner in (user, *(o for region in user.regions for o in region.walk())):
            if not any(v.id in members for v in inner.operands):
                continue
            if inner is op or inner is loop or (inner.opcode == "yield" and inner.block is op.block):
                continue
            if order[id(user)] <= after:
                return False
    return True


def _uses(block, value_id: int) -> int:
    """How many operands in block (its nested regions included) are the value."""
    return sum(1 for op in block.walk() for v in op.operands if v.id == value_id)


# -- the write the forward makes inline ------------------------------------------------------
_FLOAT_VECTORS = (np.zeros, np.ones, np.empty)  # called with one number: a 1-D float64 ndarray
_INT_ARITHMETIC = (operator.add, operator.sub)


def _float_vector_sources(builder: AdjointBuilder, op: Op) -> list[Value] | None:
    """For `x[i] = v` (not augmented) where the transform can prove that x is a 1-D float64
    ndarray the function made and nothing else can reach, and i an int: the values that
    made x's memory (`np.zeros(n)` and the like), which the forward logs as written right
    after they are made.  None otherwise.

    Then `x[i]` is one float64 element, saved as it is, and `x[i] = v` is NumPy's own
    write: the forward writes `x_saved = x[i]; x[i] = v` inline, with no helper call.
    The proof, from the lowering's may-alias classes (`Function.meta["closed_classes"]`,
    frontend/lower_writes.py): x's class holds no argument, global, closure value,
    container, view or result of an unknown call, and every value in it is a call of
    np.zeros, np.ones or np.empty with one number (no dtype, no `like`), the result of a
    write into a value of the class (the same object), or a loop's or branch's merge of
    values of the class.  i is a `range` loop's target, an int constant, or their sum or
    difference.  Anything else -- a copy, an argument's array, a view, an int or float32
    array, a 2-D array, an index that may be a bool, a slice or an array -- takes
    save_and_write, which decides from the objects while running."""
    if op.attrs["fn"] is not writes.write_item or not certainly_int(op.operands[1], 3):
        return None
    classes = builder.fn.meta.get("closed_classes") or {}
    members = classes.get(op.operands[0].id)
    if not members:
        return None
    ids = set(members)
    created = []
    for value in _class_values(builder.fn, ids):
        source = value.defining_op
        if source is None:  # a block argument: only a loop's carried slot
            if not _carried_argument(value):
                return None
        elif source.opcode in ("for", "while", "if"):
            continue  # a merge of values of the class
        elif source.opcode == "call" and source.attrs["fn"] is writes.write_item \
                and source.operands[0].id in ids:
            continue  # the same object, written
        elif source.opcode == "call" and any(source.attrs["fn"] is f for f in _FLOAT_VECTORS) \
                and len(source.operands) == 1 and not source.attrs.get("kw") \
                and not source.attrs.get("star") and _certainly_number(builder, source.operands[0]):
            created.append(value)
        else:
            return None
    return created or None


def _class_values(fn: Function, ids: set) -> list[Value]:
    """The values of fn with these ids (op results and block arguments)."""
    found = [arg for arg in fn.body.args if arg.id in ids]
    for op in fn.walk():
        found += [r for r in op.results if r.id in ids]
        for region in op.regions:
            found += [arg for arg in region.args if arg.id in ids]
    return found


def _carried_argument(value: Value) -> bool:
    block = value.owner
    loop = getattr(block, "parent", None)
    if loop is None or loop.opcode not in ("for", "while"):
        return False
    layout = loop_layout(loop)
    return any(value is v for v in layout.carried) or any(value is v for v in layout.cond_args)


def _certainly_number(builder: AdjointBuilder, value: Value, depth: int = 3) -> bool:
    """A number (the length np.zeros is given: its result is then 1-D, or NumPy raises):
    a scalar, an int, `len(...)`, or the sum or difference of two such values."""
    source = value.defining_op
    if value.id in builder.scalars or certainly_int(value, depth):
        return True
    if source is None or source.opcode != "call" or source.attrs.get("kw") \
            or source.attrs.get("star"):
        return False
    if source.attrs["fn"] is len:
        return True
    return depth > 0 and any(source.attrs["fn"] is f for f in _INT_ARITHMETIC) and \
        len(source.operands) == 2 and all(_certainly_number(builder, v, depth - 1)
                                          for v in source.operands)


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
