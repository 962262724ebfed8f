"""The emitter: IR blocks -> lines of Python source.

Each op becomes a statement, except single-use pure values, which are folded
into the expression that uses them (`x = np.sin(x) * x + ...` stays one
line).  A folded expression is written out early under its own name if a
statement in between would reassign a name it reads.  Branch and loop
results that could not share a name with their inputs get explicit copies,
as one tuple assignment so that swaps stay correct.  Adjoint statements are
preceded by a comment quoting the user's line they differentiate.
"""

from __future__ import annotations

import ast
import os

from ..errors import SourceLoc
from ..ir.core import Block, Op, Value
from ..ir.ops import loop_layout
from ..analysis.bound import may_be_unbound
from ..analysis.purity import is_pure
from ..runtime import float_loops, tapes
from ..runtime.writes import private_copy
from .exprs import Binder, call_expr, constant_expr, names_read, split_arguments
from .float_loops import FloatLoopPlan, float_loop_plan
from .naming import Names
from .unparse import unparse

_EXPRESSION_OPS = {"const", "global", "cell", "call", "getattr", "tuple", "list", "dict", "method", "callv"}


def _written_as_local_variable(op: Op, operand: int, args: list[ast.expr]) -> bool:
    """Whether op's operand is written in its call as a local variable of the generated
    code (not an expression, not a module global or closure cell read by its own name),
    so that a reference count can tell whether anything besides that variable holds it."""
    source = op.operands[operand].defining_op
    return isinstance(args[operand], ast.Name) and \
        (source is None or source.opcode not in ("global", "cell"))


class Emitter:
    def __init__(self, names: Names, binder: Binder, uses: dict[int, int], *, annotate: bool):
        self.names = names
        self.binder = binder
        # one namespace: a local never takes a bound object's name, nor a bound object a local's
        names.bound, names.roots = binder.bound, binder.roots
        binder.local_names = names.taken
        self.uses = uses
        self.annotate = annotate
        self.spill_tapes = False  # long tapes spill into typed blocks (see op_tape_new)
        self.tape_flag: dict[int, str] = {}  # id(tape push/pop) -> the loop's flag (tape_flags)
        # the backward loop being written that may run on Python floats: (its `_zp_floats`
        # variable, its plan); codegen/float_loops.py
        self.float_loop: tuple[str, FloatLoopPlan] | None = None
        self.adjoint = False  # adjoint lines say "grad of:"; forward code quotes its line plainly
        self.named: set[str] = set()  # the user's variables (and their `_bar`s) keep their own statement
        self.lines: list[str] = []
        self.indent = 0
        self.pending: dict[int, ast.expr] = {}
        self.last_loc: SourceLoc | None = None
        self.grouped: set[int] = set()  # values that must keep a name (loop/branch groups)
        self.single_use_here: dict[int, Block] = {}  # value id -> block of its only use
        self.pullbacks: dict = {}  # CalleeRef of a call_pb -> the pullback it resolved to
        self._pending_values: dict[int, Value] = {}
        self.state_reads: set[int] = set()  # pending expressions that read an attribute

    # -- output ---------------------------------------------------------------
    def line(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    def stmt(self, node: ast.stmt, op: Op | None = None) -> None:
        if op is not None:
            self.comment_for(op)
        self.line(unparse(node))

    def comment_for(self, op: Op) -> None:
        if not self.annotate or op.loc is None or op.loc == self.last_loc:
            return
        previous, self.last_loc = self.last_loc, op.loc
        if previous is not None and previous.line == op.loc.line and previous.filename == op.loc.filename:
            return
        source = op.loc.source_line().strip()
        if source:
            where = f"{os.path.basename(op.loc.filename)}:{op.loc.line}"
            self.line(f"# grad of: {source}  {where}" if self.adjoint else f"# {where}  {source}")

    # -- values -------------------------------------------------------------
    def name(self, value: Value) -> str:
        return self.names.name(value)

    def expr(self, value: Value, in_subscript: bool = False) -> ast.expr:
        op = value.defining_op
        if op is not None and op.opcode == "const":
            return constant_expr(op.attrs["value"], self.binder, in_subscript)
        if op is not None and self.read_at_use(op):
            return ast.Name(op.attrs["name"], ast.Load())
        pending = self.pending.pop(value.id, None)
        if pending is not None:
            return pending
        return ast.Name(self.name(value), ast.Load())

    def read_at_use(self, op: Op) -> bool:
        """Whether op is a closure cell read written as the cell's own name where it is
        used, with no statement of its own.  Lowering reads every cell once, at the
        function's entry (frontend/lower.py: read_cell), but a cell the enclosing function
        binds on one path only is empty on the others (a pullback's `_zp_back` of a branch
        that did not run, a variable bound under an `if`), and Python fails only when a
        read of it runs.  The cell is never rebound in the function (nonlocal is refused),
        so every read gives the entry's value.  A cell value that shares a name with a
        loop's or branch's values keeps its statement."""
        return op.opcode == "cell" and op.result.id not in self.grouped

    def inlinable(self, op: Op) -> bool:
        if op.opcode not in _EXPRESSION_OPS or len(op.results) != 1:
            return False
        if op.opcode == "call" and getattr(op.attrs.get("fn"), "_zp_unpacked", False):
            return self._unpacked_at_once(op)
        if op.opcode in ("method", "callv") or not is_pure(op):
            return False
        if op.opcode == "call" and getattr(op.attrs.get("fn"), "_zp_pure", False):
            return False  # zygote_py's own helpers: one helper call a line reads best
        result = op.result
        if result.id in self.grouped or self.uses.get(result.id, 0) != 1 or result.hint in self.named:
            return False
        return self.single_use_here.get(result.id) is op.block

    def _unpacked_at_once(self, op: Op) -> bool:
        """A helper returning a pair that the very next op unpacks (runtime/writes.py:
        undo_write_split) is written into that statement, `a, b = f(...)`: no variable keeps
        the pair, and so the arrays in it, alive.  Nothing runs between the two."""
        ops = op.block.ops
        position = ops.index(op)
        after = ops[position + 1] if position + 1 < len(ops) else None
        return after is not None and after.opcode == "unpack" and after.operands[0] is op.result \
            and self.uses.get(op.result.id, 0) == 1 and op.result.id not in self.grouped

    def flush_reading(self, assigned: set[str]) -> None:
        """Write out pending expressions that read a name about to be reassigned."""
        for vid in list(self.pending):
            expr = self.pending[vid]
            if names_read(expr) & assigned:
                value = self._pending_values[vid]
                del self.pending[vid]
                self.line(f"{self.name(value)} = {unparse(expr)}")

    def flush_all(self) -> None:
        """Write out every pending expression (before a write into an array)."""
        for vid in list(self.pending):
            expr = self.pending.pop(vid)
            self.line(f"{self.name(self._pending_values[vid])} = {unparse(expr)}")

    def flush_state_reads(self, op: Op) -> None:
        """Write out pending attribute reads before op, which may write attributes (a
        method, a write into an object): Python read them before it runs.  Those op
        itself uses are evaluated before it runs anyway."""
        used = {v.id for v in op.operands}
        for vid in list(self.pending):
            if vid in self.state_reads and vid not in used:
                value = self._pending_values[vid]
                expr = self.pending.pop(vid)
                self.line(f"{self.name(value)} = {unparse(expr)}")
        self.state_reads.intersection_update(self.pending)

    # -- blocks ---------------------------------------------------------------
    def block(self, block: Block, terminator=None) -> None:
        for op in block.ops:
            if op.opcode in ("yield", "return"):
                if terminator is not None:
                    terminator(op)
                continue
            self.op(op)

    def op(self, op: Op) -> None:
        if op.opcode == "const" or self.read_at_use(op):
            return
        if self.inlinable(op):
            if getattr(op.attrs.get("fn"), "_zp_writes", False):  # (an _unpacked_at_once call)
                self.flush_all()  # what is pending reads memory the call may write
            if op.opcode == "getattr" or any(v.id in self.state_reads for v in op.operands):
                self.state_reads.add(op.result.id)
            expr = self.build_expr(op)
            self.pending[op.result.id] = expr
            self._pending_values[op.result.id] = op.result
            return
        if self.state_reads and not is_pure(op):
            self.flush_state_reads(op)
        handler = getattr(self, "op_" + op.opcode, None)
        if handler is None:
            raise NotImplementedError(f"codegen for {op.opcode}")
        if op.regions and self.pending:
            if self.region_flushes(op):
                # a flush inside the region would write this block's pending expressions
                # into one branch (or the loop body): unbound on the other paths. The op's
                # own operands (a condition, the iterable) are read in its header, first.
                own = {v.id for v in op.operands}
                for vid in list(self.pending):
                    if vid not in own:
                        expr = self.pending.pop(vid)
                        self.line(f"{self.name(self._pending_values[vid])} = {unparse(expr)}")
                self.state_reads.intersection_update(self.pending)
            self.flush_reading(self.names_assigned_within(op))
        handler(op)

    def region_flushes(self, op: Op) -> bool:
        """Whether something inside op's regions writes out every pending expression (a
        write into an array) or the pending attribute reads (any impure op)."""
        for region in op.regions:
            for inner in region.walk():
                if inner.opcode == "call" and getattr(inner.attrs.get("fn"), "_zp_writes", False):
                    return True
                if self.state_reads and not is_pure(inner):
                    return True
        return False

    def names_assigned_within(self, op: Op) -> set[str]:
        """The names a branch or loop assigns inside its regions (already named ones only:
        a name still to be chosen is fresh, so no pending expression can read it).

        A pending expression of the enclosing block that reads one of them must be
        written out before the region starts: flushed from inside the loop body it
        would be computed from the loop's rebound name (`c = 1 + v; for ...: v = ...`)."""
        names: set[str] = set()
        for region in op.regions:
            for value in region.args:
                names.add(self.names.peek(value))
            for inner in region.walk():
                for value in inner.results:
                    names.add(self.names.peek(value))
                for nested in inner.regions:
                    names.update(self.names.peek(a) for a in nested.args)
        names.discard(None)
        return names

    def assign(self, targets: list[Value], value_expr: ast.expr, op: Op) -> None:
        names = [self.name(t) if self.uses.get(t.id, 0) or t.id in self.grouped else "_" for t in targets]
        self.flush_reading(set(names))
        if len(names) == 1:
            target = ast.Name(names[0], ast.Store())
        else:
            target = ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())
        self.stmt(ast.Assign([target], value_expr, lineno=0), op)

    def copies(self, pairs: list[tuple[str, ast.expr]], sources: list[Value] | None = None) -> None:
        """`a, b = x, y`: the values meeting at a loop or branch moved to their names.
        sources: the value each pair copies, where a variable some path leaves unassigned
        may be among them (see unbound_copies)."""
        sources = sources if sources is not None else [None] * len(pairs)
        kept = [(n, e, v) for (n, e), v in zip(pairs, sources)
                if not (isinstance(e, ast.Name) and e.id == n)]
        if not kept:
            return
        self.flush_reading({n for n, _, _ in kept})
        pairs, unbound = self.unbound_copies(kept)
        if len(pairs) == 1:
            self.line(f"{pairs[0][0]} = {unparse(pairs[0][1])}")
        else:
            targets = ", ".join(n for n, _ in pairs)
            values = ", ".join(unparse(e) for _, e in pairs)
            self.line(f"{targets} = {values}")
        for name in unbound:  # unassigned there: unassigned here too, as Python has it
            marker = self._unbound_marker()
            self.line(f"if {name} is {marker}:")
            self.line(f"    del {name}")

    def unbound_copies(self, kept: list) -> tuple[list[tuple[str, ast.expr]], list[str]]:
        """The pairs to assign, and the targets to unbind again.  A variable some path leaves
        unassigned (an `undef` reaches it: a loop's temporary, carried into a nested loop
        under another name) is read as `locals().get(name, UNBOUND)` and its copy deleted
        when it was unassigned: a plain read would raise UnboundLocalError where the program
        does not read it.  (As for a tape's save of such a variable, saved_expr: a gradient
        holding one is refused, not misread, where forward mode differentiates it again.)"""
        pairs, unbound = [], []
        for name, expr, value in kept:
            if value is not None and isinstance(expr, ast.Name) and may_be_unbound(value):
                marker = ast.Name(self._unbound_marker(), ast.Load())
                expr = ast.Call(ast.Attribute(ast.Call(ast.Name("locals", ast.Load()), [], []),
                                              "get", ast.Load()),
                                [ast.Constant(expr.id), marker], [])
                unbound.append(name)
            pairs.append((name, expr))
        return pairs, unbound

    def _unbound_marker(self) -> str:
        from ..runtime import helpers as runtime

        return self.binder.bind(runtime.UNBOUND, "_zp_unbound")

    # -- expressions --------------------------------------------------------------
    def build_expr(self, op: Op) -> ast.expr:
        code = op.opcode
        attrs = op.attrs
        if code == "global" or code == "cell":
            return ast.Name(attrs["name"], ast.Load())
        if code == "call":
            fn = attrs["fn"]
            import operator

            if fn is operator.getitem and len(op.operands) == 2:
                args = [self.expr(op.operands[0]), self.expr(op.operands[1], in_subscript=True)]
            else:
                args = [self.expr(v) for v in op.operands]
            spent_flags = getattr(fn, "_zp_spent_flags", None)
            if spent_flags:
                self._keep_spent_flags_sound(op, args, spent_flags)
            counted = getattr(fn, "_zp_counted_operands", None)
            if counted:
                self._pass_counted_operands_privately(op, args, counted)
            expr = call_expr(fn, attrs.get("expr"), args, attrs.get("kw", ()), attrs.get("star", ()),
                             self.binder)
            if self.float_loop is not None and id(op) in self.float_loop[1].divisions:
                expr = self._tested_division(expr, args)
            return expr
        if code == "callv":
            func = self.expr(op.operands[0])
            args = [self.expr(v) for v in op.operands[1:]]
            return ast.Call(func, *split_arguments(args, attrs.get("kw", ()), attrs.get("star", ())))
        if code == "method":
            obj = self.expr(op.operands[0])
            args = [self.expr(v) for v in op.operands[1:]]
            return ast.Call(ast.Attribute(obj, attrs["name"], ast.Load()),
                            *split_arguments(args, attrs.get("kw", ()), attrs.get("star", ())))
        if code == "getattr":
            return ast.Attribute(self.expr(op.operands[0]), attrs["name"], ast.Load())
        if code == "tuple":
            return ast.Tuple([self.expr(v) for v in op.operands], ast.Load())
        if code == "list":
            return ast.List([self.expr(v) for v in op.operands], ast.Load())
        if code == "dict":
            values = [self.expr(v) for v in op.operands]
            return ast.Dict(values[::2], values[1::2])
        raise NotImplementedError(code)

    def _tested_division(self, quotient: ast.expr, args: list[ast.expr]) -> ast.expr:
        """`a / b` in a backward loop that may run on Python floats: `a / b if type(b) is not
        float or b else divide_scalars(a, b, _zp_floats)`, so that a zero divisor gives
        NumPy's inf where the loop runs on floats standing for float64 scalars.  The
        divisor is read twice: it is arithmetic on the loop's own values (no effects)."""
        a, b = args
        py_float = ast.Name(self.binder.bind(float, "_zp_float"), ast.Load())
        test = ast.BoolOp(ast.Or(), [
            ast.Compare(ast.Call(ast.Name("type", ast.Load()), [b], []), [ast.IsNot()], [py_float]), b])
        divide = ast.Name(self.binder.bind(float_loops.divide_scalars, "_zp_divide_scalars"), ast.Load())
        fallback = ast.Call(divide, [a, b, ast.Name(self.float_loop[0], ast.Load())], [])
        return ast.IfExp(test, quotient, fallback)

    @staticmethod
    def _keep_spent_flags_sound(op: Op, args: list[ast.expr], spent_flags: dict[int, int]) -> None:
        """A helper that may write into an operand the code never reads again
        (`_add_index_cotangent`; its `_zp_spent_flags` map the operand to its flag) proves
        while running that nothing else holds it by its reference count: the caller's
        variable alone.  That proof needs the operand written as a local variable; an
        expression in its place (an item or attribute read, a global, a cell,
        `np.asarray(v)`) may return an array that a container, an object or another
        variable holds once, which the count cannot tell from the variable.  The flag is
        written False there."""
        for operand, flag in spent_flags.items():
            if flag >= len(args) or operand >= len(args):
                continue
            if not _written_as_local_variable(op, operand, args):
                args[flag] = ast.Constant(False)

    def _pass_counted_operands_privately(self, op: Op, args: list[ast.expr], counted: tuple) -> None:
        """The helpers that zero a cotangent's region in place when its reference count
        says only the caller's variable holds it (runtime/writes.py: undo_write_split,
        overwritten_cotangent; `_zp_counted_operands`) are sound only for an operand written
        as a local variable, as above.  An expression in its place is passed through
        `private_copy`, an array of its own: the helper zeroes that copy, which it would
        have made itself had the count seen the container's reference."""
        for operand in counted:
            if operand < len(args) and not _written_as_local_variable(op, operand, args):
                private = self.binder.expr_for(private_copy, "_zp_private_copy")
                args[operand] = ast.Call(private, [args[operand]], [])

    # -- statements -----------------------------------------------------------------
    def simple(self, op: Op) -> None:
        if op.opcode == "call" and getattr(op.attrs["fn"], "_zp_writes", False):
            self.flush_all()  # an expression read after a write into an array would see it
            if getattr(op.attrs["fn"], "_zp_store", False) and len(op.operands) == 3:
                # runtime.writes.store_item: the statement `x[index] = value`
                x, index, value = op.operands
                target = ast.Subscript(self.expr(x), self.expr(index, in_subscript=True), ast.Store())
                self.stmt(ast.Assign([target], self.expr(value), lineno=0), op)
                return
            adds = getattr(op.attrs["fn"], "_zp_add_store", None)
            if adds and len(op.operands) == 3:
                # runtime.helpers.add_into_item: the statement `acc[index] += g`, or
                # add_real_into_item's `acc[index] += g.real`
                acc, index, value = op.operands
                target = ast.Subscript(self.expr(acc), self.expr(index, in_subscript=True), ast.Store())
                added = self.expr(value)
                if adds == "real":
                    added = ast.Attribute(added, "real", ast.Load())
                # (runtime.helpers.subtract_from_item: `acc[index] -= g`)
                operation = ast.Sub() if adds == "minus" else ast.Add()
                self.stmt(ast.AugAssign(target, operation, added), op)
                return
        expr = self.build_expr(op)
        if op.results and (self.uses.get(op.result.id, 0) or op.result.id in self.grouped):
            self.assign(op.results, expr, op)
        else:
            self.flush_reading(set())
            self.stmt(ast.Expr(expr), op)

    op_global = op_cell = op_call = op_callv = op_method = op_getattr = simple
    op_tuple = op_list = op_dict = simple

    def op_undef(self, op: Op) -> None:
        pass

    def op_unpack(self, op: Op) -> None:
        source = self.expr(op.operands[0])
        star = op.attrs.get("star")
        names = [self.name(t) if self.uses.get(t.id, 0) or t.id in self.grouped else "_" for t in op.results]
        self.flush_reading(set(names))
        elts = [ast.Starred(ast.Name(n, ast.Store()), ast.Store()) if i == star else ast.Name(n, ast.Store())
                for i, n in enumerate(names)]
        self.stmt(ast.Assign([ast.Tuple(elts, ast.Store())], source, lineno=0), op)

    def op_assert(self, op: Op) -> None:
        test = self.expr(op.operands[0])
        msg = self.expr(op.operands[1]) if len(op.operands) > 1 else None
        self.stmt(ast.Assert(test, msg), op)

    def op_raise(self, op: Op) -> None:
        self.stmt(ast.Raise(self.expr(op.operands[0]), None), op)

    def _container_update(self, op: Op, inplace: str, functional) -> None:
        container = op.operands[0]
        args = [self.expr(v) for v in op.operands[1:]]
        if self.name(container) == self.name(op.result) and \
                container.id not in self.names.liveness.kept:
            self.flush_reading({self.name(container)})
            self.stmt(inplace(ast.Name(self.name(container), ast.Load()), args), op)
        else:  # a new object (a pullback or tape holding the old one must not see the update)
            self.assign([op.result], functional(self.expr(container), args), op)

    def op_append(self, op: Op) -> None:
        self._container_update(
            op, lambda c, a: ast.Expr(ast.Call(ast.Attribute(c, "append", ast.Load()), a, [])),
            lambda c, a: ast.BinOp(c, ast.Add(), ast.List(a, ast.Load())))

    def op_extend(self, op: Op) -> None:
        self._container_update(
            op, lambda c, a: ast.Expr(ast.Call(ast.Attribute(c, "extend", ast.Load()), a, [])),
            lambda c, a: ast.List([ast.Starred(c, ast.Load()), ast.Starred(a[0], ast.Load())], ast.Load()))

    def op_setitem(self, op: Op) -> None:
        self._container_update(
            op, lambda c, a: ast.Assign([ast.Subscript(c, a[0], ast.Store())], a[1], lineno=0),
            lambda c, a: ast.Dict([None, a[0]], [c, a[1]]))

    # -- control flow ---------------------------------------------------------------
    def region_lines(self, block: Block, terminator) -> list[str]:
        saved_lines, saved_indent = self.lines, self.indent
        self.lines, self.indent = [], saved_indent + 1
        try:
            self.block(block, terminator)
            return self.lines
        finally:
            self.lines, self.indent = saved_lines, saved_indent

    def yield_copies(self, targets: list[Value]):
        def terminator(op: Op) -> None:
            pairs, sources = [], []
            for target, value in zip(targets, op.operands):
                src = value.defining_op
                if src is not None and src.opcode == "undef":
                    continue
                pairs.append((self.name(target), self.expr(value)))
                sources.append(value)
            self.copies(pairs, sources)

        return terminator

    def op_if(self, op: Op) -> None:
        cond = self.expr(op.operands[0])
        self.flush_reading(set())
        self.comment_for(op)
        then_lines = self.region_lines(op.regions[0], self.yield_copies(op.results))
        else_lines = self.region_lines(op.regions[1], self.yield_copies(op.results))
        if not then_lines and else_lines:
            cond = ast.UnaryOp(ast.Not(), cond)
            then_lines, else_lines = else_lines, []
        self.line(f"if {unparse(cond)}:")
        self.lines += then_lines or ["    " * (self.indent + 1) + "pass"]
        if else_lines:
            self.line("else:")
            self.lines += else_lines

    def carried_entry(self, op: Op, args: list[Value]) -> None:
        pairs, sources = [], []
        for arg, init in zip(args, loop_layout(op).inits):
            src = init.defining_op
            if src is not None and src.opcode == "undef":
                continue
            pairs.append((self.name(arg), self.expr(init)))
            sources.append(init)
        self.copies(pairs, sources)

    def loop_exit(self, op: Op, args: list[Value]) -> list[str]:
        return [f"if {self.name(args[k])}:" for k in op.attrs.get("exit", ())]

    def op_for(self, op: Op) -> None:
        body = op.regions[0]
        layout = loop_layout(op)
        args = layout.carried
        plan = float_loop_plan(op) if self.spill_tapes else None
        iterables = [self.expr(v) for v in layout.iterables]
        if plan is not None and not isinstance(iterables[0], ast.Name):
            steps = self.names.fresh("_zp_steps")  # read twice: by float_loop and the loop
            self.line(f"{steps} = {unparse(iterables[0])}")
            iterables = [ast.Name(steps, ast.Load())]
        self.carried_entry(op, args)
        targets = [self.name(t) if self.uses.get(t.id, 0) or t.id in self.grouped else "_"
                   for t in layout.targets]
        kind = op.attrs["kind"]
        if kind == "range":
            header = ast.Call(ast.Name("range", ast.Load()), iterables, [])
        elif kind == "iter":
            header = iterables[0]
        else:  # zip, enumerate, reversed: as the user wrote them
            header = ast.Call(ast.Name(kind, ast.Load()), iterables, [])
        self.binder.roots.add(kind)
        self.comment_for(op)
        self.tape_flags(body, header if kind == "range" else None, iterables)
        floats = self._enter_float_loop(plan, header, args) if plan is not None else None
        self.line(f"for {', '.join(targets)} in {unparse(header)}:")
        try:
            self.emit_body(op, body, args)
        finally:
            self.float_loop = None
        if floats is not None:
            leave = self.binder.bind(float_loops.leave_float_loop, "_zp_leave_float_loop")
            names = ", ".join(self.name(arg) for arg in args)
            self.line(f"if {floats} is not None:")
            self.line(f"    {names} = {leave}({floats}, {names})")
        self.after_loop(op, args)

    def _enter_float_loop(self, plan: FloatLoopPlan, steps: ast.expr, args: list[Value]) -> str:
        """Before a backward loop that may run on Python floats (codegen/float_loops.py):
        `_zp_floats = float_loop(tape, steps, width, ...)` where a block was spilled
        (else None: a short tape is not worth converting), and the carried cotangents as
        Python floats where it answered.  Returns the `_zp_floats` variable's name."""
        floats = self.names.fresh("_zp_floats")
        refills = self.tape_flag[id(plan.first_pop)]  # (tape_flags gives every first pop one)
        entry = self.binder.bind(float_loops.float_loop, "_zp_float_loop")
        py_float = self.binder.bind(float, "_zp_float")
        tape = unparse(self.expr(plan.first_pop.operands[0]))
        carried = [self.name(arg) for arg in args]
        call = f"{entry}({tape}, {unparse(steps)}, {plan.width}, {plan.float64_pops}, " \
               f"{plan.divisions_read_tape}, {plan.settles!r}{''.join(', ' + c for c in carried)})"
        self.line(f"{floats} = {call} if {refills} else None")
        self.line(f"if {floats} is not None:")
        for name in carried:
            self.line(f"    {name} = {py_float}({name})")
        self.float_loop = (floats, plan)
        return floats

    def tape_flags(self, body: Block, header: ast.expr | None, iterables: list[ast.expr]) -> None:
        """Before a loop, decide once whether its body's tape checks can be skipped.

        Forward: a `range` loop whose pushes cannot take the tape past SPILL_AT never
        spills, so its iterations skip the length check.  Only a range made of names and
        constants is built twice for it: any other header (an iterator the function
        reads, a zip) might notice being read, so its loop checks every iteration.
        Backward: with no block spilled, nothing is ever refilled."""
        if not self.spill_tapes:
            return
        for inner in body.ops:
            if inner.opcode == "tape_push" and inner.attrs.get("last"):
                if header is None or not all(isinstance(e, (ast.Name, ast.Constant)) for e in iterables):
                    continue  # building the header twice might be seen: check every iteration
                flag = self.names.fresh("_zp_spills")
                may_spill = self.binder.bind(tapes.may_spill, "_zp_may_spill")
                self.line(f"{flag} = {may_spill}({unparse(self.expr(inner.operands[0]))}, "
                          f"{inner.attrs['last']}, {unparse(header)})")
                self.tape_flag[id(inner)] = flag
            elif inner.opcode == "tape_pop" and inner.attrs.get("first"):
                flag = self.names.fresh("_zp_refills")
                self.line(f"{flag} = len({unparse(self.expr(inner.operands[0]))}[0]) > 0")
                self.tape_flag[id(inner)] = flag

    def emit_body(self, op: Op, body: Block, args: list[Value]) -> None:
        lines = self.region_lines(body, self.yield_copies(args))
        for k in op.attrs.get("exit", ()):
            lines.append("    " * (self.indent + 1) + f"if {self.name(args[k])}:")
            lines.append("    " * (self.indent + 2) + "break")
        self.lines += lines or ["    " * (self.indent + 1) + "pass"]

    def after_loop(self, op: Op, args: list[Value]) -> None:
        moved = [(r, a) for r, a in zip(op.results, args) if self.uses.get(r.id, 0) or r.id in self.grouped]
        self.copies([(self.name(r), ast.Name(self.name(a), ast.Load())) for r, a in moved],
                    [a for _, a in moved])

    def op_while(self, op: Op) -> None:
        cond_block, body = op.regions
        args = body.args
        self.carried_entry(op, args)
        holder = {}

        def cond_terminator(term: Op) -> None:
            holder["cond"] = self.expr(term.operands[0])

        cond_lines = self.region_lines(cond_block, cond_terminator)
        self.comment_for(op)
        if not cond_lines:
            self.line(f"while {unparse(holder['cond'])}:")
        else:
            self.line("while True:")
            self.lines += cond_lines
            self.line(f"    if not ({unparse(holder['cond'])}):")
            self.line("        break")
        self.emit_body(op, body, args)
        self.after_loop(op, args)

    def op_closure(self, op: Op) -> None:
        from ..runtime import helpers as runtime

        names = op.attrs["names"]
        values = [self.expr(v) for v in op.operands]
        captured = ast.Tuple([self.captured_expr(v, e) for v, e in zip(op.operands, values[:len(names)])],
                             ast.Load())
        ndefaults = op.attrs["ndefaults"]
        defaults = ast.Tuple(values[len(names):len(names) + ndefaults], ast.Load())
        kwvalues = values[len(names) + ndefaults:]
        kwdefaults = ast.Dict([ast.Constant(k) for k in op.attrs["kwdefaults"]], kwvalues)
        func = ast.Name(self.binder.bind(runtime.make_closure, "_zp_make_closure"), ast.Load())
        code = ast.Name(self.binder.bind(op.attrs["code"], f"code_{op.attrs['code'].co_name.strip('<>')}"),
                        ast.Load())
        call = ast.Call(func, [code, ast.Call(ast.Name("globals", ast.Load()), [], []), captured, defaults,
                               kwdefaults], [])
        self.assign(op.results, call, op)

    def captured_expr(self, value: Value, expr: ast.expr) -> ast.expr:
        """What a nested def captures: the variable, or, where some path leaves it
        unassigned, `locals().get(name, UNBOUND)` (an empty cell: Python's closures bind
        late, so the original fails only if the nested function reads it)."""
        if not (isinstance(expr, ast.Name) and may_be_unbound(value)):
            return expr
        from ..runtime import helpers as runtime

        unbound = ast.Name(self.binder.bind(runtime.UNBOUND, "_zp_unbound"), ast.Load())
        return ast.Call(ast.Attribute(ast.Call(ast.Name("locals", ast.Load()), [], []), "get",
                                      ast.Load()), [ast.Constant(expr.id), unbound], [])

    # -- ops added by the reverse transform -------------------------------------------
    def op_call_pb(self, op: Op) -> None:
        pullback = self.pullbacks[op.attrs["callee"]]  # resolved by the driver after the transform
        func = ast.Name(self.binder.bind(pullback, op.attrs["pb_expr"]), ast.Load())
        args = [self.expr(v) for v in op.operands]
        call = ast.Call(func, *split_arguments(args, op.attrs.get("kw", ()), op.attrs.get("star", ())))
        self.assign(op.results, call, op)

    def op_dyncall(self, op: Op) -> None:
        """`y, back = _zp_call(f, (operands...), spec, loc)` (see dispatch.py)."""
        from ..calls import dispatch

        kind = op.attrs["dyn_kind"]
        kw = op.attrs.get("kw", ())
        star = op.attrs.get("star", ())
        values = [self.expr(v) for v in op.operands]
        loc = ast.Name(self.binder.bind(op.loc, "loc"), ast.Load())
        if kind == "call":
            head = [self.binder.expr_for(op.attrs["fn"], op.attrs.get("expr"))]
        elif kind == "method":
            head = [values.pop(0), ast.Constant(op.attrs["name"])]
        else:
            head = [values.pop(0)]
        npos = len(values) - len(kw)
        spec = [("*" if i in star else None) for i in range(npos)] + [k if k is not None else "**" for k in kw]
        helper = dispatch.call_method if kind == "method" else dispatch.call
        func = ast.Name(self.binder.bind(helper, "_zp_" + helper.__name__), ast.Load())
        args = [*head, ast.Tuple(values, ast.Load()), ast.Tuple([ast.Constant(x) for x in spec], ast.Load()), loc]
        self.assign(op.results, ast.Call(func, args, []), op)

    def op_call_back(self, op: Op) -> None:
        back, g = (self.expr(v) for v in op.operands)
        call = ast.Call(back, [g], [])
        if len(op.results) == 1:
            self.assign(op.results, ast.Subscript(call, ast.Constant(0), ast.Load()), op)
        else:
            self.assign(op.results, call, op)

    # Tapes.  With `spill_tapes` (every gradient the reverse compiler builds) a tape is a list
    # whose item 0 holds the blocks a long tape spilled (runtime/tapes.py): values are pushed
    # one by one, spilled after a region's last push once the tape is long, and refilled
    # before a backward region's first pop.  Without it (gradients compiled to be
    # differentiated again, which forward mode reads as plain list code) a push appends one
    # tuple and a pop unpacks it.
    def op_tape_new(self, op: Op) -> None:
        empty = ast.List([], ast.Load())
        self.assign(op.results, ast.List([empty], ast.Load()) if self.spill_tapes else empty, op)

    def op_tape_open(self, op: Op) -> None:
        if self.name(op.result) != self.name(op.operands[0]):
            if self.spill_tapes:
                func = ast.Name(self.binder.bind(tapes.open_tape, "_zp_open_tape"), ast.Load())
            else:
                func = ast.Name("list", ast.Load())
            self.assign(op.results, ast.Call(func, [self.expr(op.operands[0])], []), op)

    def op_tape_push(self, op: Op) -> None:
        tape = self.expr(op.operands[0])
        values = [self.saved_expr(v) for v in op.operands[1:]]
        self.flush_reading(set())
        append = ast.Attribute(tape, "append", ast.Load())
        if not self.spill_tapes:
            item = values[0] if len(values) == 1 else ast.Tuple(values, ast.Load())
            self.line(unparse(ast.Expr(ast.Call(append, [item], []))))
            return
        for value in values:
            self.line(unparse(ast.Expr(ast.Call(append, [value], []))))
        if op.attrs.get("last"):
            spill = self.binder.bind(tapes.spill_tape, "_zp_spill_tape")
            flag = self.tape_flag.get(id(op))
            guard = f"{flag} and " if flag else ""
            self.line(f"if {guard}len({unparse(tape)}) > {tapes.SPILL_AT}:")
            self.line(f"    {spill}({unparse(tape)}, {op.attrs['last']})")

    def saved_expr(self, value: Value) -> ast.expr:
        """What a tape saves for value; None where Python has not bound the variable.

        A variable assigned on only some paths (`else: y = ...` in a loop that
        may `return` first) is unbound until then; Python raises only if the
        user's code reads it, so the save must not read it either.  The
        adjoint pops it only on a path where it was bound.
        """
        expr = self.expr(value)
        if isinstance(expr, ast.Name) and may_be_unbound(value):
            return ast.Call(ast.Attribute(ast.Call(ast.Name("locals", ast.Load()), [], []), "get",
                                          ast.Load()), [ast.Constant(expr.id)], [])
        return expr

    def op_tape_pop(self, op: Op) -> None:
        tape = self.expr(op.operands[0])
        pop = ast.Call(ast.Attribute(tape, "pop", ast.Load()), [], [])
        if not self.spill_tapes:
            if op.results:
                self.assign(op.results, pop, op)
            return
        if op.attrs.get("first"):
            refill = self.binder.bind(tapes.refill_tape, "_zp_refill_tape")
            flag = self.tape_flag.get(id(op))
            guard = f"{flag} and " if flag else ""
            floats = self.float_loop[0] if self.float_loop and self.float_loop[1].first_pop is op else None
            self.line(f"if {guard}len({unparse(tape)}) == 1:")
            self.line(f"    {refill}({unparse(tape)}{', ' + floats if floats else ''})")
        for result in reversed(op.results):  # pushed one by one: the last value comes off first
            self.assign([result], pop, op)

