"""Adjoints of structured control flow: `if`, `for`, `while`, and None-guards.

The adjoint of an `if` is an `if` on the same (saved) condition; each branch
yields the cotangents of outer values it changed.  The adjoint of a loop is a
loop over the same iterations in reverse: `for t in reversed(range(...))` for
a range, or over the recorded trip count otherwise.  Its carried values are
the cotangents of the primal's carried values, plus the cotangents of outer
values the body contributes to, added as slots the first time the body
touches them.  Cotangents of items read from an active iterable are added
into one accumulator per iterable, in place (`runtime.accum_index`).
"""

from __future__ import annotations

import builtins
import operator

from ..runtime import helpers as runtime
from ..ir.core import Block, Op, Value, is_inside, iteration_pairs, value_block


class ControlFlowAdjoints:
    """Mixin of ReverseTransform."""

    # -- scopes ------------------------------------------------------------
    def branch(self, fwd_region, body_fn):
        from .reverse import Scope

        block = Block()
        scope = Scope("branch", self.scope, fwd_region, block)
        if fwd_region is not None:
            self.mirror[id(fwd_region)] = block
        saved = self.scope
        self.scope = scope
        try:
            body_fn()
        finally:
            self.scope = saved
        return block, scope

    def merge_branches(self, cond: Value, branches) -> None:
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
                    value = self.bar(primal)  # unchanged here: what it was before the branch
                if value is None:
                    none = Op("const", (), 1, {"value": None})
                    block.append(none)
                    value = none.result
                    self.maybe_none.add(value.id)
                values.append(value)
            block.append(Op("yield", values, 0))
            yields.append(values)
        op = Op("if", [cond], len(updates), regions=[b for b, _ in branches], loc=self.current_loc,
                hints=[(p.hint or "v") + "_bar" for p in updates])
        self.block.append(op)
        for k, (primal, result) in enumerate(zip(updates, op.results)):
            if any(values[k].id in self.maybe_none for values in yields):
                self.maybe_none.add(result.id)
            if all(values[k].id in self.numeric for values in yields):
                self.numeric.add(result.id)
            self.set_bar(primal, result)

    def guarded(self, g: Value, body_fn) -> None:
        """Run body_fn's adjoint code only when the cotangent g is not None at run time."""
        none = self.const(None)
        cond = self.call(operator.is_not, g, none, expr="is_not")
        saved = self.maybe_none
        self.maybe_none = set(saved) - {g.id}  # inside the guard, g is known to be set
        then = self.branch(None, body_fn)
        self.maybe_none = saved | (self.maybe_none - {g.id})
        otherwise = self.branch(None, lambda: None)
        self.merge_branches(cond, [then, otherwise])

    # -- if ------------------------------------------------------------------
    def adjoint_if(self, op: Op) -> None:
        cond = self.fetch(op.operands[0])

        def body(region):
            def run():
                for k, result in enumerate(op.results):
                    incoming = self.bar(result)
                    if incoming is not None:
                        yielded = region.ops[-1].operands[k]
                        if yielded.id in self.varied:
                            self.accumulate(yielded, incoming)
                self.adjoint_block(region)

            return run

        branches = [self.branch(region, body(region)) for region in op.regions]
        self.current_loc = op.loc  # the branches left it at their last op; the `if` is labelled with its own line
        self.merge_branches(cond, branches)

    # -- loops -----------------------------------------------------------------
    def add_trip_counter(self, op: Op) -> Value:
        """Make the forward loop count its iterations; returns the count (a new result)."""
        zero = Op("const", (), 1, {"value": 0})
        op.block.insert(op.block.ops.index(op), zero)
        body = op.regions[-1]
        arg = body.add_arg("_zp_trips")
        if op.opcode == "while":
            op.regions[0].add_arg("_zp_trips")
        one = Op("const", (), 1, {"value": 1})
        step = Op("call", [arg, one.result], 1, {"fn": operator.add, "expr": "add", "kw": (), "star": ()},
                  hints=["_zp_trips"])
        body.insert(len(body.ops) - 1, one)
        body.insert(len(body.ops) - 1, step)
        body.ops[-1].operands.append(step.result)
        op.operands.append(zero.result)
        count = Value("_zp_trips", op)
        op.results.append(count)
        return count

    def add_loop_slot(self, scope, value: Value) -> Value:
        init = self.bar_for_update(value, scope.parent)
        loop_op = scope.loop_op
        if init is None:
            none = Op("const", (), 1, {"value": None})
            parent_block = loop_op.block
            parent_block.insert(parent_block.ops.index(loop_op), none)
            init = none.result
            self.maybe_none.add(init.id)
        hint = (value.hint or "v") + "_bar"
        arg = scope.block.add_arg(hint)
        loop_op.operands.append(init)
        loop_op.results.append(Value(hint, loop_op))
        scope.slots.append(value)
        scope.bars[value.id] = arg
        scope.primals[value.id] = value
        if init.id in self.maybe_none:
            self.maybe_none.add(arg.id)
        if init.id in self.numeric:
            self.numeric.add(arg.id)
        return arg

    def adjoint_for(self, op: Op) -> None:
        self._adjoint_loop(op)

    def adjoint_while(self, op: Op) -> None:
        self._adjoint_loop(op)

    def _adjoint_loop(self, op: Op) -> None:
        from .reverse import Scope

        is_for = op.opcode == "for"
        kind = op.attrs.get("kind") if is_for else "while"
        ntargets = op.attrs.get("ntargets", 0) if is_for else 0
        body = op.regions[-1]
        nslots = len(op.results)
        first_init = len(op.operands) - nslots
        iterables = op.operands[:first_init]
        inits = op.operands[first_init:]
        carried_args = body.args[ntargets:ntargets + nslots]
        results = list(op.results)
        yields = list(body.ops[-1].operands)
        active_slots = [k for k in range(nslots) if carried_args[k].id in self.varied]
        if not any(self.bar(results[k]) is not None for k in active_slots):
            return
        needs_count = kind != "range" or bool(op.attrs.get("exit"))
        count = self.add_trip_counter(op) if needs_count else None

        # the reversed iteration
        if kind == "range":
            rng = self.call(builtins.range, *[self.fetch(a) for a in iterables], expr="range")
            if count is not None:
                cut = self.call(builtins.slice, self.const(None), self.fetch(count), expr="slice")
                rng = self.call(operator.getitem, rng, cut, expr="getitem")
        else:
            rng = self.call(builtins.range, self.fetch(count), expr="range")
        reverse = self.call(builtins.reversed, rng, expr="reversed")

        slot_inits = []
        for k in active_slots:
            incoming = self.bar(results[k])
            if incoming is None:
                incoming = self.const(None)
                self.maybe_none.add(incoming.id)
            slot_inits.append(incoming)

        bbody = Block()
        target = bbody.add_arg(body.args[0].hint if (kind == "range" and body.args) else "_zp_i")
        slot_args = []
        for k, init in zip(active_slots, slot_inits):
            arg = bbody.add_arg((carried_args[k].hint or "v") + "_bar")
            if init.id in self.maybe_none:
                self.maybe_none.add(arg.id)
            if init.id in self.numeric:
                self.numeric.add(arg.id)
            slot_args.append(arg)
        loop = Op("for", [reverse, *slot_inits], len(active_slots), regions=[bbody], loc=op.loc,
                  attrs={"kind": "iter", "exit": (), "ntargets": 1},
                  hints=[(carried_args[k].hint or "v") + "_bar" for k in active_slots])
        self.block.append(loop)
        if kind == "range":
            self.fetched[body.args[0].id] = target

        scope = Scope("loop", self.scope, body, bbody)
        scope.loop_op = loop
        self.mirror[id(body)] = bbody
        saved = self.scope
        self.scope = scope
        index_accumulators = []
        try:
            for k, arg in zip(active_slots, slot_args):
                if yields[k].id in self.varied:
                    self.accumulate(yields[k], arg)
            self.adjoint_block(body)
            if kind != "range":
                for pair in self._item_cotangents(op, kind, target):
                    if pair not in scope.index_keys:
                        scope.index_keys.append(pair)
            index_accumulators = scope.index_keys
            out = []
            for k, arg in zip(active_slots, slot_args):
                value = self.bar(carried_args[k])
                if value is None or (value.id in self.maybe_none and arg.id not in self.maybe_none):
                    value = self._materialize(value, carried_args[k])
                out.append(value)
            out += [scope.bars[v.id] for v in scope.slots]
            bbody.append(Op("yield", out, 0))
        finally:
            self.scope = saved

        # outer values' cotangents first: the slots carried their whole value through the loop
        for value, result in zip(scope.slots, loop.results[len(active_slots):]):
            self.maybe_none.add(result.id)
            self.set_bar(value, result)
        for k, result, arg in zip(active_slots, loop.results, slot_args):
            if arg.id in self.maybe_none:
                self.maybe_none.add(result.id)
            if inits[k].id in self.varied:
                self.accumulate(inits[k], result)
        for key, iterable in index_accumulators:
            total = self.scope.bars.pop(key.id, None)
            self.scope.primals.pop(key.id, None)
            if total is not None:
                self.accumulate(iterable, total)

    def _materialize(self, value, primal: Value) -> Value:
        """A cotangent that may be None where the loop needs a value: zeros of primal's shape."""
        if value is None:
            value = self.const(None)
        out = self.call(runtime.zeros_if_none, value, self.fetch(primal), expr="_zp_zeros_if_none")
        self.numeric.add(out.id)
        return out

    def _item_cotangents(self, op, kind, index):
        """Add the cotangents of this iteration's items into their iterables' accumulators."""
        self.current_loc = op.loc  # the items come from the loop's own line
        keys = []
        for iterable, item in iteration_pairs(op):
            if iterable.id not in self.varied:
                continue
            item_bar = self.bar(item)
            if item_bar is None:
                continue
            key = self.index_key(iterable, op)
            acc = self.bar_for_update(key)
            if acc is None:
                acc = self.const(None)
            new = self.call(runtime.accum_index, acc, self.fetch(iterable), index, item_bar,
                            self.const(kind == "reversed"), expr="_zp_accum_index",
                            hint=(iterable.hint or "v") + "_bar")
            self.set_bar(key, new)
            keys.append((key, iterable))
        return keys

    def index_key(self, iterable: Value, op: Op) -> Value:
        """A stand-in primal value under which one loop accumulates item cotangents."""
        keys = self.__dict__.setdefault("_index_keys", {})
        key = keys.get((iterable.id, id(op)))
        if key is None:
            # "defined" by the loop op: local to the region holding the loop, so an
            # enclosing loop starts a fresh accumulator each iteration and adds it up
            key = Value((iterable.hint or "v"), op)
            keys[(iterable.id, id(op))] = key
        return key
