"""The augment step: the forward function the adjoint needs, built as new IR.

The primal function is only read.  Its ops are copied into a new function,
extended with what the adjoint step asked for while it was built
(`ForwardPlan`) and with the tapes' pushes (tapes.py):
  - a call whose adjoint calls a back function becomes a `call_pb` (the
    callee's pullback) or a `dyncall` (resolved at run time) that returns the
    back function as a second result;
  - a loop whose adjoint needs its trip count gets a counter slot;
  - values the adjoint reads from inside loops are pushed to tapes, and the
    tapes are made at the function's entry.
The values the adjoint created for these new results (back functions, trip
counts, tapes) become results of the new ops, so the backward keeps reading
them; every other forward value the backward reads is remapped to its copy.
"""

from __future__ import annotations

import operator

from ...ir.clone import replace_all_uses
from ...ir.core import Block, Function, Op, Value
from ...ir.ops import loop_layout
from ...runtime import tape_rows, writes
from .tapes import Tapes


class OperandOf:
    """In a check's operands (ForwardPlan.check_after): the checked op's operand at index,
    passed as the value it has in the forward, not as a constant."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


class ForwardPlan:
    """The changes the adjoint needs in the forward, keyed by the primal op they extend.

    A value the new op will have as an extra result is created at once and owned
    by the primal op until the augment step builds the new op: the adjoint sees
    where it is defined (in which loop, to decide whether it must be taped)."""

    def __init__(self):
        self.calls: dict[int, tuple[str, dict, Value]] = {}  # id(call op) -> (opcode, attrs, back)
        self.trip_counts: dict[int, Value] = {}  # id(loop op) -> its trip count
        # id(write op) -> [(save function, operands, saved value)]: run just before the write
        self.saves: dict[int, list[tuple]] = {}
        # id(op) -> [(check function, operands)]: called with op's result just after op
        self.checks: dict[int, list[tuple]] = {}
        self.write_log: Value | None = None  # the arrays the forward wrote (made at entry)
        # id(op) -> [(function, operands, saved value)]: run just after op (shape_after)
        self.after: dict[int, list[tuple]] = {}
        self.shapes: dict[int, Value] = {}  # value id -> its saved shape
        self.callee = False  # compiled for calls from differentiated code (see op())
        # a gradient that runs (not read again by forward mode): item writes save and write
        # in one call (writes.py: _adjoint_item_write_fused)
        self.fused_writes = False
        self.absorbed: set[int] = set()  # ids of the writes a save made (absorb_write)
        self.inline_writes: dict[int, Value] = {}  # id(write) -> its saved element (inline)
        self.unsaved_writes: set[int] = set()  # inline writes whose element nothing restores
        # id(item read) -> the earlier read of the same item it repeats (the forward skips it)
        self.merged_reads: dict[int, Value] = {}
        self.logged: dict[int, list[Value]] = {}  # id(op) -> its results logged as written
        # ids of primal ops left out of the forward: claims of containers no derivative
        # reaches (analysis/claims.py)
        self.dropped: set[int] = set()
        # id(primal op) -> the loop whose body makes its array, kept in tape rows
        # (tape_rows.py: `t = tape_row(rows, <op>)`, rows made just before the loop)
        self.tape_rows: dict[int, Op] = {}

    def save_before(self, op: Op, fn, operands, hint: str) -> Value:
        """Just before op, the forward calls fn(*operands, write_log): what a write into an
        array destroys (runtime/writes.py); the value is returned for the adjoint to read."""
        if self.write_log is None:
            self.write_log = Value("_zp_written")
        saved = Value(hint, op)
        self.saves.setdefault(id(op), []).append((fn, list(operands), saved))
        return saved

    def absorb_write(self, op: Op) -> None:
        """The save made just before op (an item write) also makes the write: op is not
        copied, and its result, the same object as the array written, is the array's value
        in the forward."""
        self.absorbed.add(id(op))

    def inline_item_write(self, op: Op, hint: str, save: bool = True) -> Value:
        """op, `x2 = write_item(x, i, v)` into an array known to be a 1-D float64 one, becomes
        `saved = x[i]; x[i] = v` in the forward (writes.py: _float_vector_sources); x2 is x.
        Without save, only `x[i] = v`: the backward never restores the element
        (writes.py: _restore_unneeded), and the returned value must not be read."""
        if self.write_log is None:
            self.write_log = Value("_zp_written")
        saved = Value(hint, op)
        self.inline_writes[id(op)] = saved
        if not save:
            self.unsaved_writes.add(id(op))
        return saved

    def log_after(self, value: Value) -> None:
        """Just after value's op, the forward logs it as written (writes.log_written)."""
        if self.write_log is None:
            self.write_log = Value("_zp_written")
        logged = self.logged.setdefault(id(value.defining_op), [])
        if not any(v is value for v in logged):
            logged.append(value)

    def check_after(self, op: Op, fn, operands) -> None:
        """Just after op, the forward calls fn(op's result, *operands) (a run-time check
        whose result is not used; operands are constants, or OperandOf(k) for op's
        operand k)."""
        self.checks.setdefault(id(op), []).append((fn, list(operands)))

    def shape_after(self, value: Value, fn) -> Value:
        """Just after value's op, the forward calls fn(value) (runtime.array_shape: what a
        shape-reading helper needs of it); one saved value per value."""
        saved = self.shapes.get(value.id)
        if saved is None:
            op = value.defining_op
            saved = self.shapes[value.id] = Value((value.hint or "t") + "_shape", op)
            self.after.setdefault(id(op), []).append((fn, [value], saved))
        return saved

    def call_with_back(self, op: Op, opcode: str, attrs: dict) -> Value:
        """op, in the forward, becomes `opcode` with attrs and also returns a back function."""
        back = Value("_zp_back", op)
        self.calls[id(op)] = (opcode, attrs, back)
        return back

    def trip_count(self, loop: Op) -> Value:
        """The number of iterations loop ran, counted by the forward."""
        count = self.trip_counts.get(id(loop))
        if count is None:
            count = self.trip_counts[id(loop)] = Value("_zp_trips", loop)
        return count


def augment(primal: Function, plan: ForwardPlan, tapes: Tapes, backward: Block) -> Function:
    """The forward function for primal; backward's reads of primal values now read it."""
    builder = _ForwardBuilder(plan, tapes)
    body = builder.block(primal.body, counted=False, entry=True)
    replace_all_uses(backward, builder.vmap)
    return Function(primal.name, list(body.args), body, primal.loc, primal.signature,
                    dict(primal.meta))


class _ForwardBuilder:
    """Copies the primal's blocks into new ones, adding what the plan and tapes ask for."""

    def __init__(self, plan: ForwardPlan, tapes: Tapes):
        self.plan = plan
        self.tapes = tapes
        self.vmap: dict[int, Value] = {}  # primal value id -> its copy in the forward
        self.row_stores: dict[int, Value] = {}  # id(primal op) -> the tape rows it goes into

    def get(self, value: Value) -> Value:
        return self.vmap.get(value.id, value)  # values made for the forward map to themselves

    def results(self, new: Op, old: Op, extra: Value | None = None) -> None:
        for result in old.results:
            copy = Value(result.hint, new)
            self.vmap[result.id] = copy
            new.results.append(copy)
        if extra is not None:
            extra.owner = new
            new.results.append(extra)

    def block(self, block: Block, counted: bool, entry: bool = False) -> Block:
        new = Block()
        for arg in block.args:
            self.vmap[arg.id] = new.add_arg(arg.hint)
        trips = new.add_arg("_zp_trips") if counted else None
        if entry and self.plan.write_log is not None:
            made = new.append(Op("dict", (), 0))
            self.plan.write_log.owner = made
            made.results.append(self.plan.write_log)
        if entry:
            for tape in self.tapes.entry_tapes():
                made = new.append(Op("tape_new", (), 0, {}, (), None))
                tape.owner = made
                made.results.append(tape)
        start, end = self.tapes.saves_at(block)
        width = sum(len(save[1]) for save in (start, end) if save is not None)
        if start is not None:
            new.append(self._push(*start, last=width if end is None else 0))
        terminator = block.ops[-1]
        for op in block.ops[:-1]:
            self.op(op, new)
        step = None
        if counted and block.parent.regions[-1] is block:  # the body (a while's cond only reads it)
            one = new.append(Op("const", (), 1, {"value": 1}))
            step = new.append(Op("call", [trips, one.result], 1,
                                 {"fn": operator.add, "expr": "add", "kw": (), "star": ()},
                                 hints=["_zp_trips"])).result
        if end is not None:
            new.append(self._push(*end, last=width))
        operands = [self.get(v) for v in terminator.operands] + ([step] if step is not None else [])
        last = new.append(Op(terminator.opcode, operands, 0, terminator.attrs, (), terminator.loc))
        self.results(last, terminator)
        return new

    def _push(self, tape: Value, values: list[Value], last: int) -> Op:
        """A push; the region's last one is marked with how many values an iteration of the
        region pushes in all: a long tape is spilled after it, in columns of that many."""
        attrs = {"last": last} if last else {}
        return Op("tape_push", [tape, *(self.get(v) for v in values)], 0, attrs, (), None)

    def op(self, op: Op, out: Block) -> None:
        if id(op) in self.plan.dropped:  # a claim no derivative reaches
            return
        first = self.plan.merged_reads.get(id(op))
        if first is not None:  # `x[i]` again: the number read before (repeated_item_reads)
            self.vmap[op.result.id] = self.get(first)
            return
        for fn, operands, saved in self.plan.saves.get(id(op), ()):
            save = Op("call", [self.get(v) for v in operands] + [self.plan.write_log], 0,
                      {"fn": fn, "expr": "_zp_" + fn.__name__, "kw": (), "star": ()}, (), op.loc)
            saved.owner = save
            save.results.append(saved)
            out.append(save)
        if id(op) in self.plan.absorbed:
            self.vmap[op.result.id] = self.get(op.operands[0])
            self._after(op, out)
            return
        saved = self.plan.inline_writes.get(id(op))
        if saved is not None:
            self._inline_write(op, saved, out)
            return
        call = self.plan.calls.get(id(op))
        if call is not None:
            opcode, attrs, back = call
            new = Op(opcode, [self.get(v) for v in op.operands], 0, attrs, (), op.loc)
            self.results(new, op, back)
            out.append(new)
            self._after(op, out)
            return
        count = self.plan.trip_counts.get(id(op))
        operands = [self.get(v) for v in op.operands]
        attrs = op.attrs
        if self.plan.callee and _may_write_an_argument(op):
            attrs = dict(attrs, fn=writes.augmented_write_in_callee,
                         expr="_zp_augmented_write_in_callee")
        if count is not None:  # the counter starts at 0 before the loop, a slot after the others
            zero = out.append(Op("const", (), 1, {"value": 0}))
            operands.append(zero.result)
        if op.opcode in ("for", "while"):
            self._row_stores(op, operands, out)
        regions = [self.block(region, counted=count is not None) for region in op.regions]
        new = Op(op.opcode, operands, 0, attrs, regions, op.loc)
        self.results(new, op, count)
        out.append(new)
        for fn, constants in self.plan.checks.get(id(op), ()):
            values = [self.get(op.operands[c.index]) if isinstance(c, OperandOf)
                      else out.append(Op("const", (), 1, {"value": c})).result for c in constants]
            out.append(Op("call", [new.results[0], *values], 1,
                          {"fn": fn, "expr": "_zp_" + fn.__name__, "kw": (), "star": ()},
                          (), op.loc))
        store = self.row_stores.get(id(op))
        if store is not None:
            self._into_row(op, new, store, out)
        self._after(op, out)

    def _row_stores(self, loop: Op, operands: list[Value], out: Block) -> None:
        """Before loop, the tape rows of each array its body makes that tape_rows.py chose:
        `rows = tape_rows(<the range's arguments>)` (sized by the range; else growing)."""
        chosen = [inner for inner in loop.regions[-1].ops
                  if self.plan.tape_rows.get(id(inner)) is loop]
        if not chosen:
            return
        sizes = []
        if loop.opcode == "for" and loop.attrs.get("kind") == "range":
            sizes = operands[:len(loop_layout(loop).iterables)]
        for inner in chosen:
            made = out.append(Op("call", list(sizes), 1,
                                 {"fn": tape_rows.tape_rows, "expr": "_zp_tape_rows", "kw": (),
                                  "star": ()}, (), loop.loc, hints=["_zp_rows"]))
            self.row_stores[id(inner)] = made.result

    def _into_row(self, op: Op, new: Op, store: Value, out: Block) -> None:
        """`t = tape_row(rows, <new>)`: the forward goes on with what tape_row returns (the
        array's copy in a row, or the array itself); new's own result, renamed, is read
        there alone, so the expression is written into the call (codegen/emit.py inlines a
        pure op read once), and tape_row can tell from the reference count that nothing
        else holds the array."""
        made = new.results[0]
        kept = Op("call", [store, made], 1,
                  {"fn": tape_rows.tape_row, "expr": "_zp_tape_row", "kw": (), "star": ()},
                  (), op.loc, hints=[made.hint])
        made.hint = ""
        out.append(kept)
        self.vmap[op.result.id] = kept.result

    def _inline_write(self, op: Op, saved: Value, out: Block) -> None:
        """`saved = x[i]; x[i] = v`: the element the write destroys, then the write."""
        x, index, value = (self.get(v) for v in op.operands[:3])
        if id(op) not in self.plan.unsaved_writes:
            read = Op("call", [x, index], 0, {"fn": operator.getitem, "expr": "getitem",
                                              "kw": (), "star": ()}, (), op.loc)
            saved.owner = read
            read.results.append(saved)
            out.append(read)
        out.append(_store(x, index, value, op.loc))
        self.vmap[op.result.id] = x
        self._after(op, out)

    def _after(self, op: Op, out: Block) -> None:
        for value in self.plan.logged.get(id(op), ()):
            out.append(Op("call", [self.get(value), self.plan.write_log], 1,
                          {"fn": writes.log_written, "expr": "_zp_log_written", "kw": (),
                           "star": ()}, (), op.loc))
        for fn, operands, saved in self.plan.after.get(id(op), ()):
            call = Op("call", [self.get(v) for v in operands], 0,
                      {"fn": fn, "expr": "_zp_" + fn.__name__, "kw": (), "star": ()}, (), op.loc)
            saved.owner = call
            call.results.append(saved)
            out.append(call)


def _store(container: Value, index: Value, value: Value, loc) -> Op:
    """`container[index] = value`, as a statement (codegen/emit.py: runtime.writes.store_item)."""
    return Op("call", [container, index, value], 1,
              {"fn": writes.store_item, "expr": "_zp_store_item", "kw": (), "star": ()}, (), loc)


def _may_write_an_argument(op: Op) -> bool:
    """`y op= v` where y may be an argument's array (its last operand says so)."""
    if op.opcode != "call" or op.attrs["fn"] is not writes.augmented_write or len(op.operands) < 5:
        return False
    flag = op.operands[4].defining_op
    return flag is not None and flag.opcode == "const" and flag.attrs["value"] is True
