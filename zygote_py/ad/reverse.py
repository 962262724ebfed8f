"""The reverse transform: a primal `Function` -> forward code plus an adjoint block.

The forward is the primal itself, rewritten in place where the adjoint needs
more from it: calls of user functions return their pullbacks, loops count
their trips, and values the adjoint reads from inside loops are pushed to
per-region tapes.  The adjoint is a new block, built by walking the primal's
ops in reverse and emitting each one's derivative code (rule bodies spliced
in) wherever a cotangent arrives.  It reads forward values directly: they are
in scope, as closure variables or later statements of one function body;
only values defined inside loops go through a tape (see `fetch`).

Cotangents are tracked per scope (`Scope`): branches yield the cotangents
they changed, loops carry them.  `None` is the zero cotangent; a cotangent
that is statically zero is simply absent and costs nothing.
"""

from __future__ import annotations

import operator
import types

import numpy as np

from .. import dispatch, runtime
from ..errors import NoDerivativeRule
from ..ir.core import Block, Function, Op, Value, is_inside, value_block
from ..passes.activity import NONDIFF_ATTRS, varied_values
from ..passes.scalars import scalar_values
from ..rules import registry
from .control import ControlFlowAdjoints
from .splice import Splice, bind_call

_NUMERIC_OPERATORS = {operator.add, operator.sub, operator.mul, operator.truediv, operator.neg,
                      operator.pos, operator.pow, operator.matmul}
_NUMERIC_HELPERS = {runtime.unbroadcast, runtime.expand_reduced}


class Scope:
    """Cotangents assigned in one backward region (root, branch or loop body)."""

    def __init__(self, kind: str, parent: Scope | None, fwd_region: Block | None, block: Block):
        self.kind = kind
        self.parent = parent
        self.fwd_region = fwd_region
        self.block = block
        self.bars: dict[int, Value] = {}
        self.primals: dict[int, Value] = {}  # value id -> primal value, for the bars set here
        self.loop_op: Op | None = None  # for loop scopes: the backward loop op
        self.slots: list[Value] = []  # primal values carried as extra slots (loop scopes)
        self.index_keys: list = []  # (accumulator key, container) to add up after the loop


class SaveRecord:
    """What one forward region pushes to its tapes, and where the adjoint pops it."""

    def __init__(self, region: Block):
        self.region = region
        self.start: list[Value] = []  # block arguments, pushed as the region starts
        self.end: list[Value] = []  # values defined in it, pushed as it ends
        self.pops: dict[str, Op] = {}


class ReverseTransform(ControlFlowAdjoints):
    def __init__(self, fn: Function, active: list[bool], compiler, active_cells=(), scalar_params=()):
        self.fn = fn
        self.active = active
        self.compiler = compiler
        self.active_cells = tuple(active_cells)
        # closure cells holding active values are inputs too (the function's own cotangent)
        self.cell_reads = {op.attrs["name"]: op.result for op in fn.body.ops
                           if op.opcode == "cell" and op.attrs["name"] in self.active_cells}
        self.varied = varied_values(fn, active, extra_roots=[v.id for v in self.cell_reads.values()])
        self.scalars = scalar_values(fn, list(scalar_params) or [False] * len(fn.params))
        self.backward = Block(["dy"])
        self.scope = Scope("root", None, None, self.backward)
        self.mirror: dict[int, Block] = {id(fn.body): self.backward}
        self.records: dict[int, SaveRecord] = {}
        self.fetched: dict[int, Value] = {}
        self.maybe_none: set[int] = set()
        self.numeric: set[int] = set()
        self.tape_in_backward: dict[int, Value] = {}
        self.current_loc = None

    # -- building the backward block ----------------------------------------
    @property
    def block(self) -> Block:
        return self.scope.block

    def emit(self, opcode, operands=(), nresults=1, attrs=None, hint="") -> Op:
        op = Op(opcode, operands, nresults, attrs, (), self.current_loc, hints=[hint] if hint else ())
        self.block.append(op)
        return op

    def const(self, value) -> Value:
        return self.emit("const", (), attrs={"value": value}).result

    def call(self, fn, *operands, expr=None, hint="") -> Value:
        op = self.emit("call", list(operands), attrs={"fn": fn, "expr": expr or fn.__name__,
                                                      "kw": (), "star": ()}, hint=hint)
        if fn in _NUMERIC_OPERATORS or fn in _NUMERIC_HELPERS:
            if all(v.id in self.numeric or _is_number_const(v) for v in operands[:1]):
                self.numeric.add(op.result.id)
        return op.result

    # -- cotangent bookkeeping ----------------------------------------------
    def bar(self, value: Value) -> Value | None:
        scope = self.scope
        while scope is not None:
            found = scope.bars.get(value.id)
            if found is not None:
                return found
            if scope.kind == "loop" and not is_inside(value_block(value), scope.fwd_region):
                return None  # not carried in this loop (yet): zero in this iteration
            scope = scope.parent
        return None

    def bar_for_update(self, value: Value, scope: Scope | None = None) -> Value | None:
        """The current cotangent of value, creating loop slots so that it can be carried."""
        scope = scope or self.scope
        while scope is not None:
            found = scope.bars.get(value.id)
            if found is not None:
                return found
            if scope.kind == "loop" and not is_inside(value_block(value), scope.fwd_region):
                return self.add_loop_slot(scope, value)
            scope = scope.parent
        return None

    def set_bar(self, value: Value, new: Value) -> None:
        self.scope.bars[value.id] = new
        self.scope.primals[value.id] = value

    def accumulate(self, value: Value, contribution: Value | None) -> None:
        if contribution is None:
            return
        if contribution.defining_op is not None and contribution.defining_op.opcode == "const" \
                and contribution.defining_op.attrs["value"] is None:
            return
        old = self.bar_for_update(value)
        self.set_bar(value, self.add(old, contribution))

    def add(self, old: Value | None, new: Value) -> Value:
        if old is None:
            return new
        plain = old.id in self.numeric and new.id in self.numeric
        if plain and old.id not in self.maybe_none and new.id not in self.maybe_none:
            result = self.call(operator.add, old, new, hint=old.hint)
            self.numeric.add(result.id)
            return result
        result = self.call(runtime.accum, old, new, expr="_zp_accum", hint=old.hint)
        if old.id in self.maybe_none and new.id in self.maybe_none:
            self.maybe_none.add(result.id)
        if old.id in self.numeric and new.id in self.numeric:
            self.numeric.add(result.id)
        return result

    # -- reading forward values from the adjoint ------------------------------
    def fetch(self, value: Value) -> Value:
        """A forward value as the adjoint sees it: itself, or popped from a tape in loops."""
        cached = self.fetched.get(value.id)
        if cached is not None:
            return cached
        region = value_block(value)
        if region is None or not _inside_loop(region):
            return value
        op = value.defining_op
        if op is not None and op.opcode == "const":  # a literal: write it again, don't save it
            return self.emit("const", (), attrs=dict(op.attrs)).result
        record = self.records.get(id(region))
        if record is None:
            record = self.records[id(region)] = SaveRecord(region)
        where = "start" if value in region.args else "end"
        (record.start if where == "start" else record.end).append(value)
        pop = record.pops.get(where)
        if pop is None:
            mirror = self.mirror[id(region)]
            pop = Op("tape_pop", [self.backward_tape(record, where)], 0, {}, (), None)
            mirror.insert(0, pop)
            record.pops[where] = pop
        popped = Value(value.hint, pop)
        pop.results.append(popped)
        self.fetched[value.id] = popped
        if value.id in self.numeric_forward:
            self.numeric.add(popped.id)
        return popped

    def backward_tape(self, record: SaveRecord, where: str) -> Value:
        key = (id(record), where)
        tape = self.tape_in_backward.get(key)
        if tape is None:
            new = Op("tape_new", (), 1, {}, (), None, hints=["_zp_tape"])
            self.fn.body.insert(0, new)
            opened = Op("tape_open", [new.result], 1, {}, (), None, hints=["_zp_tape"])
            self.backward.insert(0, opened)
            record.pops[where + "_tape"] = new  # remembered for the pushes
            tape = self.tape_in_backward[key] = opened.result
        return tape

    # -- driver -------------------------------------------------------------
    def run(self) -> AdjointProgram:
        self.numeric_forward = _numeric_forward(self.fn)
        ret = self.fn.body.ops[-1]
        result = ret.operands[0]
        if result.id in self.varied:
            self.set_bar(result, self.backward.args[0])
            self.adjoint_block(self.fn.body)
        outputs = []
        for param, active in zip(self.fn.params, self.active):
            outputs.append(self.bar(param) if active else None)
        if self.active_cells:
            names, bars = [], []
            for name in self.active_cells:
                bar = self.bar(self.cell_reads[name]) if name in self.cell_reads else None
                if bar is not None:
                    names.append(self.const(name))
                    bars.append(bar)
            pairs = [v for pair in zip(names, bars) for v in pair]
            outputs.append(self.emit("dict", pairs).result)
        none = None
        values = []
        for out in outputs:
            if out is None:
                none = none or self.const(None)
                values.append(none)
            else:
                values.append(out)
        packed = self.emit("tuple", values).result
        self.emit("return", [packed], 0)
        self.place_pushes()
        return AdjointProgram(self.fn, self.backward, [o is not None for o in outputs])

    def place_pushes(self) -> None:
        for record in self.records.values():
            for where, values in (("start", record.start), ("end", record.end)):
                if not values:
                    continue
                tape = record.pops[where + "_tape"].result
                push = Op("tape_push", [tape, *values], 0, {}, (), None)
                region = record.region
                if where == "start":
                    region.insert(0, push)
                else:
                    region.insert(len(region.ops) - 1, push)

    def adjoint_block(self, block: Block) -> None:
        # a snapshot: the loop adjoints insert trip counters into the forward block
        for op in reversed(list(block.ops)):
            if op.opcode in ("yield", "return"):
                continue
            if not any(self.bar(r) is not None for r in op.results):
                continue
            self.current_loc = op.loc
            handler = getattr(self, "adjoint_" + op.opcode, None)
            if handler is not None:
                handler(op)

    # -- straight-line ops ----------------------------------------------------
    def varied_operand(self, value: Value) -> bool:
        return value.id in self.varied

    def adjoint_call(self, op: Op) -> None:
        fn = op.attrs["fn"]
        if not any(self.varied_operand(v) for v in op.operands):
            return
        if registry.custom_rule(fn) is not None:  # @zp.adjoint comes first
            self.dynamic_call(op, kind="call")
            return
        if fn is operator.getitem and self.index_into_outer(op):
            return
        rule = registry.function_rule(fn)
        if rule is not None:
            bound = bind_call(rule, op, op.operands)
            if rule.meta.get("sequence") and any(_is_sequence(v) for v in op.operands):
                self.dynamic_call(op, kind="call")  # list/tuple + or *: the sequence rule
            elif bound is not None and _binds_values(rule, bound):
                self.apply_rule(rule, op, bound, op.result)
            else:  # *args rules, or a call spreading *args: bound while running
                self.dynamic_call(op, kind="call")
            return
        if registry.is_nondifferentiable(fn):
            return
        if isinstance(fn, types.FunctionType):
            self.user_call(op)
        else:
            raise self.no_rule(op, fn)

    def index_into_outer(self, op: Op) -> bool:
        """x[i] inside a loop, x from outside it: add into one accumulator of x owned by the
        loop, in place, instead of building a full-size cotangent every iteration."""
        container, index = op.operands
        scope = self.scope
        while scope is not None and scope.kind != "loop":
            scope = scope.parent
        if scope is None or not self.varied_operand(container) or \
                is_inside(value_block(container), scope.fwd_region):
            return False
        g = self.bar(op.result)

        def add_in():
            key = self.index_key(container, scope.fwd_region.parent)
            acc = self.bar_for_update(key)
            if acc is None:
                acc = self.const(None)
            new = self.call(runtime.accum_index, acc, self.fetch(container), self.fetch(index), g,
                            self.const(False), expr="_zp_accum_index", hint=(container.hint or "v") + "_bar")
            self.set_bar(key, new)
            if (key, container) not in scope.index_keys:
                scope.index_keys.append((key, container))

        if g.id in self.maybe_none:
            self.guarded(g, add_in)
        else:
            add_in()
        return True

    def apply_rule(self, rule, op: Op, bound: dict, result: Value, self_value=None) -> None:
        needed = [n for n in rule.diff if n in bound and isinstance(bound[n], Value)
                  and self.varied_operand(bound[n])]
        if not needed:
            return
        g = self.bar(result)
        if g.id in self.maybe_none:
            self.guarded(g, lambda: self._apply_rule(rule, bound, result, needed, g))
        else:
            self._apply_rule(rule, bound, result, needed, g)

    def _apply_rule(self, rule, bound, result, needed, g) -> None:
        splice = Splice(rule, bound, needed, self.scalars)
        values = {"g": g}
        for name in splice.used_params:
            if name == "g" or name not in splice.unbound:
                continue
            if name == "y":
                values["y"] = self.fetch(result)
            elif name in bound and isinstance(bound[name], Value):
                values[name] = self.fetch(bound[name])
            else:
                values[name] = self.const(bound.get(name))
        outputs = splice.place(self.block, values, self.current_loc)
        for name, value in outputs.items():
            if value.defining_op is not None and value.defining_op.opcode in ("if", "callv", "call") \
                    and value.defining_op.opcode != "call":
                self.maybe_none.add(value.id)
            if _produces_numeric(value):
                self.numeric.add(value.id)
            self.accumulate(bound[name], value)

    def user_call(self, op: Op) -> None:
        """A call of a Python function with source: call its pullback instead."""
        fn = op.attrs["fn"]
        if op.attrs.get("star") or None in op.attrs.get("kw", ()):
            self.dynamic_call(op, kind="call")
            return
        mapping = self.compiler.bind_params(fn, op, self.current_loc)
        if any(len(indices) > 1 for indices in mapping) or _has_var_params(fn):
            self.dynamic_call(op, kind="call")  # *args/**kwargs parameters: bound at run time
            return
        active = tuple(any(self.varied_operand(op.operands[i]) for i in idx) for idx in mapping)
        pullback = self.compiler.pullback_for(fn, active)
        back = Value("_zp_back", op)
        op.opcode = "call_pb"
        op.attrs = dict(op.attrs, pb=pullback, pb_expr=f"{fn.__name__}_pullback")
        op.results.append(back)
        g = self.bar(op.result)

        def emit_back():
            # the callee's back returns one cotangent per parameter (None where inactive)
            call = self.emit("call_back", [self.fetch(back), g], len(mapping))
            for param_index, result in enumerate(call.results):
                if not active[param_index]:
                    continue
                self.maybe_none.add(result.id)
                for operand_index in mapping[param_index]:
                    if self.varied_operand(op.operands[operand_index]):
                        self.accumulate(op.operands[operand_index], result)

        if g.id in self.maybe_none:
            self.guarded(g, emit_back)
        else:
            emit_back()

    def dynamic_call(self, op: Op, kind: str) -> None:
        """A call resolved only at run time: `y, back = _zp_call(f, args, kwargs)`."""
        back = Value("_zp_back", op)
        op.attrs = dict(op.attrs, dyn_kind=kind)
        op.opcode = "dyncall"
        op.results.append(back)
        g = self.bar(op.result)
        # back(g) returns cotangents for (callee or self, *args, *kwargs)
        targets = ([None] if kind == "call" else []) + list(op.operands)

        def emit_back():
            call = self.emit("call_back", [self.fetch(back), g], len(targets))
            for value, operand in zip(call.results, targets):
                self.maybe_none.add(value.id)
                if operand is not None and self.varied_operand(operand):
                    self.accumulate(operand, value)

        if g.id in self.maybe_none:
            self.guarded(g, emit_back)
        else:
            emit_back()

    def adjoint_callv(self, op: Op) -> None:
        if any(self.varied_operand(v) for v in op.operands):
            self.dynamic_call(op, kind="callv")

    def adjoint_method(self, op: Op) -> None:
        if not any(self.varied_operand(v) for v in op.operands):
            return
        name = op.attrs["name"]
        rule = registry.method_rule(np.ndarray, name)
        if rule is not None:
            bound = bind_call(rule, op, op.operands)
            if bound is not None and _binds_values(rule, bound):
                self.apply_rule(rule, op, bound, op.result)
                return
        if registry.method_is_nondifferentiable(np.ndarray, name):
            return
        self.dynamic_call(op, kind="method")

    def adjoint_getattr(self, op: Op) -> None:
        obj = op.operands[0]
        name = op.attrs["name"]
        if not self.varied_operand(obj) or name in NONDIFF_ATTRS:
            return
        rule = registry.attr_rule(np.ndarray, name)
        if rule is not None:
            self.apply_rule(rule, op, {"self": obj}, op.result)
            return
        g = self.bar(op.result)
        part = self.call(dispatch.attribute_cotangent, self.fetch(obj), self.const(name), g,
                         expr="_zp_attribute_cotangent")
        self.maybe_none.add(part.id)
        self.accumulate(obj, part)

    def adjoint_closure(self, op: Op) -> None:
        """A nested function made here: its cotangent {name: bar} goes to the captured values."""
        g = self.bar(op.result)
        for name, operand in zip(op.attrs["names"], op.operands):
            if self.varied_operand(operand):
                part = self.call(runtime.item_cotangent, g, self.const(name), expr="_zp_item_cotangent")
                self.maybe_none.add(part.id)
                self.accumulate(operand, part)

    def adjoint_tuple(self, op: Op) -> None:
        self._adjoint_sequence(op)

    adjoint_list = adjoint_tuple

    def _adjoint_sequence(self, op: Op) -> None:
        g = self.bar(op.result)
        for i, operand in enumerate(op.operands):
            if self.varied_operand(operand):
                part = self.call(runtime.item_cotangent, g, self.const(i), expr="_zp_item_cotangent")
                self.maybe_none.add(part.id)
                self.accumulate(operand, part)

    def adjoint_dict(self, op: Op) -> None:
        g = self.bar(op.result)
        for key, value in zip(op.operands[::2], op.operands[1::2]):
            if self.varied_operand(value):
                part = self.call(runtime.item_cotangent, g, self.fetch(key), expr="_zp_item_cotangent")
                self.maybe_none.add(part.id)
                self.accumulate(value, part)

    def adjoint_unpack(self, op: Op) -> None:
        source = op.operands[0]
        if not self.varied_operand(source):
            return
        parts = []
        for result in op.results:
            bar = self.bar(result)
            parts.append(bar if bar is not None else self.const(None))
        packed = self.emit("tuple", parts).result
        star = op.attrs.get("star")
        value = self.call(runtime.unpack_cotangent, self.fetch(source), packed,
                          self.const(star), expr="_zp_unpack_cotangent")
        self.maybe_none.add(value.id)
        self.accumulate(source, value)

    def _split_nullness(self, g: Value, rest: Value, part: Value) -> None:
        """Splitting a container's cotangent: the rest is a container whenever g is set;
        the split-off part may still be None (an element nobody used)."""
        self.maybe_none.add(part.id)
        if g.id in self.maybe_none:
            self.maybe_none.add(rest.id)

    def adjoint_append(self, op: Op) -> None:
        container, item = op.operands
        g = self.bar(op.result)
        split = self.call(runtime.split_last, g, expr="_zp_split_last")
        unpack = self.emit("unpack", [split], 2, {"n": 2, "star": None})
        rest, last = unpack.results
        self._split_nullness(g, rest, last)
        if self.varied_operand(container):
            self.accumulate(container, rest)
        if self.varied_operand(item):
            self.accumulate(item, last)

    def adjoint_extend(self, op: Op) -> None:
        container, items = op.operands
        g = self.bar(op.result)
        pair = self.call(runtime.split_tail, g, self.fetch(items), expr="_zp_split_tail")
        unpack = self.emit("unpack", [pair], 2, {"n": 2, "star": None})
        rest, tail = unpack.results
        self._split_nullness(g, rest, tail)
        if self.varied_operand(container):
            self.accumulate(container, rest)
        if self.varied_operand(items):
            self.accumulate(items, tail)

    def adjoint_setitem(self, op: Op) -> None:
        container, key, value = op.operands
        g = self.bar(op.result)
        pair = self.call(runtime.split_key, g, self.fetch(key), expr="_zp_split_key")
        unpack = self.emit("unpack", [pair], 2, {"n": 2, "star": None})
        rest, item = unpack.results
        self._split_nullness(g, rest, item)
        if self.varied_operand(container):
            self.accumulate(container, rest)
        if self.varied_operand(value):
            self.accumulate(value, item)

    def no_rule(self, op: Op, fn) -> NoDerivativeRule:
        name = registry.qualified_name(fn)
        return NoDerivativeRule(
            f"no derivative rule for {name}, which is called here with an active argument",
            op.loc, f"register one with @zp.adjoint({name.split('.')[-1]}), or wrap the argument in "
            "zp.stop_gradient(...) if no derivative is wanted through it")


class AdjointProgram:
    """The result of the reverse transform: forward function + backward block."""

    def __init__(self, forward: Function, backward: Block, has_grad: list[bool]):
        self.forward = forward
        self.backward = backward
        self.has_grad = has_grad


def _is_sequence(value: Value) -> bool:
    """Statically a list or tuple (a literal, a comprehension, or updates of one)."""
    op = value.defining_op
    if op is None:
        return False
    if op.opcode in ("tuple", "list", "append", "extend"):
        return True
    return op.opcode == "const" and isinstance(op.attrs["value"], (tuple, list))


def _binds_values(rule, bound: dict) -> bool:
    """Every differentiable parameter is bound to one value (not a *args tuple)."""
    def single(value) -> bool:
        if isinstance(value, (tuple, dict)):  # *args / **kwargs of values
            items = value.values() if isinstance(value, dict) else value
            return not any(isinstance(v, Value) for v in items)
        return True

    return all(name not in bound or single(bound[name]) for name in rule.diff)


def _has_var_params(fn) -> bool:
    code = fn.__code__
    return bool(code.co_flags & 0x04 or code.co_flags & 0x08)


def _inside_loop(block: Block) -> bool:
    while block is not None and block.parent is not None:
        if block.parent.opcode in ("for", "while"):
            return True
        block = block.parent.block
    return False


def _is_number_const(value: Value) -> bool:
    op = value.defining_op
    return op is not None and op.opcode == "const" and type(op.attrs["value"]) in (int, float)


def _produces_numeric(value: Value) -> bool:
    op = value.defining_op
    if op is None or op.opcode != "call":
        return False
    fn = op.attrs["fn"]
    if fn in _NUMERIC_OPERATORS or fn in _NUMERIC_HELPERS or isinstance(fn, np.ufunc):
        return True
    return (getattr(fn, "__module__", "") or "").startswith("numpy") and fn is not np.array


def _numeric_forward(fn: Function) -> set[int]:
    """Forward values known to be numbers or arrays (results of arithmetic and ufuncs)."""
    out = set()
    for op in fn.walk():
        if op.opcode == "call" and op.results and _produces_numeric(op.result):
            out.add(op.result.id)
    return out
