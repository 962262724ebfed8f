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

This module holds the driver, the scopes, tapes and cotangent bookkeeping;
the adjoints of calls, containers and control flow are the mixins in
calls.py, containers.py and control.py.
"""

from __future__ import annotations

import operator


from .. import params
from ..runtime import helpers as runtime
from ..ir.core import Block, Function, Op, Value, is_inside, value_block
from ..analysis.activity import varied_values
from ..analysis.receivers import array_values
from ..analysis.scalars import scalar_values
from .calls import CallAdjoints
from .implicit import implicit_roots
from .containers import ContainerAdjoints
from .control import ControlFlowAdjoints
from .values import NUMERIC_HELPERS, NUMERIC_OPERATORS, produces_numeric



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


class ReverseTransform(CallAdjoints, ControlFlowAdjoints, ContainerAdjoints):
    def __init__(self, fn: Function, active: list[bool], compiler, active_cells=(), scalar_params=(),
                 implicit_globals: dict | None = None):
        self.fn = fn
        self.implicit = implicit_globals is not None
        self.active = active
        self.compiler = compiler
        self.active_cells = tuple(active_cells)
        # closure cells holding active values are inputs too (the function's own cotangent)
        self.cell_reads = {op.attrs["name"]: op.result for op in fn.body.ops
                           if op.opcode == "cell" and op.attrs["name"] in self.active_cells}
        roots = [v.id for v in self.cell_reads.values()]
        if self.implicit:
            global_roots, guards = implicit_roots(fn, implicit_globals)
            roots += global_roots
            compiler.add_guards(guards)
        # values whose methods and attributes the ndarray rules describe (the rest: dispatch)
        self.arrays = array_values(fn, scalar_params)
        self.varied = varied_values(fn, active, extra_roots=roots, implicit=self.implicit,
                                    arrays=self.arrays)
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
        if fn in NUMERIC_OPERATORS or fn in NUMERIC_HELPERS:
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
    def adjoint_global(self, op: Op) -> None:
        """Implicit variants only: hand the read's cotangent to the Params being filled."""
        if self.implicit:
            self.deposit(self.fetch(op.result), self.bar(op.result))

    def deposit(self, obj: Value, g: Value) -> None:
        self.call(params.deposit, obj, g, expr="_zp_deposit")

    def varied_operand(self, value: Value) -> bool:
        return value.id in self.varied

class AdjointProgram:
    """The result of the reverse transform: forward function + backward block."""

    def __init__(self, forward: Function, backward: Block, has_grad: list[bool]):
        self.forward = forward
        self.backward = backward
        self.has_grad = has_grad








def _inside_loop(block: Block) -> bool:
    while block is not None and block.parent is not None:
        if block.parent.opcode in ("for", "while"):
            return True
        block = block.parent.block
    return False


def _is_number_const(value: Value) -> bool:
    op = value.defining_op
    return op is not None and op.opcode == "const" and type(op.attrs["value"]) in (int, float)




def _numeric_forward(fn: Function) -> set[int]:
    """Forward values known to be numbers or arrays (results of arithmetic and ufuncs)."""
    out = set()
    for op in fn.walk():
        if op.opcode == "call" and op.results and produces_numeric(op.result):
            out.add(op.result.id)
    return out
