"""The adjoint step: `AdjointBuilder`, the builder of the backward block.

The builder walks the primal's ops in reverse (`adjoint_block`) and, wherever a
cotangent arrives, calls the op's adjoint handler, found in `ADJOINT_HANDLERS`
by opcode.  The handlers live in calls.py, containers.py and control.py (and
the implicit-parameter feature's in ../implicit.py); each is a function of
(builder, op) registered with `@adjoint_of(opcode)`.  An op a cotangent reaches
without a handler raises InternalError: a silent zero would be a wrong gradient.

The builder holds all the state the handlers share:
  - cotangents per scope (`Scope`): branches yield the cotangents they
    changed, loops carry them.  `None` is the zero cotangent; a cotangent that
    is statically zero is simply absent and costs nothing;
  - facts about backward values: `maybe_none` (may be None at run time, so
    adding needs `accum`) and `numeric` (a number or array: a plain `+`);
  - what the forward must add (`plan`, see augment.py), the residuals read
    from inside loops (`tapes`, see tapes.py) and the callees whose pullbacks
    the forward calls (`callees`, see callees.py).
The backward reads forward values directly: they are in scope, as closure
variables or later statements of one function body; only values defined
inside loops go through a tape (see `fetch`).
"""

from __future__ import annotations

import dis
import functools
import operator

from ...errors import InternalError
from ...ir.builder import IRBuilder
from ...ir.core import Block, Function, Op, Value, is_inside, value_block
from ...rules import registry
from ...runtime import helpers as runtime
from ..splice import rule_ir
from ..values import NUMERIC_HELPERS, NUMERIC_OPERATORS, produces_numeric
from .augment import ForwardPlan
from .callees import CalleeRef
from .reads import ConstantReads
from .tapes import Tapes
from .writes import adjoint_write, is_write, restoring_ops

# opcode -> handler(builder, op), for every op whose result can carry a cotangent
ADJOINT_HANDLERS: dict = {}


def adjoint_of(*opcodes: str):
    """Register the decorated function as the adjoint handler of these opcodes."""
    def register(handler):
        for opcode in opcodes:
            ADJOINT_HANDLERS[opcode] = handler
        return handler

    return register


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


class AdjointBuilder:
    """Builds the backward block of fn; the state every adjoint handler reads and updates."""

    def __init__(self, fn: Function, varied: set[int], scalars, reads: ConstantReads,
                 arrays: set[int], plain: set[int] = frozenset(),
                 sequences: set[int] = frozenset()):
        self.fn = fn
        self.varied = varied  # ids of primal values that depend on the active inputs
        self.scalars = scalars  # ids of primal values known to be plain scalars
        # ids of primal values known to be arrays or numbers: only their methods and
        # attributes get ndarray rules (analysis/receivers.py)
        self.arrays = arrays
        self.maybe_complex: set[int] = set()  # ids of primal values that may be complex
        # values proven exact real float ndarrays (kinds.array_kinds): id -> ndim
        self.float_arrays: dict[int, int] = {}
        self.shapes: dict[int, tuple] = {}  # value id -> shape key (analysis/shapes.py)
        # the seed is a real number (a gradient's: check_scalar), not a pullback's dy
        self.real_seed = False
        # ... and those, with builtin constants and containers of plain values: where every
        # operand is, an operator or a NumPy function means its registered rule
        self.plain = plain
        self.sequences = sequences  # lists and tuples of arrays or numbers
        self.weakly_varied: set[int] = set()  # see transform.py (objects written in the call)
        self.reads = reads  # what reads of module data mean (reads.py: plain or implicit)
        self.backward = Block(["dy"])
        self.ir = IRBuilder()  # where backward ops go: the current scope's block, at its end
        self.scope = Scope("root", None, None, self.backward)
        self.mirror: dict[int, Block] = {id(fn.body): self.backward}  # forward region -> backward
        self.plan = ForwardPlan()  # what the forward must add for the adjoint (augment step)
        self.tapes = Tapes()  # forward values the adjoint reads from inside loops
        self.callees: list[CalleeRef] = []  # pullbacks of user functions the forward calls
        self.fetched: dict[int, Value] = {}
        self.index_keys: dict[tuple[int, int], Value] = {}  # (iterable, loop) -> accumulator key
        self.maybe_none: set[int] = set()
        self.numeric: set[int] = set()
        # loop accumulators that only accum_owned has made (add_loop_slot): added into in place
        self.owned: set[int] = set()
        # whether no op of fn can write into an array (calls.py: _forward_cannot_write), found
        # once when a rule's adjoint first asks
        self.forward_cannot_write: bool | None = None
        self.numeric_forward = _numeric_forward(fn)
        # writes into arrays and the regions holding them: visited without a cotangent too
        # (their adjoints undo the writes for the adjoints of earlier ops: writes.py)
        self.restoring = restoring_ops(fn)
        # loop values that are the very array the loop was entered with (written, never
        # rebound): read through that value, so no tape keeps the array every iteration.
        # Filled by the transform for gradients that run only (writes.same_object_slots):
        # forward mode over gradient code gives each taped value the tangent it had
        self.same_object: dict[int, Value] = {}
        # item reads that repeat an earlier one (analysis/scalars.py: repeated_item_reads):
        # value id -> the earlier read's value, read and differentiated in its place
        self.merged_reads: dict[int, Value] = {}
        # ops whose adjoint runs with no cotangent on their results (objects.py)
        self.effectful: set[int] = set()
        # results of undo_write_split calls whose forward certainly saved the overwritten
        # part as it is (writes.py: _saves_plainly) -> (the write, its saved value), for
        # owned_slots.py
        self.plain_undos: dict[int, tuple] = {}

    # -- emitting into the backward block (through the shared IRBuilder) -----------
    @property
    def scope(self) -> Scope:
        return self._scope

    @scope.setter
    def scope(self, scope: Scope) -> None:
        """Entering or leaving a branch or loop: its block is where ops go now."""
        self._scope = scope
        self.ir.block, self.ir.index = scope.block, None

    @property
    def block(self) -> Block:
        return self.ir.block

    @property
    def current_loc(self):
        """The user's line the ops being built belong to (the IRBuilder's location)."""
        return self.ir.loc

    @current_loc.setter
    def current_loc(self, loc) -> None:
        self.ir.loc = loc

    def emit(self, opcode, operands=(), nresults=1, attrs=None, hint="") -> Op:
        return self.ir.emit(opcode, operands, nresults, attrs, hints=[hint] if hint else ())

    def const(self, value) -> Value:
        return self.ir.const(value)

    def call(self, fn, *operands, expr=None, hint="") -> Value:
        op = self.emit("call", list(operands), attrs={"fn": fn, "expr": expr or fn.__name__,
                                                      "kw": (), "star": ()}, hint=hint)
        if fn in NUMERIC_OPERATORS or fn in NUMERIC_HELPERS:
            if all(v.id in self.numeric or _is_number_const(v) for v in operands[:1]):
                self.numeric.add(op.result.id)
        return op.result

    # -- cotangent bookkeeping ----------------------------------------------
    def varied_operand(self, value: Value) -> bool:
        return value.id in self.varied

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

    def add_loop_slot(self, scope: Scope, value: Value) -> Value:
        """Carry the cotangent of value, defined outside the loop of scope, as a new slot
        of the backward loop (which is being built, so it can still grow)."""
        init = self.bar_for_update(value, scope.parent)
        loop_op = scope.loop_op
        owned = init is None and not self.restoring
        if init is None:
            parent_block = loop_op.block
            with self.ir.at(parent_block, parent_block.ops.index(loop_op)), self.ir.at_loc(None):
                init = self.ir.const(None)
            self.maybe_none.add(init.id)
        hint = (value.hint or "v") + "_bar"
        arg = scope.block.add_arg(hint)
        if owned:  # starts as None and grows only by accum_owned: an array the adjoint owns
            self.owned.add(arg.id)
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

    def index_key(self, iterable: Value, op: Op) -> Value:
        """A stand-in primal value under which one loop accumulates item cotangents."""
        key = self.index_keys.get((iterable.id, id(op)))
        if key is None:
            # "defined" by the loop op: local to the region holding the loop, so an
            # enclosing loop starts a fresh accumulator each iteration and adds it up
            key = Value((iterable.hint or "v"), op)
            self.index_keys[(iterable.id, id(op))] = key
        return key

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
        new = self.add(old, contribution)
        if value.hint and not new.hint and is_inside(value_block(new), self.backward):
            new.hint = value.hint + "_bar"  # a user's `hidden` gets `hidden_bar`
        self.set_bar(value, new)

    def add(self, old: Value | None, new: Value) -> Value:
        if old is None:
            return new
        plain = old.id in self.numeric and new.id in self.numeric
        if plain and old.id not in self.maybe_none and new.id not in self.maybe_none:
            result = self.call(operator.add, old, new, hint=old.hint)
            self.numeric.add(result.id)
            return result
        if old.id in self.owned:  # a loop's own accumulator: add in place (accum_owned)
            result = self.call(runtime.accum_owned, old, new, expr="_zp_accum_owned", hint=old.hint)
            self.owned.add(result.id)
        else:
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
        entering = self.same_object.get(value.id) or self.merged_reads.get(value.id)
        if entering is not None:  # the array the loop was entered with (same_object_slots),
            return self.fetch(entering)  # or the same item read before (merged_reads)
        region = value_block(value)
        if region is None or not inside_loop(region):
            return value
        op = value.defining_op
        if op is not None and op.opcode == "const":  # a literal: write it again, don't save it
            return self.emit("const", (), attrs=dict(op.attrs)).result
        popped = self.tapes.pop(value, region)
        self.fetched[value.id] = popped
        if value.id in self.numeric_forward:
            self.numeric.add(popped.id)
        return popped

    def fetch_shape(self, value: Value) -> Value:
        """A forward value for a rule that reads only its shape (splice.py: shape_only).

        Inside a loop, the forward saves `array_shape(value)` right after making it and
        the tape keeps that instead of the array, so an array the adjoint needs only for
        `unbroadcast` is freed with its iteration; if the whole value is taped anyway,
        that is used.  Outside loops the shape of a call's result is saved for the same
        reason: the generated code then releases the array at its last read in the
        forward (codegen/release.py) instead of holding it for the adjoint.  There only
        where the result's rule certainly does not read it, told from the rule's code
        without lowering the rule (which costs tens of ms where nothing else needs it)."""
        region = value_block(value)
        op = value.defining_op
        if region is None or op is None or op.opcode == "const" \
                or value.id in self.scalars or value.id in self.fetched:
            return self.fetch(value)
        if inside_loop(region):
            if _rule_reads_output(op):
                return self.fetch(value)
        elif op.opcode != "call" or value.id not in self.varied or _rule_may_read_output(op):
            return self.fetch(value)
        return self.fetch(self.plan.shape_after(value, runtime.array_shape))

    # -- the walk -------------------------------------------------------------
    def adjoint_block(self, block: Block) -> None:
        for op in reversed(block.ops):
            if op.opcode in ("yield", "return"):
                continue
            if not any(self.bar(r) is not None for r in op.results) and id(op) not in self.restoring \
                    and id(op) not in self.effectful:
                continue
            self.current_loc = op.loc
            first = self.merged_reads.get(op.results[0].id) if op.results else None
            if first is not None:  # a repeated item read: its cotangent is the first read's
                self.accumulate(first, self.bar(op.results[0]))
                continue
            handler = adjoint_write if is_write(op) else ADJOINT_HANDLERS.get(op.opcode)
            if handler is None:  # a silent zero would be a wrong gradient: refuse instead
                raise InternalError(
                    f"the reverse transform has no adjoint for the IR op '{op.opcode}', "
                    "which a derivative reaches here", op.loc,
                    "this is a defect of zygote_py; please report it with this function")
            handler(self, op)


@adjoint_of("cell")
def adjoint_input(builder: AdjointBuilder, op: Op) -> None:
    """A read of an active closure cell is an input: its cotangent is read at the end."""


def _rule_reads_output(op: Op) -> bool:
    """Whether op is a call whose rule reads its output (tanh's, exp's, a quotient's): its
    adjoint fetches the whole value anyway, and saving its shape as well would be waste."""
    if op.opcode != "call":
        return False
    rule = registry.function_rule(op.attrs["fn"])
    if rule is None or not _may_read_output(rule.vjp):
        return False
    ir = rule_ir(rule.vjp)
    output = ir.params[1].id
    return any(v.id == output for inner in ir.walk() for v in inner.operands)


def _rule_may_read_output(op: Op) -> bool:
    """_rule_reads_output without lowering the rule: True where it may (a call)."""
    rule = registry.function_rule(op.attrs["fn"])
    return rule is not None and _may_read_output(rule.vjp)


def _may_read_output(vjp) -> bool:
    """Whether the rule function's code names its second parameter (the output) anywhere
    but in its signature: False means it certainly does not read it, without lowering
    the rule (tens of milliseconds for `**`'s, whose adjoint of `x ** 2` never needs it)."""
    code = getattr(vjp, "__code__", None)
    if code is None or code.co_argcount < 2:
        return True
    return _code_reads_output(code)


@functools.lru_cache(maxsize=1024)  # asked at every call site; a code object never changes
def _code_reads_output(code) -> bool:
    output = code.co_varnames[1]
    if output in code.co_cellvars:
        return True  # read by a nested function
    for ins in dis.get_instructions(code):
        if not ins.opname.startswith("LOAD"):
            continue
        # Python 3.13 loads two locals in one instruction (LOAD_FAST_LOAD_FAST): a pair
        names = ins.argval if isinstance(ins.argval, tuple) else (ins.argval,)
        if output in names:
            return True
    return False


def inside_loop(block: Block) -> bool:
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
