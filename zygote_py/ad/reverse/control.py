"""Adjoints of structured control flow: `if`, `for`, `while`, and None-guards.

The adjoint of an `if` is an `if` on the same (saved) condition; each branch
yields the cotangents of outer values it changed.  The adjoint of a loop is a
loop over the same iterations in reverse: `for t in reversed(range(...))` for
a range, or over the recorded trip count otherwise.  Its carried values are
the cotangents of the primal's carried values, plus the cotangents of outer
values the body contributes to, added as slots the first time the body
touches them.  Cotangents of items read from an active iterable are added
into one accumulator per iterable, in place (`runtime.accum_item`; a dict's keys carry
no derivative).
"""

from __future__ import annotations

import builtins
import operator

from ...ir.core import Block, Op, Value, is_inside, iteration_pairs, value_block
from ...ir.ops import loop_layout
from ...runtime import helpers as runtime
from .adjoint import AdjointBuilder, Scope, adjoint_of


# -- scopes ---------------------------------------------------------------------
def branch(builder: AdjointBuilder, fwd_region, body_fn):
    block = Block()
    scope = Scope("branch", builder.scope, fwd_region, block)
    if fwd_region is not None:
        builder.mirror[id(fwd_region)] = block
    saved = builder.scope
    builder.scope = scope
    try:
        body_fn()
    finally:
        builder.scope = saved
    return block, scope


def merge_branches(builder: AdjointBuilder, cond: Value, branches) -> None:
    updates: list[Value] = []
    seen = set()
    for _, scope in branches:
        for vid, primal in scope.primals.items():
            if vid in seen:
                continue
            region = scope.fwd_region
            if region is None or not is_inside(value_block(primal), region):
                updates.append(primal)
                seen.add(vid)
    yields = []
    for block, scope in branches:
        values = []
        for primal in updates:
            value = scope.bars.get(primal.id)
            if value is None:
                value = builder.bar(primal)  # unchanged here: what it was before the branch
            if value is None:
                none = Op("const", (), 1, {"value": None})
                block.append(none)
                value = none.result
                builder.maybe_none.add(value.id)
            values.append(value)
        block.append(Op("yield", values, 0))
        yields.append(values)
    op = Op("if", [cond], len(updates), regions=[b for b, _ in branches], loc=builder.current_loc,
            hints=[(p.hint or "v") + "_bar" for p in updates])
    builder.block.append(op)
    for k, (primal, result) in enumerate(zip(updates, op.results)):
        if any(values[k].id in builder.maybe_none for values in yields):
            builder.maybe_none.add(result.id)
        if all(values[k].id in builder.numeric for values in yields):
            builder.numeric.add(result.id)
        builder.set_bar(primal, result)


def guarded(builder: AdjointBuilder, g: Value, body_fn) -> None:
    """Run body_fn's adjoint code only when the cotangent g is not None at run time."""
    none = builder.const(None)
    cond = builder.call(operator.is_not, g, none, expr="is_not")
    saved = builder.maybe_none
    builder.maybe_none = set(saved) - {g.id}  # inside the guard, g is known to be set
    then = branch(builder, None, body_fn)
    builder.maybe_none = saved | (builder.maybe_none - {g.id})
    otherwise = branch(builder, None, lambda: None)
    merge_branches(builder, cond, [then, otherwise])


# -- if ------------------------------------------------------------------
@adjoint_of("if")
def adjoint_if(builder: AdjointBuilder, op: Op) -> None:
    cond = builder.fetch(op.operands[0])

    def body(region):
        def run():
            for k, result in enumerate(op.results):
                incoming = builder.bar(result)
                if incoming is not None:
                    yielded = region.ops[-1].operands[k]
                    if yielded.id in builder.varied:
                        builder.accumulate(yielded, incoming)
            builder.adjoint_block(region)

        return run

    branches = [branch(builder, region, body(region)) for region in op.regions]
    builder.current_loc = op.loc  # the branches left it at their last op; the `if` is labelled with its own line
    merge_branches(builder, cond, branches)


# -- loops -----------------------------------------------------------------
@adjoint_of("for")
def adjoint_for(builder: AdjointBuilder, op: Op) -> None:
    _adjoint_loop(builder, op)


@adjoint_of("while")
def adjoint_while(builder: AdjointBuilder, op: Op) -> None:
    _adjoint_loop(builder, op)


def _adjoint_loop(builder: AdjointBuilder, op: Op) -> None:
    is_for = op.opcode == "for"
    kind = op.attrs.get("kind") if is_for else "while"
    layout = loop_layout(op)
    body = op.regions[-1]
    nslots = len(op.results)
    iterables, inits, carried_args = layout.iterables, layout.inits, layout.carried
    results, yields = layout.results, layout.yields
    active_slots = [k for k in range(nslots) if carried_args[k].id in builder.varied]
    if not any(builder.bar(results[k]) is not None for k in active_slots) \
            and id(op) not in builder.restoring \
            and id(op) not in builder.effectful:  # a loop that writes is undone regardless
        return
    needs_count = kind != "range" or bool(op.attrs.get("exit"))
    count = builder.plan.trip_count(op) if needs_count else None  # counted by the forward

    # the reversed iteration
    if kind == "range":
        rng = builder.call(builtins.range, *[builder.fetch(a) for a in iterables], expr="range")
        if count is not None:
            cut = builder.call(builtins.slice, builder.const(None), builder.fetch(count),
                               expr="slice")
            rng = builder.call(operator.getitem, rng, cut, expr="getitem")
    else:
        rng = builder.call(builtins.range, builder.fetch(count), expr="range")
    reverse = builder.call(builtins.reversed, rng, expr="reversed")

    slot_inits = []
    for k in active_slots:
        incoming = builder.bar(results[k])
        if incoming is None:
            incoming = builder.const(None)
            builder.maybe_none.add(incoming.id)
        slot_inits.append(incoming)

    bbody = Block()
    target = bbody.add_arg(body.args[0].hint if (kind == "range" and body.args) else "_zp_i")
    slot_args = []
    for k, init in zip(active_slots, slot_inits):
        arg = bbody.add_arg((carried_args[k].hint or "v") + "_bar")
        if init.id in builder.maybe_none:
            builder.maybe_none.add(arg.id)
        if init.id in builder.numeric:
            builder.numeric.add(arg.id)
        slot_args.append(arg)
    loop = Op("for", [reverse, *slot_inits], len(active_slots), regions=[bbody], loc=op.loc,
              attrs={"kind": "iter", "exit": (), "ntargets": 1},
              hints=[(carried_args[k].hint or "v") + "_bar" for k in active_slots])
    builder.block.append(loop)
    if kind == "range":
        builder.fetched[body.args[0].id] = target

    scope = Scope("loop", builder.scope, body, bbody)
    scope.loop_op = loop
    builder.mirror[id(body)] = bbody
    saved = builder.scope
    builder.scope = scope
    index_accumulators = []
    try:
        for k, arg in zip(active_slots, slot_args):
            if yields[k].id in builder.varied:
                builder.accumulate(yields[k], arg)
        builder.adjoint_block(body)
        if kind != "range":
            for pair in _item_cotangents(builder, op, kind, target):
                if pair not in scope.index_keys:
                    scope.index_keys.append(pair)
        index_accumulators = scope.index_keys
        out = []
        for k, arg in zip(active_slots, slot_args):
            value = builder.bar(carried_args[k])
            if value is None or (value.id in builder.maybe_none
                                 and arg.id not in builder.maybe_none):
                value = _materialize(builder, value, carried_args[k])
            out.append(value)
        out += [scope.bars[v.id] for v in scope.slots]
        bbody.append(Op("yield", out, 0))
    finally:
        builder.scope = saved

    # outer values' cotangents first: the slots carried their whole value through the loop
    for value, result in zip(scope.slots, loop.results[len(active_slots):]):
        builder.maybe_none.add(result.id)
        builder.set_bar(value, result)
    for k, result, arg in zip(active_slots, loop.results, slot_args):
        if arg.id in builder.maybe_none:
            builder.maybe_none.add(result.id)
        if inits[k].id in builder.varied:
            builder.accumulate(inits[k], result)
    for key, iterable in index_accumulators:
        total = builder.scope.bars.pop(key.id, None)
        builder.scope.primals.pop(key.id, None)
        if total is not None:
            builder.accumulate(iterable, total)


def _materialize(builder: AdjointBuilder, value, primal: Value) -> Value:
    """A cotangent that may be None where the loop needs a value: zeros of primal's shape."""
    if value is None:
        value = builder.const(None)
    out = builder.call(runtime.zeros_if_none, value, builder.fetch(primal),
                       expr="_zp_zeros_if_none")
    builder.numeric.add(out.id)
    return out


def _item_cotangents(builder: AdjointBuilder, op, kind, index):
    """Add the cotangents of this iteration's items into their iterables' accumulators."""
    builder.current_loc = op.loc  # the items come from the loop's own line
    keys = []
    for iterable, item in iteration_pairs(op):
        if iterable.id not in builder.varied:
            continue
        item_bar = builder.bar(item)
        if item_bar is None:
            continue
        key = builder.index_key(iterable, op)
        acc = builder.bar_for_update(key)
        if acc is None:
            acc = builder.const(None)
        new = builder.call(runtime.accum_item, acc, builder.fetch(iterable), index, item_bar,
                           builder.const(kind == "reversed"), expr="_zp_accum_item",
                           hint=(iterable.hint or "v") + "_bar")
        builder.set_bar(key, new)
        keys.append((key, iterable))
    return keys

