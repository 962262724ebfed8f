"""Backward loops that own an array cotangent: a stencil's `u_bar` updated in place.

The backward of a loop that writes a slice of an array and reads shifted slices of it
(the heat equation's `u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])`) carries
`u_bar` from iteration to iteration.  Each iteration the write's backward takes the
region's cotangent out and zeroes it (`undo_write_split`), and each read adds its
cotangent into a region (`accum(u_bar, _index_cotangent(g, u, index))`, which
codegen/fuse.py joins into `_add_index_cotangent`).  Those helpers decide while running,
from reference counts, whether they may write into `u_bar`, at a few microseconds a call.

Here the backward IR itself shows it: for a slot of a backward loop whose values form one
chain, the loop's argument read by one such op, its result by the next, ..., the last one
yielded back to the slot, and each of these values read by nothing else (no other
variable, container or view can hold the array), with

  - every read's index a constant basic index (ints, slices), its cotangent g certainly
    not None and real (a gradient's real seed, nothing in the function complex), and
    the array read (`u`) an exact real float ndarray of one shape key for the whole
    chain (analysis/shapes.py);
  - every write's forward proven to save the overwritten part as it is
    (writes.py: _saves_plainly: a 1-D real float array, a constant index, a value of
    the region's shape);

the loop is given, just before it starts, a private array holding the incoming
cotangent in the array's shape (`runtime.helpers.owned_accumulator`, from one of the
chain's arrays read at the function's top level), and the chain becomes statements on
it: a read's cotangent `u_bar[index] += g`, a write's backward `v_bar =
u_bar[index].copy(); u[index] = saved; u_bar[index] = 0.0`.  The loop yields the same
array it was given.  Where anything differs the helpers stay.

These are the helpers' own results where they write in place: `acc + (g at index)` is
acc with g added into the region, for a basic index that names each element once.  (A
zero's sign may differ: `-0.0 + 0.0`.)  Only in code compiled to run, not for forward
mode to read again (the statements have no rules of their own; the generated code is
plain Python for any later transform).
"""

from __future__ import annotations

import operator

import numpy as np

from ...frontend.lower_writes import FRESH_CALLS, FRESH_METHODS
from ...ir.builder import IRBuilder
from ...ir.core import Block, Op, Value
from ...ir.ops import loop_layout
from ...rules.indexing import _index_cotangent
from ...runtime import helpers as runtime_helpers
from ...runtime import writes
from .kept_regions import keep_overwritten_regions

_BASIC_PARTS = (int, slice)


def own_loop_cotangents(builder) -> None:
    """Rewrite every backward loop slot that qualifies (see the module docstring)."""
    if not builder.plan.fused_writes or builder.maybe_complex or not builder.real_seed:
        return
    readers: dict[int, list[Op]] = {}
    for op in builder.backward.walk():
        for value in op.operands:
            readers.setdefault(value.id, []).append(op)
    restores: list[tuple[Op, Op, Op, Value]] = []  # (backward loop, restore, write, saved)
    for loop in [op for op in builder.backward.walk() if op.opcode == "for"]:
        layout = loop_layout(loop)
        for k in range(len(loop.results)):
            _own_slot(builder, loop, layout, k, readers, restores)
    for loop, restore, write, saved in restores:
        if _restore_unneeded(builder, loop, restore, write):
            _drop_restore(builder, restore, write, saved)


def _own_slot(builder, loop: Op, layout, k: int, readers: dict[int, list[Op]],
              restores: list) -> None:
    body = loop.regions[-1]
    carried = layout.carried[k]
    chain = _chain(builder, body, carried, layout.yields[k], readers)
    if not chain:
        return
    arrays = [_array_of(op) for op, _ in chain]
    keys = {builder.shapes.get(a.id) for a in arrays}
    if None in keys or len(keys) != 1 or not all(a.id in builder.float_arrays for a in arrays):
        return
    like = next((a for a in arrays if _at_top_level(builder, a)), None)
    if like is None:
        return
    # the private array, made just before the loop from the slot's incoming cotangent
    position = 1 + k  # (a backward loop's operands: its iterable, then one per slot)
    init = loop.operands[position]
    outer = loop.block
    ir = IRBuilder(outer, outer.ops.index(loop), None)
    owned = ir.call(runtime_helpers.owned_accumulator, init, like, expr="_zp_owned_accumulator",
                    hint=init.hint)
    loop.operands[position] = owned
    builder.numeric.add(owned.id)
    mapping: dict[int, Value] = {}
    for op, following in chain:
        restore = _write_out(builder, body, op, carried, mapping)
        if restore is not None:
            restores.append((loop, restore, *builder.plain_undos[op.result.id]))
        mapping[following.id] = carried
    for inner in body.walk():
        inner.operands = [mapping.get(v.id, v) for v in inner.operands]
    keep_overwritten_regions(builder, body, carried)  # (kept_regions.py)


def _chain(builder, body: Block, carried: Value, yielded: Value, readers) -> list[tuple[Op, Value]]:
    """[(op, the array's value after it)] from the loop's argument to its yield, each value
    read by the next op alone; [] where the slot is not such a chain."""
    chain: list[tuple[Op, Value]] = []
    value = carried
    while value is not yielded:
        users = readers.get(value.id, ())
        if len(users) != 1 or users[0].block is not body:
            return []
        op = users[0]
        following = _step(builder, body, op, value, readers)
        if following is None:
            return []
        chain.append((op, following))
        value = following
    yield_op = body.ops[-1]
    if len(readers.get(value.id, ())) != 1 or sum(v is value for v in yield_op.operands) != 1:
        return []
    return chain


def _step(builder, body: Block, op: Op, value: Value, readers) -> Value | None:
    """The array's value after op, where op is one the chain may hold; None otherwise."""
    if op.opcode != "call" or op.attrs.get("kw") or op.attrs.get("star") or not op.operands \
            or op.operands[0] is not value:
        return None
    fn = op.attrs["fn"]
    if fn is runtime_helpers.accum and len(op.operands) == 2:
        scattered = op.operands[1]
        source = scattered.defining_op
        if source is None or source.block is not body or source.opcode != "call" \
                or source.attrs["fn"] is not _index_cotangent or len(source.operands) != 3 \
                or source.attrs.get("kw") or source.attrs.get("star") \
                or len(readers.get(scattered.id, ())) != 1:
            return None
        g, _, index = source.operands
        if g.id in builder.maybe_none or not _basic_constant(index):
            return None
        return op.result
    if fn is writes.undo_write_split and len(op.operands) == 5 and op.result.id in builder.plain_undos:
        users = readers.get(op.result.id, ())
        if len(users) != 1 or users[0].opcode != "unpack" or users[0].block is not body \
                or len(users[0].results) != 2 or not _basic_constant(op.operands[1]):
            return None
        return users[0].results[1]
    return None


def _array_of(op: Op) -> Value:
    """The forward array a chain op is about: the read's `a`, the write's `x`."""
    if op.attrs["fn"] is writes.undo_write_split:
        return op.operands[2]
    return op.operands[1].defining_op.operands[1]


def _at_top_level(builder, value: Value) -> bool:
    """A forward value bound at the function's top level (or a parameter): read directly by
    the backward anywhere, so also just before the loop."""
    source = value.defining_op
    if source is None:
        return any(value is p for p in builder.fn.params)
    return source.block is builder.fn.body


def _basic_constant(index: Value) -> bool:
    """A constant int or slice of ints and None, or a tuple of those: each element once."""
    source = index.defining_op
    if source is None or source.opcode != "const":
        return False
    value = source.attrs["value"]
    parts = value if type(value) is tuple else (value,)
    return all(type(p) in _BASIC_PARTS and (type(p) is int or all(
        b is None or type(b) is int for b in (p.start, p.stop, p.step))) for p in parts)


def _write_out(builder, body: Block, op: Op, acc: Value, mapping: dict) -> Op | None:
    """op of the chain, as statements on acc, the array the loop owns; a write's restore
    (`x[index] = saved`) is returned."""
    ir = IRBuilder(body, body.ops.index(op), op.loc)
    if op.attrs["fn"] is writes.undo_write_split:
        _, index, x, saved, wanted = op.operands
        unpack = next(o for o in body.ops if o.opcode == "unpack" and o.operands[0] is op.result)
        part = unpack.results[0]
        if _const_value(wanted):
            region = ir.call(operator.getitem, acc, index, expr="getitem")
            copied = ir.emit("method", [region], 1, {"name": "copy", "kw": (), "star": ()},
                             hints=[part.hint] if part.hint else ()).result
            mapping[part.id] = copied
            builder.numeric.add(copied.id)
        restore = ir.call(writes.store_item, x, index, saved, expr="_zp_store_item").defining_op
        ir.call(writes.store_item, acc, index, ir.const(0.0), expr="_zp_store_item")
        body.ops.remove(op)
        op.block = None
        body.ops.remove(unpack)
        unpack.block = None
        return restore
    source = op.operands[1].defining_op
    g, _, index = source.operands
    negated = _negated_scaling(body, g)
    if negated is not None:  # `acc[index] -= x * k` for `acc[index] += -x * k`
        scaling, neg = negated
        scaling.operands[0] = neg.operands[0]
        body.ops.remove(neg)
        neg.block = None
        ir.call(runtime_helpers.subtract_from_item, acc, index, g, expr="_zp_subtract_from_item")
    else:
        ir.call(runtime_helpers.add_into_item, acc, index, g, expr="_zp_add_into_item")
    body.ops.remove(op)
    op.block = None
    body.ops.remove(source)
    source.block = None
    return None


def _negated_scaling(body: Block, g: Value) -> tuple[Op, Op] | None:
    """(`g = n * k`, `n = -x`) where g is a negated cotangent times a number constant (a
    difference's rule, then a constant factor's), each read once, in the loop's body: the
    chain's g is a real number or float array (see the module docstring), for which
    acc - x * k is acc + (-x) * k exactly."""
    scaling = g.defining_op
    if scaling is None or scaling.block is not body or scaling.opcode != "call" \
            or scaling.attrs["fn"] is not operator.mul or len(scaling.operands) != 2 \
            or scaling.attrs.get("kw") or scaling.attrs.get("star") \
            or not _number_constant(scaling.operands[1]) or len(_readers(body, g)) != 1:
        return None
    negated = scaling.operands[0]
    neg = negated.defining_op
    if neg is None or neg.block is not body or neg.opcode != "call" \
            or neg.attrs["fn"] is not operator.neg or len(neg.operands) != 1 \
            or neg.attrs.get("kw") or neg.attrs.get("star") or len(_readers(body, negated)) != 1:
        return None
    return scaling, neg


def _readers(body: Block, value: Value) -> list[Op]:
    return [op for op in body.walk() for v in op.operands if v is value]


def _const_value(value: Value):
    source = value.defining_op
    return source.attrs["value"] if source is not None and source.opcode == "const" else None


# -- restores nothing reads ------------------------------------------------------------------
def _restore_unneeded(builder, loop: Op, restore: Op, write: Op) -> bool:
    """Whether no backward op that runs after `restore` (one iteration's `x[index] =
    saved`) reads the array's memory: the backward loop is at the backward's top level,
    and neither its body (the iterations still to come) nor the ops after it read a value
    that may share memory with x -- a forward value of x's may-alias class
    (`_may_alias`), or one the tape gives back for such a value -- except this restore
    itself and the final state put back at the end (`restore_final`, which writes the
    whole array).  Reads before the loop (the loss's rule reading the final `u`) run
    before any restore."""
    if loop.block is not builder.backward:
        return False
    members = _may_alias(builder, write.operands[0])
    known = _forward_values(builder)
    popped = {v.id: primal_id for primal_id, v in builder.fetched.items()}
    made_here = {r.id for op in builder.backward.walk() if op.opcode != "tape_pop" for r in op.results}
    made_here |= {a.id for op in builder.backward.walk() for region in op.regions for a in region.args}
    made_here |= {a.id for a in builder.backward.args}  # (the seed)
    after = builder.backward.ops[builder.backward.ops.index(loop) + 1:]
    for top in [loop, *after]:
        inner = [o for region in top.regions for o in region.walk()]
        for op in (inner if top is loop else [top, *inner]):
            if op is restore or (op.opcode == "call" and op.attrs.get("fn") is writes.restore_final):
                continue
            for value in op.operands:
                if value.id in made_here:
                    continue  # computed by the backward from operands checked where read
                primal = popped.get(value.id, value.id)
                if primal in members or primal not in known:
                    return False  # (a callee's back function may hold views of the array)
    return True


def _forward_values(builder) -> set[int]:
    """The ids of the values the forward has that hold no view of anything they were not
    given: the primal's own values (their aliasing is `_may_alias`'s), the saves of writes
    (copies), saved shapes, trip counts and the write log.  Back functions of callees are
    not among them."""
    fn = builder.fn
    out = {p.id for p in fn.params} | {p.id for p in fn.body.args}
    for op in fn.walk():
        out.update(r.id for r in op.results)
        for region in op.regions:
            out.update(a.id for a in region.args)
    plan = builder.plan
    for entries in plan.saves.values():
        out.update(value.id for _, _, value in entries)
    out.update(v.id for v in plan.shapes.values())
    out.update(v.id for v in plan.trip_counts.values())
    if plan.write_log is not None:
        out.add(plan.write_log.id)
    return out


_FRESH_OPERATORS = (operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
                    operator.mod, operator.pow, operator.neg, operator.pos, operator.matmul)


def _may_alias(builder, array: Value) -> set[int]:
    """The ids of the forward values that may share memory with array: the classes of a
    union-find over the forward IR in which every op's result joins its operands, except
    the ops that certainly make a new object (arithmetic and ufuncs of arrays and numbers,
    the lowering's fresh NumPy calls and methods), a write's result joins only the array
    written, and loops and branches join what they carry and yield with their results."""
    parent: dict[int, int] = {}

    def root(vid: int) -> int:
        parent.setdefault(vid, vid)
        while parent[vid] != vid:
            parent[vid] = parent[parent[vid]]
            vid = parent[vid]
        return vid

    def union(a: Value, b: Value) -> None:
        parent[root(a.id)] = root(b.id)

    for op in builder.fn.walk():
        if op.opcode in ("for", "while"):
            layout = loop_layout(op)
            for k in range(len(op.results)):
                for v in (layout.inits[k], layout.carried[k], layout.yields[k],
                          *([layout.cond_args[k]] if layout.cond_args else ())):
                    union(v, op.results[k])
            for target in layout.targets:  # an item of an iterable may be a view of it
                for iterable in layout.iterables:
                    union(target, iterable)
        elif op.opcode == "if":
            for region in op.regions:
                for v, r in zip(region.ops[-1].operands, op.results):
                    union(v, r)
        elif op.opcode in ("const", "yield", "return") or not op.results:
            continue
        elif _fresh(builder, op):
            continue
        elif op.opcode == "call" and op.attrs["fn"] in _WRITES and op.operands:
            union(op.operands[0], op.result)
        else:
            for result in op.results:
                for v in op.operands:
                    union(v, result)
    home = root(array.id)
    return {vid for vid in list(parent) if root(vid) == home}


_WRITES = (writes.write_item, writes.write_item_augmented)


def _fresh(builder, op: Op) -> bool:
    if op.attrs.get("kw") or op.attrs.get("star"):
        return False
    known = builder.arrays | builder.scalars
    if op.opcode == "method":
        return op.attrs.get("name") in FRESH_METHODS and op.operands[0].id in known
    if op.opcode != "call":
        return False
    fn = op.attrs["fn"]
    if any(fn is f for f in _FRESH_OPERATORS) or isinstance(fn, np.ufunc):
        return all(v.id in known or _number_constant(v) for v in op.operands)
    try:
        return fn in FRESH_CALLS
    except TypeError:  # an unhashable callee
        return False


def _number_constant(value: Value) -> bool:
    source = value.defining_op
    return source is not None and source.opcode == "const" and \
        type(source.attrs["value"]) in (int, float, bool)


def _drop_restore(builder, restore: Op, write: Op, saved: Value) -> None:
    """No restore, and the forward saves nothing for it: the write is the statement
    `x[index] = v`, the array logged as written once, just after the value the loop is
    entered with is made (it is that object every iteration: writes.same_object_slots);
    or, where the tape must still push something in its place, `write_unsaved`."""
    plan = builder.plan
    restore.block.ops.remove(restore)
    restore.block = None
    untaped = _untape(builder, saved)
    entering = builder.same_object.get(write.operands[0].id)
    plan.saves[id(write)] = [entry for entry in plan.saves[id(write)] if entry[2] is not saved]
    if untaped and entering is not None and entering.defining_op is not None \
            and not plan.saves[id(write)]:
        plan.absorbed.discard(id(write))
        plan.inline_item_write(write, saved.hint, save=False)
        plan.log_after(entering)
        return
    fused = writes.write_unsaved  # (returns None, pushed where the tape keeps a place)
    plan.saves[id(write)].append((fused, list(write.operands[:4]), saved))


def _untape(builder, saved: Value) -> bool:
    """Take saved off its tape; False where it is the only value its pop gives back (the
    pop stays, and the forward pushes something in its place)."""
    for record in builder.tapes.created:
        for where, values in (("end", record.end), ("start", record.start)):
            for j, value in enumerate(values):
                if value is saved:
                    if len(values) == 1:
                        return False
                    values.pop(j)
                    record.pops[where].results.pop(j)
                    return True
    return True  # never taped
