"""The Lowerer: a Python function's gast tree -> an SSA `Function`.

It holds the environment (variable name -> current SSA value), emits ops into
the current block, and implements what expressions and statements share:
assignment and unpacking, container updates, nested functions (inlined at
their call sites with the caller's current values for their free names) and
comprehensions (loops that build a fresh list or dict).  Expression and
statement lowering live in the two mixins.
"""

from __future__ import annotations

import builtins
import operator

import gast

from ..errors import MutationError, SourceLoc, UnsupportedSyntax
from ..ir.builder import IRBuilder
from ..ir.core import Block, Function, Value
from .late_binding import RebindingIndex
from .lower_containers import ClaimLowering, ContainerLowering
from .lower_expr import _MISSING, ExprLowering, LocalFunction
from .lower_iterators import IteratorLowering
from .lower_objects import ObjectLowering
from .lower_stmt import RETURN, RETVAL, StmtLowering
from .item_effects import first_effect
from .result_aliases import ResultAliasLowering
from .lower_writes import WriteLowering, written_slot
from .scope import Signature, comprehension_walrus_targets, function_locals, signature_of
from .source import find_function_node, loc_of
from ..rules.untracked import untracked

# ops that compute a value (not only move one): inside `with zp.no_grad():` their results
# carry no derivative
_COMPUTING = frozenset(("call", "callv", "method", "getattr"))


_LITERALS = frozenset({"list", "tuple", "dict"})
# ops after which their operands (a literal's all, an update's added items, a nested function
# value's captured variables) may be held by something else: a list or dict made here is not
# updated under its name afterwards (a closure made before `xs.extend(...)` captured xs
# and would read the extended list when called later, as Python's does)
_HOLDING_OPS = _LITERALS | {"append", "extend", "setitem", "insert", "closure"}
_WHOLLY_HELD = _LITERALS | {"closure"}


class Lowerer(WriteLowering, ResultAliasLowering, ExprLowering, StmtLowering, ContainerLowering,
              ClaimLowering, IteratorLowering, ObjectLowering):
    def __init__(self, pyfn, filename: str, node, parent: Lowerer | None = None):
        self.pyfn = pyfn
        self.filename = filename
        self.node = node
        self.parent = parent
        self.local_names = function_locals(node)
        self.env: dict = {}
        self.builder = IRBuilder(parent.block if parent else None)  # where ops go
        self.guards: list = parent.guards if parent else []
        self.consumed: set[int] = parent.consumed if parent else set()
        self.fresh: set[int] = parent.fresh if parent else set()  # containers created here
        self.kinds: dict[int, str] = parent.kinds if parent else {}  # their kinds: 'list' or 'dict'
        self.iterated: set[int] = parent.iterated if parent else set()  # iterated by a loop now
        # ... by a loop that reads more than a dict's keys (values, items, rows, list items)
        self.iterated_by_value: set[int] = parent.iterated_by_value if parent else set()
        # arguments a loop iterates directly (`for k in p`): a dict's keys, if p is one
        self.iterated_if_dict: set[int] = parent.iterated_if_dict if parent else set()
        # container value id -> the variable holding an iterator or view that reads it lazily
        self.read_lazily: dict[int, str] = parent.read_lazily if parent else {}
        self.loop_targets: set[int] = parent.loop_targets if parent else set()  # for targets
        self.iterated_attributes: list = parent.iterated_attributes if parent else []
        # containers made here that an object may hold now (lower_objects.py)
        self.escaped: set[int] = parent.escaped if parent else set()
        self.inlining: list = parent.inlining if parent else []
        self.root_block: Block | None = parent.root_block if parent else None
        self.cells: dict[str, Value] = parent.cells if parent else {}
        # global or captured lists and dicts the function claimed (lower_containers.py)
        self.claims: dict[str, Value] = parent.claims if parent else {}
        self.claim_kinds: dict[str, str] = parent.claim_kinds if parent else {}
        self.claimed_globals: set[str] = parent.claimed_globals if parent else set()
        # inside `with zp.no_grad():` (lower_stmt.py: stmt_With): computed values are untracked
        self.untracked_depth: int = parent.untracked_depth if parent else 0

        # may-alias classes of values and the names a write left stale (lower_writes.py)
        self.alias_parent: dict[int, int] = parent.alias_parent if parent else {}
        self.alias_info: dict = parent.alias_info if parent else {}
        self.stale: dict[int, tuple] = parent.stale if parent else {}
        self.open_blocks: list = parent.open_blocks if parent else []
        self.maybe_unbound: set[int] = parent.maybe_unbound if parent else set()
        self.made_at: dict[int, int] = parent.made_at if parent else {}  # value -> writes before it
        self.writes_done = 0  # (counted on the root lowerer)
        self.entry_block: Block | None = None  # where an inlined function's body starts
        self.param_writes: list = []  # (loc, parameter indices) of writes into arguments
        self.param_writes_in_place: list = []  # ... of `y op= v` where y may be an argument
        # fn -> the indices of the parameters fn writes into (the compiler's answer; None: no
        # function called here is asked, lower_writes.py: argument_writing_call)
        self.argument_writes = parent.argument_writes if parent else None
        # fn -> what fn's result may share memory with (its summary, result_aliases.py;
        # None: no function called here is asked)
        self.result_aliases = parent.result_aliases if parent else None
        # fn -> whether calling fn may have an effect (the compiler's answer from fn's
        # meta["effects"]; None: every function is taken to have one, item_effects.py)
        self.function_effects = parent.function_effects if parent else None
        self.array_methods: list = []  # ndarray-named method calls (on the root lowerer)

        self._rebinding: RebindingIndex | None = None
        self.unmerged: dict = {}  # names whose nested function failed to merge (lower_stmt.py)

    def _static_object_or_none(self, node):
        try:
            return self.static_object(node)
        except Exception:  # noqa: BLE001 - not statically known: no exemption
            return None

    def rebinding_index(self) -> RebindingIndex:
        """Where the names of the function being lowered are assigned (built once)."""
        if self._rebinding is None:
            self._rebinding = RebindingIndex(self.node, self._static_object_or_none)
        return self._rebinding

    def read_cell(self, name: str, node) -> Value:
        """A closure cell's value, read once at function entry (cells are not rebound:
        nonlocal is refused), so that its cotangent adds up across loop iterations."""
        value = self.cells.get(name)
        if value is None:
            with self.builder.at(self.root_block, 0):
                op = self.emit("cell", (), attrs={"name": name}, node=node, hint=name)
            value = self.cells[name] = op.result
        return value

    # -- emitting ---------------------------------------------------------
    def loc(self, node) -> SourceLoc | None:
        if node is None or getattr(node, "lineno", None) is None:
            return None
        return loc_of(self.filename, node)

    @property
    def block(self) -> Block | None:
        return self.builder.block

    @block.setter
    def block(self, block: Block | None) -> None:
        self.builder.block = block

    def const(self, value, node=None) -> Value:
        return self.emit("const", (), attrs={"value": value}, node=node).result

    def static(self, obj, expr: str, node) -> Value:
        return self.emit("const", (), attrs={"value": obj, "expr": expr, "static": True}, node=node).result

    def constant_of(self, value, default=None):
        """The Python constant a value is known to hold, or default."""
        op = value.defining_op if isinstance(value, Value) else None
        if op is not None and op.opcode == "const":
            return op.attrs["value"]
        return default

    def call_static(self, fn, operands, node) -> Value:
        expr = getattr(fn, "__name__", None)
        return self.emit("call", list(operands), attrs={"fn": fn, "expr": expr, "kw": (), "star": ()},
                         node=node).result

    def resolves_to(self, name: str, obj) -> bool:
        if self.parent is not None:
            return self.parent.resolves_to(name, obj) if name not in self.parent.local_names else False
        return self.pyfn.__globals__.get(name, _MISSING) in (_MISSING, obj) and \
            name not in self.pyfn.__code__.co_freevars

    # -- errors -----------------------------------------------------------
    def unsupported(self, node, message, hint) -> UnsupportedSyntax:
        return UnsupportedSyntax(message, self.loc(node), hint)

    def mutation_error(self, node, message, hint) -> MutationError:
        return MutationError(message, self.loc(node), hint)

    # -- assignment -------------------------------------------------------
    def assign(self, target, value, node) -> None:
        if isinstance(target, gast.Name):
            if not value.hint:  # a temporary becomes the user's variable (an alias keeps its first name)
                value.hint = target.id
            self.env[target.id] = value
            for source in self.lazily_read_sources(value):  # lower_containers.py
                self.read_lazily.setdefault(source, target.id)
        elif isinstance(target, (gast.Tuple, gast.List)):
            elts = target.elts
            star = [i for i, e in enumerate(elts) if isinstance(e, gast.Starred)]
            op = self.emit("unpack", [value], nresults=len(elts), node=node,
                           attrs={"n": len(elts), "star": star[0] if star else None})
            for elt, part in zip(elts, op.results):
                inner = elt.value if isinstance(elt, gast.Starred) else elt
                if isinstance(inner, gast.Name):
                    part.hint = inner.id
                self.assign(inner, part, node)
        elif isinstance(target, gast.Subscript):
            self.subscript_store(target, node, value=value)
        elif isinstance(target, gast.Attribute):
            self.attribute_store(target, value, node)  # lower_objects.py
        else:
            raise self.unsupported(node, f"cannot assign to {type(target).__name__}",
                                   "assign to a name or a tuple of names")

    def subscript_store(self, target, node, value=None, augment=None) -> None:
        base_node = target.value
        if isinstance(base_node, gast.Name) and base_node.id in self.local_names:
            current = self.env.get(base_node.id)
            if self.kind_of(current) == "list":
                self.list_store(base_node.id, current, self.expr(target.slice), value, node, augment)
                return
            if self.kind_of(current) == "dict" or (isinstance(current, Value) and current.id in self.fresh
                                                      and self.is_dict(current)):
                key = self.expr(target.slice)
                if self.only_keys_iterated(current):  # `for k in d: d[k] = ...`
                    self.guard_existing_key(current, key, node)
                else:
                    self.refuse_update_while_iterated(current, base_node.id, node)
                if augment is not None:
                    fn, rhs = augment
                    old = self.call_static(operator.getitem, (current, key), node)
                    value = self.augmented_item(base_node.id, old, fn, rhs, node)
                    current = self.env[base_node.id]  # written back if it holds it elsewhere
                new = self.emit("setitem", [current, key, value], node=node, hint=base_node.id).result
                self.consumed.add(current.id)
                self.fresh.add(new.id)
                self.env[base_node.id] = new
                return
            if isinstance(current, Value):  # an array (or refused while running: a list argument)
                self.array_store(base_node.id, current, target, node, value, augment)
                return
        if isinstance(base_node, gast.Name) and self.parent is not None and \
                base_node.id in self.parent.local_names and self.block is self.entry_block:
            # an inlined function writes into an array of the function it is inlined into,
            # not inside a branch or loop of its own: the caller's name sees the write
            current = self.expr(gast.Name(base_node.id, gast.Load(), None, None))
            if isinstance(current, Value) and self.parent.kind_of(current) is None:
                self.array_store(base_node.id, current, target, node, value, augment)
                return
        root = base_node
        while isinstance(root, gast.Subscript):
            root = root.value
        if isinstance(base_node, gast.Subscript) and isinstance(root, gast.Name) and \
                root.id in self.local_names and isinstance(self.env.get(root.id), Value):
            self.item_of_item_store(base_node, target, node, value, augment)
            return
        what = "item assignment" if augment is None else "augmented item assignment"
        if isinstance(base_node, gast.Name):
            raise self.mutation_error(
                node, f"{what} writes into {base_node.id!r}, which is not a variable of this "
                "function (a global, a closure variable or a variable of an enclosing function)",
                f"write into a copy made here ({base_node.id} = {base_node.id}.copy()), or "
                "return the values and write them where the array is created")
        if self.outside_item_update(target, node, value, augment):  # lower_containers.py
            return  # an attribute's list or dict (anything else refused while running)
        raise self.mutation_error(
            node, f"{what} writes into an object reached through an expression",
            "name the array first (a = obj.a; a[i] = v) when obj was built in this call, or "
            "write into a copy and store it back (a = obj.a.copy(); a[i] = v; obj.a = a), "
            "or build the result functionally "
            "(np.where, np.concatenate)")

    def item_of_item_store(self, base_node, target, node, value, augment) -> None:
        """`c[k][i] = v` (or `op=`) where c is a variable of this function: Python reads
        c[k] once and writes into that object, exactly as `a = c[k]; a[i] = v` does, so it
        is lowered so, under a name of its own that is gone after the statement.  The
        write's alias tracking sees that c holds the array (a list, tuple or dict holding
        it is written back; anything else holding it is refused when it runs)."""
        holder = self.expr(base_node)
        with self.written_name(base_node, holder) as name:  # lower_writes.py
            self.array_store(name, holder, target, node, value, augment)

    def is_dict(self, value: Value) -> bool:
        while value.defining_op is not None and value.defining_op.opcode == "setitem":
            value = value.defining_op.operands[0]
        op = value.defining_op
        return op is not None and (op.opcode == "dict" or
                                   (op.opcode == "call" and op.attrs["fn"] is builtins.dict))

    def container_update(self, name_node, method, base, operands, node) -> Value:
        name = name_node.id
        if name in self.local_names and base.id in self.escaped:
            raise self.mutation_error(
                node, f"{name}.{method}() modifies a list that something else may hold now (it "
                "was put in another list, tuple or dict, captured by a nested function or lambda, "
                "stored in an attribute, or passed to a function or class that may keep it), "
                "which would see the change",
                f"finish {name} before handing it over, or build a new list")
        if name not in self.local_names or base.id not in self.fresh:
            raise self.mutation_error(
                node, f"{name}.{method}() modifies a list this function did not create",
                "copy it first (xs = list(xs)), or build a new list")
        new = self.emit(method, [base, *operands], node=node, hint=name).result
        self.consumed.add(base.id)
        self.fresh.add(new.id)
        self.env[name] = new
        return self.const(None, node)

    def emit(self, opcode, operands=(), nresults=1, attrs=None, node=None, hint="", regions=(), hints=()):
        op = self.builder.emit(opcode, operands, nresults, attrs, regions,
                               hints=[hint] if hint else hints, loc=self.loc(node))
        self.note_kind(op)
        self.track_aliases(op)
        if opcode in _HOLDING_OPS:  # a list or dict made here, now also held by a container:
            # updating it later under its name is refused (the holder would not see it)
            for item in (operands if opcode in _WHOLLY_HELD else operands[1:]):
                self.escape(item)
        if opcode in ("list", "dict") or (opcode == "call" and op.results[0].id in self.kinds):
            self.fresh.add(op.result.id)
        if self.untracked_depth and opcode in _COMPUTING:
            return self.untracked(op, node)
        return op

    def untracked(self, op, node):
        """The op passing op's result through `untracked` (no derivative), standing in for
        op: inside `with zp.no_grad():` whatever is computed is a constant to the gradient.
        The container bookkeeping of op's result carries over to the untracked value."""
        inner = op.result
        wrapped = self.builder.emit("call", [inner], 1, {"fn": untracked, "expr": "_zp_untracked",
                                                         "kw": (), "star": ()}, (),
                                    hints=[inner.hint] if inner.hint else (), loc=self.loc(node))
        if inner.id in self.kinds:
            self.kinds[wrapped.result.id] = self.kinds[inner.id]
        if inner.id in self.fresh:
            self.fresh.add(wrapped.result.id)
        self.track_aliases(wrapped)  # the same object as op's result: one may-alias class
        if not (op.opcode == "call" and self._fresh_call(op)) and op.opcode not in ("const", "list", "dict"):
            self.alias_class(wrapped.result).untracked = wrapped.loc.line if wrapped.loc else "?"
        return wrapped

    # -- nested functions ---------------------------------------------------
    def make_local_function(self, node, name) -> LocalFunction:
        sig = signature_of(node)
        defaults = [self.expr(d) for d in sig.defaults]
        kw_defaults = {n: self.expr(d) for n, d in zip(sig.kwonly, sig.kw_defaults) if d is not None}
        return LocalFunction(node, defaults, kw_defaults, name)

    def inline_call(self, fn: LocalFunction, call) -> Value:
        if fn in self.inlining:
            raise self.unsupported(call, f"the nested function {fn.name!r} calls itself",
                                   "define recursive functions at module level")
        operands, star, kw = self.call_arguments(call)
        params = signature_of(fn.node)
        if star or None in kw or params.vararg or params.kwarg:
            # `f(*xs)`, `f(a, **opts)`, `def f(*args, **kw)`: how the arguments bind is only
            # known while running (or binds into a tuple or dict the function makes), so the
            # nested function is made a value and called as one (calls/dispatch.py)
            callee = self.closure_value(fn, call)
            self.escape_to_call(None, operands)
            return self.emit("callv", [callee, *operands], attrs={"kw": kw, "star": star},
                             node=call).result
        sig = signature_of(fn.node)
        bound = _bind(sig, fn, operands[:len(operands) - len(kw)], dict(zip(kw, operands[len(operands) - len(kw):])))
        if bound is None:
            raise self.unsupported(call, f"the call does not match the parameters of {fn.name!r}",
                                   "check the arguments")
        child = Lowerer(self.pyfn, self.filename, fn.node, parent=self)
        child.block = self.block
        child.entry_block = self.block  # (writes into our arrays: straight-line only)
        child.env = dict(bound)
        self.inlining.append(fn)
        try:
            if isinstance(fn.node, gast.Lambda):
                result = child.expr(fn.node.body)
            else:
                child.stmts(fn.node.body)
                result = child.finish_body(fn.node)
        finally:
            self.inlining.pop()
        self.block = child.block
        return result

    def finish_body(self, node) -> Value:
        """The function's return value, after its body was lowered."""
        if RETURN in self.env:
            return self.env[RETVAL]
        return self.const(None, node)

    # -- comprehensions -----------------------------------------------------
    def comprehension(self, node, kind) -> Value:
        saved = dict(self.env)
        walrus = comprehension_walrus_targets(node)  # `:=` binds in the enclosing scope
        inner_names = set()
        for gen in node.generators:
            inner_names.update(_target_names(gen.target))
        saved_locals = self.local_names
        self.local_names = self.local_names | inner_names | {"_zp_acc"}
        acc = self.emit(kind, (), node=node).result
        self.env["_zp_acc"] = acc

        def level(index):
            if index == len(node.generators):
                current = self.env["_zp_acc"]
                if kind == "dict":
                    new = self.emit("setitem", [current, self.expr(node.key), self.expr(node.value)],
                                    node=node).result
                else:
                    new = self.emit("append", [current, self.expr(node.elt)], node=node).result
                self.consumed.add(current.id)
                self.fresh.add(new.id)
                self.env["_zp_acc"] = new
                return
            gen = node.generators[index]
            if gen.is_async:
                raise self.unsupported(node, "async comprehensions are not supported", "use a loop")
            loop = gast.For(target=gen.target, iter=gen.iter, body=[], orelse=[], type_comment=None)
            gast.copy_location(loop, node)

            def body():
                conds = list(gen.ifs)

                def nest(k):
                    if k == len(conds):
                        level(index + 1)
                        return
                    test = self.expr(conds[k])
                    self.if_stmt(test, lambda: nest(k + 1), lambda: None, node)

                nest(0)

            self.loop_with_body(loop, body, walrus)

        level(0)
        result = self.env["_zp_acc"]
        # `:=` inside binds in the enclosing scope (PEP 572): its name outlives the loop
        kept = {name: self.env[name] for name in walrus if name in self.env}
        self.env = saved
        self.env.update(kept)
        self.local_names = saved_locals
        return result

    def loop_with_body(self, loop_node, body_fn, binds=()) -> None:
        """Lower a for loop whose body is produced by body_fn (for comprehensions); binds:
        names the body binds in the function's scope (`:=`), carried around the loop."""
        original = self.stmts
        marker = gast.Pass()
        gast.copy_location(marker, loop_node)
        # the statements after the marker are never lowered: they tell loop_carried
        # (bound_names of the body) which names the body produced by body_fn binds
        stand_ins = [gast.Assign(targets=[gast.Name(name, gast.Store(), None, None)],
                                 value=gast.Constant(None, None), type_comment=None)
                     for name in binds]
        loop_node.body = [marker, *stand_ins]
        loop_node._zp_comprehension = True  # its iterator is read to the end: never fused

        def stmts(stmts_list):
            if stmts_list and stmts_list[0] is marker:
                self.stmts = original
                try:
                    body_fn()
                finally:
                    self.stmts = stmts
                return
            original(stmts_list)

        self.stmts = stmts
        try:
            self.stmt_For(loop_node)
        finally:
            self.stmts = original


def _target_names(target) -> list[str]:
    if isinstance(target, gast.Name):
        return [target.id]
    if isinstance(target, (gast.Tuple, gast.List)):
        return [n for e in target.elts for n in _target_names(e)]
    if isinstance(target, gast.Starred):
        return _target_names(target.value)
    return []


def _bind(sig: Signature, fn: LocalFunction, args, kwargs) -> dict | None:
    """Bind call values to a nested function's parameters (None if they don't fit)."""
    out = {}
    positional = sig.positional
    if len(args) > len(positional) and not sig.vararg:
        return None
    for name, value in zip(positional, args):
        out[name] = value
    if sig.vararg:
        return None  # *args in nested functions: rare, refused by the caller's message
    first_default = len(positional) - len(fn.defaults)
    for i, name in enumerate(positional):
        if name in out:
            if name in kwargs:
                return None
            continue
        if name in kwargs:
            out[name] = kwargs.pop(name)
        elif i >= first_default:
            out[name] = fn.defaults[i - first_default]
        else:
            return None
    for name in sig.kwonly:
        if name in kwargs:
            out[name] = kwargs.pop(name)
        elif name in fn.kw_defaults:
            out[name] = fn.kw_defaults[name]
        else:
            return None
    if kwargs and not sig.kwarg:
        return None
    return out


def lower_function(pyfn, argument_writes=None, threads: tuple = (), result_aliases=None,
                   function_effects=None) -> Function:
    """Parse and lower a Python function to IR (no passes run).

    argument_writes(f) says which parameters a Python function f called here writes into
    (the compiler answers it; None: no call is treated as writing, docs/mutation.md).
    threads: the *threaded* variant of a function that writes into these parameters'
    arrays: it returns `(result, those arrays as the function leaves them...)`, the form
    a caller's pullback needs (runtime/writes.py: ArgumentWrites).
    result_aliases(f) says what the result of a Python function f called here may share
    memory with (its summary, frontend/result_aliases.py; None: unknown for every f).
    function_effects(f) says whether calling a Python function f may have an effect
    (frontend/item_effects.py; None: every f is taken to have one)."""
    node, filename = find_function_node(pyfn)
    if isinstance(node, gast.AsyncFunctionDef):
        raise UnsupportedSyntax("async def is not supported", loc_of(filename, node),
                                "differentiate a plain def")
    lowerer = Lowerer(pyfn, filename, node)
    body = Block()
    sig = signature_of(node)
    params = [body.add_arg(name) for name in sig.names]
    lowerer.block = body
    lowerer.root_block = body
    lowerer.open_blocks.append(body)
    lowerer.env = dict(zip(sig.names, params))
    lowerer.argument_writes = argument_writes
    lowerer.result_aliases = result_aliases
    lowerer.function_effects = function_effects
    for index, param in enumerate(params):
        lowerer.alias_class(param).params.add(index)
    if sig.kwarg:  # Python makes a new dict of the keyword arguments for every call: the
        # function's own, which it may update (namedtuple's `_replace` pops from it)
        kwargs = lowerer.env[sig.kwarg]
        lowerer.fresh.add(kwargs.id)
        lowerer.kinds[kwargs.id] = "dict"
    for index in threads:  # a name no code can bind: follows the argument's array through
        # every write (record_write rebinds it as it rebinds the user's names)
        lowerer.env[written_slot(sig.names[index])] = params[index]
    lowerer.claim_outside_names(node)  # LOG.append(v) on a global list (lower_containers.py)
    if isinstance(node, gast.Lambda):
        result = lowerer.expr(node.body)
    else:
        lowerer.stmts(node.body)
        result = lowerer.finish_body(node)
    summary = lowerer.summary_of_result(result)
    if summary is not None:
        lowerer.guard_array_methods(result)
    if threads:
        result = lowerer.threaded_result(result, [sig.names[i] for i in threads], node)
    lowerer.emit("return", [result], nresults=0, node=node)
    if lowerer.param_writes or lowerer.param_writes_in_place:
        lowerer.check_arguments_at_entry(params, node)
    # The parameters are the body block's arguments; the Function lists them too.
    name = getattr(pyfn, "__name__", "f")
    fn = Function(name if name != "<lambda>" else "lambda", params, body, loc_of(filename, node),
                  signature=sig)
    fn.meta["guards"] = lowerer.guards
    fn.meta["pyfn"] = pyfn
    fn.meta["filename"] = filename
    fn.meta["param_writes"] = lowerer.param_writes
    fn.meta["param_writes_in_place"] = lowerer.param_writes_in_place
    fn.meta["threads"] = tuple(threads)
    fn.meta["result_aliases"] = summary
    # whether a call of it may have an effect besides its result (frontend/item_effects.py)
    fn.meta["effects"] = first_effect(body.ops, lowerer.has_effects) is not None
    fn.meta["closed_classes"] = lowerer.closed_classes()  # (lower_writes.py)
    fn.meta["claimed_values"] = lowerer.claimed_values()  # (lower_containers.py)
    return fn
