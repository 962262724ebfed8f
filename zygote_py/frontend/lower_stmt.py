"""Lowering of statements and control flow to structured SSA.

`if` becomes an `if` op whose results are the variables either branch
rebinds.  Loops carry every variable live around them as block arguments
(the simplifier later drops the ones that never change).  `break`,
`continue` and `return` inside structured code become flag variables: after
a statement that may have set one, the rest of the block is guarded by
`if not flag`, and loops exit when a break or return flag is set.
"""

from __future__ import annotations

import ast
import importlib
import types

import gast

from ..errors import UnsupportedSyntax
from ..ir.core import Block, Value
from .lower_expr import Unmergeable
from .lower_writes import WRITTEN_SLOT
from ..ir.intrinsics import builtins_or
from ..rules.untracked import no_grad
from ..runtime import containers as forms
from .scope import bound_names

# Keys of the early-exit flags in the environment: not identifiers, so that no variable of the
# code being lowered (generated code has its own `_zp_return`) can be taken for one.
BREAK, CONTINUE, RETURN, RETVAL = "<break>", "<continue>", "<return>", "<retval>"
_FLAG_HINTS = {BREAK: "_zp_break", CONTINUE: "_zp_continue", RETURN: "_zp_return", RETVAL: "_zp_retval"}
VALUE = "<value>"  # the value of a conditional expression, merged with the names it binds
_FLAG_HINTS[VALUE] = ""
FLAGS = (BREAK, CONTINUE, RETURN)

_UNSUPPORTED_STATEMENTS = {
    "Try": ("try/except is not supported", "move the try/except outside the differentiated function"),
    "TryStar": ("try/except* is not supported", "move it outside the differentiated function"),
    "AsyncWith": ("async with is not supported", "differentiate a plain def"),
    "AsyncFor": ("async for is not supported", "differentiate a plain def"),
    "AsyncFunctionDef": ("async def is not supported", "differentiate a plain def"),
    "Global": ("global statements are not supported",
               "return the new value instead of rebinding a global"),
    "Nonlocal": ("nonlocal statements are not supported",
                 "return the new value instead of rebinding an enclosing variable"),
    "ClassDef": ("a class defined inside a differentiated function is not supported",
                 "define the class at module level"),
    "Match": ("match statements are not supported", "use if/elif/else"),
}


_OPERATOR_TEXT = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.BitOr: "|", gast.BitAnd: "&"}


class StmtLowering:
    """Mixin of the Lowerer: statements, blocks and control flow."""

    # -- statement lists with early-exit guards ------------------------------
    def stmts(self, stmts) -> None:
        for index, stmt in enumerate(stmts):
            self.stmt(stmt)
            rest = stmts[index + 1:]
            live = self.live_flags()
            if rest and live:
                guard = self.any_flag(live, stmt)
                self.if_stmt(guard, lambda: None,
                             lambda live=live, rest=rest, stmt=stmt: self.guarded_rest(live, rest, stmt),
                             stmt)
                return

    def guarded_rest(self, live, rest, node) -> None:
        """Lower the statements after an early exit; here no flag is set yet."""
        for flag in FLAGS:
            if self.env.get(flag) in live:
                self.env[flag] = self.const(False, node)
        self.stmts(rest)

    def live_flags(self) -> list[Value]:
        """Flags that may be set now (not the constant False)."""
        live = []
        for flag in FLAGS:
            value = self.env.get(flag)
            if value is not None and self.constant_of(value, True) is not False:
                live.append(value)
        return live

    def any_flag(self, flags, node) -> Value:
        combined = flags[0]
        for flag in flags[1:]:
            combined = self.call_static(builtins_or, (combined, flag), node)
        return combined

    def stmt(self, node) -> None:
        kind = type(node).__name__
        if kind in _UNSUPPORTED_STATEMENTS:
            message, hint = _UNSUPPORTED_STATEMENTS[kind]
            raise self.unsupported(node, message, hint)
        method = getattr(self, "stmt_" + kind, None)
        if method is None:
            raise self.unsupported(node, f"{kind} statements are not supported",
                                   "rewrite it with assignments, if, for and while")
        method(node)

    # -- simple statements ------------------------------------------------
    def stmt_Expr(self, node):
        if isinstance(node.value, gast.Constant):  # docstrings and bare constants
            return
        self.expr_or_function(node.value)

    def stmt_Pass(self, node):
        pass

    # -- imports: bound when the function is compiled ------------------------
    # An import inside a function binds a local name to a module, or to what a module
    # holds, each time it runs; the module is imported once per process (sys.modules),
    # so importing it when the function is compiled (its first call) binds the same
    # objects, which are then static like a module-level import's.
    def stmt_Import(self, node):
        for alias in node.names:
            module = self._imported(node, alias.name)
            if alias.asname:
                self.bind_static(alias.asname, module, module.__name__, node)
            else:
                top = alias.name.split(".")[0]
                self.bind_static(top, self._imported(node, top), top, node)

    def stmt_ImportFrom(self, node):
        package = getattr(self.pyfn, "__globals__", {}).get("__package__")
        name = "." * (node.level or 0) + (node.module or "")
        module = self._imported(node, name, package)
        for alias in node.names:
            if alias.name == "*":
                raise self.unsupported(node, "from ... import * inside a function",
                                       "import the names one by one")
            try:
                obj = getattr(module, alias.name)
            except AttributeError:  # a submodule not imported yet
                obj = self._imported(node, f"{module.__name__}.{alias.name}")
            expr = obj.__name__ if isinstance(obj, types.ModuleType) else \
                f"{module.__name__}.{alias.name}"
            self.bind_static(alias.asname or alias.name, obj, expr, node)

    def _imported(self, node, name: str, package=None):
        try:
            return importlib.import_module(name, package)
        except ImportError as err:
            raise self.unsupported(node, f"the import failed when the function was compiled "
                                   f"({err})", "install the module, or import it at the top "
                                   "of the module under a guard") from None

    def bind_static(self, name: str, obj, expr: str, node) -> None:
        self.assign(gast.Name(name, gast.Store(), None, None), self.static(obj, expr, node), node)

    def stmt_Assign(self, node):
        value = self.expr_or_function(node.value)
        if not isinstance(value, Value) and all(isinstance(t, gast.Name) for t in node.targets):
            for target in node.targets:  # f = lambda ...: a nested function under a name
                self.env[target.id] = value
            return
        value = self.expr(node.value) if not isinstance(value, Value) else value
        for target in node.targets:
            self.assign(target, value, node)

    def stmt_AnnAssign(self, node):
        if node.value is not None:
            self.assign(node.target, self.expr(node.value), node)

    def stmt_AugAssign(self, node):
        from .lower_expr import BINOPS

        fn = BINOPS[type(node.op)]
        target = node.target
        if isinstance(target, gast.Name):
            kind = self.kind_of(self.env.get(target.id)) if target.id in self.local_names else None
            if kind is not None:  # a list or dict made here: updated in place, as in Python
                self.container_augassign(target.id, kind, node)
                return
            if target.id in self.local_names:
                self.augmented_name(target.id, fn, node.value, node)  # in place for an ndarray
                return
            current = self.expr(gast.Name(target.id, gast.Load(), None, None))
            value = self.call_static(fn, (current, self.expr(node.value)), node)
            self.assign(target, value, node)
        elif isinstance(target, gast.Subscript):
            self.subscript_store(target, node, augment=(fn, node.value))
        else:
            self.attribute_augassign(target, fn, node.value, node)  # lower_objects.py

    def container_augassign(self, name: str, kind: str, node) -> None:
        """`p += items` on a list this function made is Python's p.extend(items) (the same
        list, which every holder sees), and `d |= other` on a dict is d.update(other)."""
        method = {("list", gast.Add): "extend", ("dict", gast.BitOr): "update"}.get(
            (kind, type(node.op)))
        if method is None:
            raise self.mutation_error(
                node, f"this augmented assignment would update the {kind} {name!r} in place",
                f"write `{name} = {name} {_OPERATOR_TEXT.get(type(node.op), 'op')} ...` to make a "
                f"new {kind}")
        rhs = node.value
        radd_may_win = False
        if method == "extend":
            # Python's `p += v` tries v's own __radd__ before list.extend (a list has no
            # __iadd__ slot of the number kind): `p += np.array([1.0])` makes p an ndarray
            # p + v, the list unchanged.  Decided while running unless v is surely a list
            # or tuple (a literal, a list made here, list(...), tuple(...), sorted(...)).
            value = self.expr(rhs)
            radd_may_win = not self.surely_a_sequence(value)
            self.env["_zp_rhs"] = value
            saved_locals = self.local_names
            self.local_names = self.local_names | {"_zp_rhs", "_zp_radd_first"}
            rhs = gast.Name("_zp_rhs", gast.Load(), None, None)
        call = gast.Call(func=gast.Attribute(value=gast.Name(name, gast.Load(), None, None),
                                             attr=method, ctx=gast.Load()),
                         args=[rhs], keywords=[])
        statement = gast.Expr(value=call)
        synthetic = [statement, call, call.func, call.func.value, rhs]
        if radd_may_win:
            self.env["_zp_radd_first"] = self.static(forms.radd_first, "radd_first", node)
            test = gast.Call(func=gast.Name("_zp_radd_first", gast.Load(), None, None),
                             args=[gast.Name("_zp_rhs", gast.Load(), None, None)], keywords=[])
            plus = gast.Assign(targets=[gast.Name(name, gast.Store(), None, None)],
                               value=gast.BinOp(gast.Name(name, gast.Load(), None, None), gast.Add(),
                                                gast.Name("_zp_rhs", gast.Load(), None, None)),
                               type_comment=None)
            statement = gast.If(test=test, body=[plus], orelse=[statement])
            synthetic += [statement, test, test.func, *test.args, plus, plus.targets[0], plus.value,
                          plus.value.left, plus.value.right]
        for part in synthetic:
            ast.copy_location(part, node)
        self.stmts([statement])
        self.env.pop("_zp_rhs", None)
        self.env.pop("_zp_radd_first", None)
        if method == "extend":
            self.local_names = saved_locals

    def stmt_With(self, node):
        """`with zp.no_grad():`, the one `with` a differentiated function may hold: its body
        is lowered with every computed value untracked (lower.py: Lowerer.untracked)."""
        hint = ("move the with block outside the differentiated function; only "
                "`with zp.no_grad():` is supported inside one")
        if len(node.items) != 1:
            raise self.unsupported(node, "a with statement of several context managers is not "
                                   "supported", hint)
        item = node.items[0]
        context = item.context_expr
        if not isinstance(context, gast.Call) or context.args or context.keywords:
            callee = self.static_object(context)
            if callee is no_grad:
                raise self.unsupported(node, "`with zp.no_grad:` needs the call: `with zp.no_grad():`",
                                       "write `with zp.no_grad():`")
            raise self.unsupported(node, "with blocks are not supported", hint)
        if self.static_object(context.func) is not no_grad:
            raise self.unsupported(node, "with blocks are not supported", hint)
        if item.optional_vars is not None:
            raise self.unsupported(node, "`with zp.no_grad() as name:` binds nothing useful",
                                   "write `with zp.no_grad():`")
        self.untracked_depth += 1
        try:
            self.stmts(node.body)
        finally:
            self.untracked_depth -= 1

    def static_object(self, node):
        """The object a name or attribute chain resolves to when the function is transformed
        (a module, class or function), or None where it is data read while running."""
        if not isinstance(node, (gast.Name, gast.Attribute)):
            return None
        value = self.expr_or_function(node)
        if not isinstance(value, Value):
            return None
        op = value.defining_op
        if op is not None and op.opcode == "const" and op.attrs.get("static"):
            return op.attrs["value"]
        return None

    def stmt_Assert(self, node):
        test = self.expr(node.test)
        operands = [test] + ([self.expr(node.msg)] if node.msg is not None else [])
        self.emit("assert", operands, nresults=0, node=node)

    def stmt_Raise(self, node):
        if node.exc is None:
            raise self.unsupported(node, "a bare raise is not supported", "raise an exception object")
        self.emit("raise", [self.expr(node.exc)], nresults=0, node=node)

    def stmt_FunctionDef(self, node):
        if not node.decorator_list:
            self.env[node.name] = self.make_local_function(node, node.name)  # inlined where called
            return
        # decorated: the decorators (evaluated first, top to bottom) are applied, bottom one
        # first, to a real function made here; what they return is called at run time
        decorators = [self.expr(d) for d in node.decorator_list]
        value = self.closure_value(self.make_local_function(node, node.name), node)
        for decorator in reversed(decorators):
            value = self.emit("callv", [decorator, value], attrs={"kw": (), "star": ()}, node=node).result
        self.env[node.name] = value

    # -- return, break, continue ------------------------------------------
    def stmt_Return(self, node):
        value = self.expr(node.value) if node.value is not None else self.const(None, node)
        self.env[RETURN] = self.const(True, node)
        self.env[RETVAL] = value

    def stmt_Break(self, node):
        self.env[BREAK] = self.const(True, node)

    def stmt_Continue(self, node):
        self.env[CONTINUE] = self.const(True, node)

    # -- if ---------------------------------------------------------------
    def stmt_If(self, node):
        cond = self.expr(node.test)
        self.if_stmt(cond, lambda: self.stmts(node.body), lambda: self.stmts(node.orelse), node)

    def if_stmt(self, cond, then_fn, else_fn, node) -> None:
        before = dict(self.env)
        stale_before = self.stale
        branches, stales = [], []
        for fn in (then_fn, else_fn):
            block = Block()
            self.env = dict(before)
            self.stale = dict(stale_before)
            with self.at(block):
                fn()
                branches.append((block, self.env))
            stales.append(self.stale)
        self.merge_branches(cond, before, branches, stales, node)

    def merge_branches(self, cond, before: dict, branches: list, stales: list, node):
        """The `if` op of two lowered branches (block, env at its end), yielding every name
        either branch bound anew; the environment continues with its results."""
        names = []
        for _, env in branches:
            for name, value in env.items():
                if value is not before.get(name) and name not in names:
                    names.append(name)
        yields = []
        self.unmerged = {}
        for block, env in branches:
            with self.at(block):
                values = [self.value_or_undef(env.get(name), name, node) for name in names]
                self.emit("yield", values, nresults=0, node=node)
            yields.append(values)
        unmerged = self.unmerged
        op = self.emit("if", [cond], len(names), regions=[b for b, _ in branches], node=node,
                       hints=[_hint(n) for n in names])
        for values in yields:
            self.alias_carried(values, op.results)
        self.merge_stale(stales, yields, op.results)
        self.env = before
        for index, (name, result) in enumerate(zip(names, op.results)):
            self.env[name] = result
        self.mark_unmerged(unmerged)
        for index, (name, result) in enumerate(zip(names, op.results)):
            if name in unmerged:
                continue
            if all(values[index].id in self.fresh for values in yields):
                self.fresh.add(result.id)
                kinds = {self.kinds.get(values[index].id) for values in yields}
                if len(kinds) == 1:
                    self.carry_kinds((yields[0][index],), (result,))

    def track_carried(self, inits, args, results) -> None:
        """A container created here stays so around a loop; modifying it inside the
        loop consumes the value it had before, as far as other names are concerned."""
        self.alias_carried(inits, args)
        self.alias_carried(inits, results)
        for init, arg, result in zip(inits, args, results):
            if init.id in self.iterated:  # the loop's body sees the container being iterated
                self.iterated.add(arg.id)
                if init.id in self.iterated_by_value:
                    self.iterated_by_value.add(arg.id)
                if init.id in self.iterated_if_dict:
                    self.iterated_if_dict.add(arg.id)
            if init.id in self.read_lazily:  # an iterator made before the loop still reads it
                self.read_lazily.setdefault(arg.id, self.read_lazily[init.id])
                self.read_lazily.setdefault(result.id, self.read_lazily[init.id])
            if init.id in self.fresh:
                self.fresh.update((arg.id, result.id))
                self.carry_kinds((init, init), (arg, result))
            if arg.id in self.consumed:
                self.consumed.add(init.id)

    def value_or_undef(self, value, name, node):
        if value is None:
            if name in FLAGS:  # an early-exit flag not set on this path is simply False
                return self.const(False, node)
            if name == RETVAL:
                return self.const(None, node)
            return self.emit("undef", (), node=node, hint=_hint(name)).result
        if isinstance(value, Unmergeable):
            self.unmerged[name] = value
            return self.emit("undef", (), node=node, hint=_hint(name)).result
        if not isinstance(value, Value):
            # a nested function defined on some paths (in a branch, after an early return,
            # in a loop): from here on it is a value, a closure over what it reads now
            try:
                return self.closure_value(value, node)
            except UnsupportedSyntax as refusal:  # refused only if it is used after the merge
                self.unmerged[name] = Unmergeable(name, refusal)
                return self.emit("undef", (), node=node, hint=_hint(name)).result
        return value

    def mark_unmerged(self, unmerged: dict) -> None:
        """Names whose nested function could not be merged: reading them raises."""
        for name, marker in unmerged.items():
            self.env[name] = marker

    def if_value(self, cond, then_fn, else_fn, node) -> Value:
        """An expression-level conditional: the value of whichever side runs.  A side that
        binds names anew (`(y := f(x)) if c else 0.0`, a call that writes into an argument's
        array, which rebinds its names) is merged as an `if` statement is: those names leave
        the op as its results, unbound where the other side did not bind them."""
        before, stale_before = dict(self.env), self.stale
        blocks, values, branches, stales = [], [], [], []
        for fn in (then_fn, else_fn):
            block = Block()
            self.env, self.stale = dict(before), dict(stale_before)
            with self.at(block):
                value = fn()
            blocks.append(block)
            values.append(value)
            branches.append((block, {**self.env, VALUE: value}))
            stales.append(self.stale)
        if all(all(env.get(n) is v for n, v in before.items()) and env.keys() - {VALUE} <= before.keys()
               for _, env in branches) and all(st == stale_before for st in stales):
            self.env, self.stale = before, stale_before
            for block, value in zip(blocks, values):
                with self.at(block):
                    self.emit("yield", [value], nresults=0, node=node)
            return self.emit("if", [cond], 1, regions=blocks, node=node).result
        self.env = before
        self.merge_branches(cond, before, branches, stales, node)
        return self.env.pop(VALUE)

    # -- loops ------------------------------------------------------------
    def loop_carried(self, body_stmts) -> list[str]:
        names = [n for n, v in self.env.items() if isinstance(v, Value) and n not in (BREAK, CONTINUE)]
        for name in bound_names(body_stmts, include_updates=True):
            if name not in names and name in self.local_names:
                names.append(name)
        return names

    def stmt_For(self, node):
        fused = self.fused_for(node)  # over map, filter or a generator: lower_iterators.py
        if fused is not None:
            return self.lower_fused_for(fused)
        kind, iterables, ntargets = self.for_iteration(node.iter)
        added, added_by_value = self.start_iterating(iterables)
        has_break, saved_flags, carried, inits = self.enter_loop(node)
        unmerged = self.unmerged  # from the initial values (enter_loop)
        body = Block()
        targets = [body.add_arg() for _ in range(ntargets)]
        args = [body.add_arg(_hint(n)) for n in carried]
        self.track_carried(inits, args, args)
        for target in targets:  # an array's rows are views of it
            for iterable in iterables:
                self.alias_union(target, iterable)
        self.loop_targets.update(t.id for t in targets)  # writing a row is not writing ahead
        stale_before, stale_entry = self.enter_loop_stale(inits, [args])
        before = dict(self.env)
        self.env.update(zip(carried, args))
        self.mark_unmerged(unmerged)
        with self.at(body):
            if kind in ("range", "iter", "reversed"):
                self.assign(node.target, targets[0], node)
            else:  # zip and enumerate bind a tuple of targets
                packed = self.emit("tuple", targets, node=node).result
                self.assign(node.target, packed, node)
            for t in targets:
                if not t.hint and t.owner is body:
                    t.hint = _first_name(node.target)
            self.stmts(node.body)
            self.unmerged = dict(unmerged)
            self.emit("yield", [self.value_or_undef(self.env.get(n), n, node) for n in carried],
                      nresults=0, node=node)
            unmerged = self.unmerged
        exit_slots = tuple(i for i, n in enumerate(carried) if n in (BREAK, RETURN))
        op = self.emit("for", [*iterables, *inits], len(carried), regions=[body], node=node,
                       attrs={"kind": kind, "exit": exit_slots, "ntargets": ntargets},
                       hints=[_hint(n) for n in carried])
        self.track_carried(inits, args, op.results)
        yielded = body.ops[-1].operands
        self.alias_carried(yielded, args)
        self.alias_carried(args, op.results)
        self.leave_loop_stale(stale_before, stale_entry, carried, [args], yielded, [body], inits,
                              op.results, node)
        self.iterated.difference_update(added | {a.id for a in args})
        self.iterated_by_value.difference_update(added_by_value | {a.id for a in args})
        self.iterated_if_dict.difference_update(added | {a.id for a in args})
        self.env = before
        self.env.update(zip(carried, op.results))
        self.mark_unmerged(unmerged)
        self.finish_loop(node, has_break, saved_flags)

    def enter_loop(self, node):
        """Set up a loop's flags and carried variables.

        Returns (has_break, the enclosing loop's flags to restore, the names
        carried around the loop, their initial values)."""
        has_break = _contains(node.body, gast.Break)
        has_return = _contains(node.body, gast.Return)
        saved_flags = {f: self.env.get(f) for f in (BREAK, CONTINUE)}
        self.env.pop(CONTINUE, None)
        if has_break:
            self.env[BREAK] = self.const(False, node)
        else:
            self.env.pop(BREAK, None)
        if has_return:
            self.env.setdefault(RETURN, self.const(False, node))
            self.env.setdefault(RETVAL, self.const(None, node))
        carried = self.loop_carried(node.body)
        if has_break:
            carried.append(BREAK)
        self.unmerged = {}
        inits = [self.value_or_undef(self.env.get(n), n, node) for n in carried]
        return has_break, saved_flags, carried, inits

    def finish_loop(self, node, has_break, saved_flags) -> None:
        if node.orelse:
            if has_break:
                self.if_stmt(self.env[BREAK], lambda: None, lambda: self.stmts(node.orelse), node)
            else:
                self.stmts(node.orelse)
        for flag, value in saved_flags.items():
            if value is None:
                self.env.pop(flag, None)
            else:
                self.env[flag] = value

    def stmt_While(self, node):
        has_break, saved_flags, carried, inits = self.enter_loop(node)
        unmerged = self.unmerged  # from the initial values (enter_loop)
        self.mark_unmerged(unmerged)
        before = dict(self.env)
        cond_block, body = Block([_hint(n) for n in carried]), Block([_hint(n) for n in carried])
        self.track_carried(inits, cond_block.args, cond_block.args)
        self.track_carried(inits, body.args, body.args)
        stale_before, stale_entry = self.enter_loop_stale(inits, [cond_block.args, body.args])
        self.env = dict(before)
        self.env.update(zip(carried, cond_block.args))
        with self.at(cond_block):
            exits = [self.env[f] for f in (BREAK, RETURN) if f in carried]
            if exits:
                stop = self.any_flag(exits, node)
                test = self.if_value(stop, lambda: self.const(False, node),
                                     lambda: self.expr(node.test), node)
            else:
                test = self.expr(node.test)
            self.emit("yield", [test], nresults=0, node=node)
        self.env = dict(before)
        self.env.update(zip(carried, body.args))
        with self.at(body):
            self.stmts(node.body)
            self.unmerged = dict(unmerged)
            self.emit("yield", [self.value_or_undef(self.env.get(n), n, node) for n in carried],
                      nresults=0, node=node)
            unmerged = self.unmerged
        op = self.emit("while", inits, len(carried), regions=[cond_block, body], node=node,
                       hints=[_hint(n) for n in carried])
        self.track_carried(inits, body.args, op.results)
        yielded = body.ops[-1].operands
        for args in (cond_block.args, body.args, op.results):
            self.alias_carried(yielded, args)
        self.leave_loop_stale(stale_before, stale_entry, carried, [cond_block.args, body.args],
                              yielded, [cond_block, body], inits, op.results, node)
        self.env = before
        self.env.update(zip(carried, op.results))
        self.mark_unmerged(unmerged)
        self.finish_loop(node, has_break, saved_flags)


def _hint(name: str) -> str:
    if name.startswith(WRITTEN_SLOT):  # a threaded argument's array (lower_writes.py)
        return name[len(WRITTEN_SLOT):-1]
    return _FLAG_HINTS.get(name, name)


def _first_name(target) -> str:
    if isinstance(target, gast.Name):
        return target.id
    return ""


def _contains(stmts, kind) -> bool:
    """Whether `kind` (Break/Continue/Return) occurs in stmts at this loop level."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, kind):
            return True
        if isinstance(node, (gast.FunctionDef, gast.Lambda, gast.ClassDef)):
            continue
        if kind is not gast.Return and isinstance(node, (gast.For, gast.While)):
            stack.extend(node.orelse)  # a break in the inner body belongs to the inner loop
            continue
        stack.extend(gast.iter_child_nodes(node))
    return False
