"""Lowering of expressions (gast) to SSA ops.

Operators become calls of the `operator` module's functions, so that one rule
serves `a * b` and `operator.mul(a, b)`.  Reads of modules, functions and
classes from globals, closure cells and builtins are resolved *now* to
constants (recorded as guards the cache re-checks), so `np.sin(x)` is a call
of the known ufunc; every other global or cell read happens at run time.
`and`, `or` and the ternary become `if` ops, keeping Python's short-circuit
and value semantics.  Comprehensions become loops that build a fresh list.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import itertools
import operator
import types

import gast
import numpy as np

from ..ir.core import Value
from ..runtime import containers as forms
from ..runtime import iterators as _iterators
from ..runtime import outside_containers as _outside
from ..runtime.outside_containers import plain_value
from ..runtime.writes import immutable_value
from . import runtime_forms
from .lower_containers import defined_in_generated_code
from .scope import resolve_free, signature_of
from .source import share_inside

BINOPS = {
    gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
    gast.Div: operator.truediv, gast.FloorDiv: operator.floordiv, gast.Mod: operator.mod,
    gast.Pow: operator.pow, gast.MatMult: operator.matmul, gast.LShift: operator.lshift,
    gast.RShift: operator.rshift, gast.BitOr: operator.or_, gast.BitXor: operator.xor,
    gast.BitAnd: operator.and_,
}
UNARYOPS = {gast.USub: operator.neg, gast.UAdd: operator.pos, gast.Not: operator.not_,
            gast.Invert: operator.invert}
CMPOPS = {
    gast.Lt: operator.lt, gast.LtE: operator.le, gast.Gt: operator.gt, gast.GtE: operator.ge,
    gast.Eq: operator.eq, gast.NotEq: operator.ne, gast.Is: operator.is_,
    gast.IsNot: operator.is_not,
}

# Values of these kinds are code, not data: resolved when the function is transformed.
_STATIC_TYPES = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                 types.BuiltinMethodType, type, np.ufunc, types.MethodType, staticmethod,
                 classmethod, types.MethodDescriptorType, types.WrapperDescriptorType)


# module constants such as np.pi and np.newaxis are folded in like literals
_PLAIN_CONSTANTS = (int, float, complex, bool, str, bytes, type(None), type(Ellipsis))


def is_static(obj) -> bool:
    return isinstance(obj, _STATIC_TYPES) or (callable(obj) and hasattr(obj, "__wrapped__"))


def captures_values(fn, seen=None) -> bool:
    """Whether a function captures data (not only code and plain constants) in its
    closure, directly or through the functions it captures.  A cell holding such a
    function is read as a value and called at run time: the function may have been
    made while differentiating (a decorator's wrapper around a closure over an
    active value), and its captured values then need their cotangents, which a
    call resolved here does not return."""
    if not isinstance(fn, types.FunctionType) or not fn.__closure__:
        return False
    seen = set() if seen is None else seen
    if id(fn) in seen:
        return False
    seen.add(id(fn))
    for cell in fn.__closure__:
        try:
            value = cell.cell_contents
        except ValueError:  # not assigned yet: its value will be known only when it runs
            return True
        if value is None or type(value) in (bool, str, bytes):  # never carry a derivative
            continue
        if not is_static(value) or captures_values(value, seen):
            return True
    return False


class LocalFunction:
    """A def or lambda nested in the function being lowered; inlined where called."""

    def __init__(self, node, defaults: list[Value], kw_defaults: dict, name: str):
        self.node = node
        self.defaults = defaults
        self.kw_defaults = kw_defaults
        self.name = name


class Unmergeable:
    """The env entry of a name bound to a nested function on some paths only, which
    could not be made into a value where the paths meet (`refusal` says why): reading
    the name afterwards raises that refusal; not reading it is fine."""

    def __init__(self, name: str, refusal):
        self.name = name
        self.refusal = refusal


class ExprLowering:
    """Mixin of the Lowerer: one method per expression kind."""

    def expr(self, node) -> Value:
        value = self.expr_or_function(node)
        if isinstance(value, LocalFunction):
            return self.closure_value(value, node)
        return value

    def closure_value(self, fn: LocalFunction, node, making: tuple = ()) -> Value:
        """A nested function used as a value: a real function over the captured values.

        Called directly, nested functions are inlined; passed around or returned,
        they become a `closure` op whose cotangent is {captured name: cotangent}.
        The captured values are those at the point the function is made."""
        code = _nested_code(self.pyfn.__code__, fn.node)
        if code is None:
            raise self.unsupported(node, f"cannot tell which compiled code is {fn.name!r}",
                                   "put each lambda on a line of its own, or define it with def")
        self.refuse_late_rebinding(fn, code.co_freevars, node)
        captured = []
        for name in code.co_freevars:
            inner = gast.Name(name, gast.Load(), None, None)
            gast.copy_location(inner, node)
            value = self.expr_or_function(inner)
            if isinstance(value, LocalFunction):
                if value is fn or value in making:
                    raise self.unsupported(node, f"{fn.name!r} captures the nested function {name!r}"
                                           ", which refers back to it",
                                           "define mutually recursive functions at module level")
                # a captured nested function is made into a value too
                value = self.closure_value(value, node, (*making, fn))
            captured.append(value)
        defaults = list(fn.defaults)
        kwnames = tuple(fn.kw_defaults)
        return self.emit("closure", [*captured, *defaults, *fn.kw_defaults.values()], node=node,
                         attrs={"code": code, "names": code.co_freevars, "ndefaults": len(defaults),
                                "kwdefaults": kwnames}, hint=fn.name if fn.name != "<lambda>" else "").result

    def refuse_late_rebinding(self, fn: LocalFunction, free: tuple, node) -> None:
        """The closure op captures values now; Python reads them when the function is
        called (late_binding.py): refuse if a captured variable may change in between."""
        root = self
        while root.parent is not None:
            root = root.parent
        index = root.rebinding_index()
        what = "the lambda" if fn.name == "<lambda>" else f"the nested function {fn.name!r}"
        for name in free:
            site = index.rebound_after(name, node)
            if site is not None:
                raise self.unsupported(
                    node,
                    f"{what} made here reads {name!r} when it is called (Python's late binding), "
                    f"and {name!r} may be assigned again (line {site.lineno}) before that",
                    f"bind the current value as a default ({'lambda' if fn.name == '<lambda>' else 'def'}"
                    f" ..., {name}={name}: ...), or make the function after the last "
                    f"assignment to {name!r}")

    def expr_or_function(self, node):
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.unsupported(node, f"{type(node).__name__} expressions are not supported",
                                   "rewrite the expression with plain calls and operators")
        return method(node)

    # -- leaves -----------------------------------------------------------
    def expr_Constant(self, node):
        return self.const(node.value, node)

    def expr_Name(self, node):
        name = node.id
        if name in self.local_names:
            if name not in self.env:
                raise self.unsupported(
                    node, f"local variable {name!r} is used before it is assigned",
                    "assign it on every path before this line")
            value = self.env[name]
            if isinstance(value, Unmergeable):
                raise value.refusal
            if isinstance(value, Value) and value.id in self.consumed:
                raise self.mutation_error(
                    node, f"{name!r} names a list or dict that was modified through another name",
                    "zygote_py tracks in-place updates of containers through one name; "
                    "copy the container (list(x)) before modifying it under a second name")
            if isinstance(value, Value) and value.id in self.stale:
                self.check_stale(name, value, node)  # may share memory with a written array
            if name in self.claimed_globals and self.parent is None:
                self.check_binding(name, value, node)  # lower_containers.py
            return value
        return self.free_name(name, node)

    def free_name(self, name: str, node):
        if self.parent is not None:
            return self.parent.read_from_child(name, node, self)
        kind, where = resolve_free(name, self.pyfn)
        if kind in ("cell", "global") and name in self.claimed_by_generated_code():
            return self.claimed_read(name, kind, where, node)  # lower_containers.py
        if kind == "cell":
            try:
                obj = where.cell_contents
            except ValueError:
                obj = None
            if is_static(obj) and not captures_values(obj):
                self.guards.append(("cell", where, None, obj))
                return self.static(obj, name, node)
            return self.checked_outside_read(self.read_cell(name, node), obj, where, None, node)
        if kind == "builtin":
            self.guards.append(("global", self.pyfn.__globals__, name, _MISSING))
            return self.static(where, name, node)
        obj = where.get(name, _MISSING)
        if is_static(obj):
            self.guards.append(("global", where, name, obj))
            return self.static(obj, name, node)
        value = self.emit("global", (), attrs={"name": name}, node=node, hint=name).result
        return self.checked_outside_read(value, obj, where, name, node)

    def checked_outside_read(self, value, obj, where, name, node):
        """A read of a global or cell value that may be (or hold) a list or dict is checked,
        where it is read, against those a function of the gradient call claimed
        (runtime/outside_containers.py: check_outside_read).  A global that holds an array
        or a number now is not, and the code is rebuilt if that changes (the guard "plain");
        one that holds only numbers or strings, or a tuple of them, is not even state outside
        the function, since nothing can be written into it (the guard "immutable").
        A closure cell is checked whatever it holds now -- another closure of the same code
        may hold a list there, and a guard would rebuild the code for every such switch --
        except the cells generated code binds its own helpers and constants to, and the
        cells of a closure defined in generated code (a pullback's back): the variables of
        the generated code around it, whose reads of the user's objects carry the checks the
        user's code needed where it read them (forward mode over a gradient)."""
        if name is None:
            root = self.root_lowerer().pyfn
            if value.hint.startswith("_zp_") and getattr(root, "_zp_generated", None) is not None \
                    or defined_in_generated_code(root):
                return value
        elif immutable_value(obj):
            # numbers, strings or a tuple of them: nothing a callee does can write into
            # them (`s, v = cfg; s -= v` rebinds s), so passing the global on is not a
            # write into program state; the code is rebuilt (and such a call refused)
            # once the global holds anything else
            self.guards.append(("immutable", where, name, None))
            self.alias_class(value).external = None
            return value
        elif plain_value(obj):
            self.guards.append(("plain", where, name, None))
            return value
        # the check reads the name again (the same object: nothing runs in between), so
        # that the value read stays an expression where it is used, as before
        read = value
        if name is not None:  # (a cell is read where it is used: its value is that read)
            read = self.emit("global", (), attrs={"name": name}, node=node, hint=value.hint).result
        self.emit("call", [read, self.const(name or value.hint or "the closure value", node),
                           self.loc_const(node)], node=node,
                  attrs={"fn": _outside.check_outside_read, "expr": "_zp_check_outside_read",
                         "kw": (), "star": ()})
        return value

    def read_from_child(self, name, node, child):
        """A nested (inlined) function reads a name free in it: ours, as of the call."""
        if name in self.local_names and name in self.env:
            value = self.env[name]
            if isinstance(value, Unmergeable):
                raise value.refusal
            if isinstance(value, Value) and value.id in self.stale:
                child.check_stale(name, value, node)  # (emitted where the child reads it)
            if name in self.claimed_globals:
                child.check_binding(name, value, node)
            return value
        return self.free_name(name, node)

    # -- operators --------------------------------------------------------
    def expr_BinOp(self, node):
        left, right = self.expr(node.left), self.expr(node.right)
        return self.call_static(BINOPS[type(node.op)], (left, right), node)

    def expr_UnaryOp(self, node):
        operand = self.expr(node.operand)
        if isinstance(node.op, gast.USub) and self.constant_of(operand, _MISSING) is not _MISSING:
            value = self.constant_of(operand)
            if isinstance(value, (int, float, complex)) and not isinstance(value, bool):
                return self.const(-value, node)
        return self.call_static(UNARYOPS[type(node.op)], (operand,), node)

    def compare_one(self, op, left, right, node):
        if isinstance(op, gast.In):
            return self.call_static(operator.contains, (right, left), node)
        if isinstance(op, gast.NotIn):
            inside = self.call_static(operator.contains, (right, left), node)
            return self.call_static(operator.not_, (inside,), node)
        return self.call_static(CMPOPS[type(op)], (left, right), node)

    def expr_Compare(self, node):
        left = self.expr(node.left)
        pairs = list(zip(node.ops, node.comparators))

        def chain(left, index):
            op, right_node = pairs[index]
            right = self.expr(right_node)
            result = self.compare_one(op, left, right, node)
            if index == len(pairs) - 1:
                return result
            # a < b < c  is  (a < b) and (b < c), evaluating b once
            return self.if_value(result, lambda: chain(right, index + 1), lambda: result, node)

        return chain(left, 0)

    def expr_BoolOp(self, node):
        def combine(index):
            value = self.expr(node.values[index])
            if index == len(node.values) - 1:
                return value
            rest = lambda: combine(index + 1)
            keep = lambda: value
            if isinstance(node.op, gast.And):
                return self.if_value(value, rest, keep, node)
            return self.if_value(value, keep, rest, node)

        return combine(0)

    def expr_IfExp(self, node):
        cond = self.expr(node.test)
        return self.if_value(cond, lambda: self.expr(node.body), lambda: self.expr(node.orelse), node)

    def expr_NamedExpr(self, node):
        value = self.expr(node.value)
        self.assign(node.target, value, node)
        return value

    # -- containers -------------------------------------------------------
    def elements(self, elts, node):
        if any(isinstance(e, gast.Starred) for e in elts):
            raise self.unsupported(node, "starred items inside a literal are not supported",
                                   "build the sequence with + or list(...) instead")
        return [self.expr(e) for e in elts]

    def starred_sequence(self, elts, node, opcode: str, convert):
        """`[a, *b, c]` / `(a, *b, c)`: `[a] + list(b) + [c]`, as Python builds it (each
        starred value is unpacked when it is reached, before the items after it are
        evaluated)."""
        pieces, run = [], []
        for element in elts:
            if isinstance(element, gast.Starred):
                if run:
                    pieces.append(self.emit(opcode, run, node=node).result)
                    run = []
                pieces.append(self.call_static(convert, (self.expr(element.value),), node))
            else:
                run.append(self.expr(element))
        if run:
            pieces.append(self.emit(opcode, run, node=node).result)
        result = pieces[0]
        for piece in pieces[1:]:
            result = self.call_static(operator.add, (result, piece), node)
        return result

    def expr_Tuple(self, node):
        if any(isinstance(e, gast.Starred) for e in node.elts) and isinstance(node.ctx, gast.Load):
            return self.starred_sequence(node.elts, node, "tuple", builtins.tuple)
        values = self.elements(node.elts, node)
        consts = [self.constant_of(v, _MISSING) for v in values]
        if all(c is not _MISSING for c in consts) and all(_plain_constant(c) for c in consts):
            return self.const(tuple(consts), node)
        return self.emit("tuple", values, node=node).result

    def expr_List(self, node):
        if any(isinstance(e, gast.Starred) for e in node.elts) and isinstance(node.ctx, gast.Load):
            return self.starred_sequence(node.elts, node, "list", builtins.list)
        return self.emit("list", self.elements(node.elts, node), node=node).result

    def expr_Dict(self, node):
        """`{k: v, ...}`; with `**m` entries, Python's left-to-right merge: the runs of pairs
        are literals, and each part updates a new dict (runtime/containers.dict_update),
        whose rules send every key's derivative to the part that set it last."""
        if not any(k is None for k in node.keys):
            operands = []
            for k, v in zip(node.keys, node.values):
                operands += [self.expr(k), self.expr(v)]
            return self.emit("dict", operands, node=node).result
        result = self.emit("dict", [], node=node).result
        pairs: list = []
        for k, v in zip(node.keys, node.values):
            if k is not None:
                pairs += [self.expr(k), self.expr(v)]
                continue
            if pairs:
                result = self.call_static(forms.dict_update,
                                          (result, self.emit("dict", pairs, node=node).result),
                                          node)
                pairs = []
            result = self.call_static(forms.dict_update, (result, self.expr(v)), node)
        if pairs:
            result = self.call_static(forms.dict_update,
                                      (result, self.emit("dict", pairs, node=node).result), node)
        return result

    def expr_Set(self, node):
        return self.call_static(builtins.set, (self.emit("list", self.elements(node.elts, node),
                                                          node=node).result,), node)

    # -- attribute, subscript, slices ---------------------------------------
    def expr_Attribute(self, node):
        base = self.expr(node.value)
        obj = self.constant_of(base, _MISSING)
        if obj is not _MISSING and isinstance(obj, (types.ModuleType, type)):
            attr = getattr(obj, node.attr, _MISSING)
            # an attribute missing now (`np.trapz` on NumPy 2.4, in the branch of an `if
            # hasattr(np, "trapezoid")` that does not run) is read when the code runs, where
            # Python raises its AttributeError, and only if that line runs
            if attr is not _MISSING and (is_static(attr) or type(attr) in _PLAIN_CONSTANTS):
                expr = f"{base.owner.attrs.get('expr') or obj.__name__}.{node.attr}"
                return self.static(attr, expr, node)
            # data (an array, a list, a model): read when the code runs, never frozen in;
            # checked like a global's read (`mod.LOG` is the global LOG of mod)
            value = self.emit("getattr", (base,), attrs={"name": node.attr}, node=node,
                              hint=node.attr).result
            if plain_value(attr):
                self.guards.append(("plain_attribute", obj, node.attr, None))
                return value
            read = self.emit("getattr", (base,), attrs={"name": node.attr}, node=node,
                             hint=node.attr).result
            self.emit("call", [read, self.const(f"{obj.__name__}.{node.attr}", node),
                               self.loc_const(node)], node=node,
                      attrs={"fn": _outside.check_outside_read, "expr": "_zp_check_outside_read",
                             "kw": (), "star": ()})
            return value
        return self.emit("getattr", (base,), attrs={"name": node.attr}, node=node,
                         hint=node.attr).result

    def expr_Subscript(self, node):
        base = self.expr(node.value)
        index = self.expr(node.slice)
        return self.call_static(operator.getitem, (base, index), node)

    def expr_Slice(self, node):
        parts = [self.expr(p) if p is not None else self.const(None, node)
                 for p in (node.lower, node.upper, node.step)]
        consts = [self.constant_of(p, _MISSING) for p in parts]
        if all(c is not _MISSING for c in consts):
            return self.const(slice(*consts), node)
        return self.call_static(builtins.slice, parts, node)

    # -- calls ------------------------------------------------------------
    def call_arguments(self, node):
        operands, star, kw = [], [], []
        for arg in node.args:
            if isinstance(arg, gast.Starred):
                star.append(len(operands))
                operands.append(self.expr(arg.value))
            else:
                operands.append(self.expr(arg))
        for keyword in node.keywords:
            operands.append(self.expr(keyword.value))
            kw.append(keyword.arg)  # None for **kwargs
        return operands, tuple(star), tuple(kw)

    def expr_Call(self, node):
        func = node.func
        if isinstance(func, gast.Attribute):
            base = self.expr_or_function(func.value)
            if isinstance(base, Value) and self.constant_of(base, _MISSING) is _MISSING:
                return self.method_call(base, func, node)
        return self.lower_call(node, self.expr_or_function(func))

    def lower_call(self, node, callee):
        """A call of callee (already lowered: a value, or a nested function to inline)."""
        if isinstance(callee, LocalFunction):
            return self.inline_call(callee, node)
        obj = self.constant_of(callee, _MISSING)
        reader = self.claim_reader(obj) if self.claimed_globals else None  # lower_containers.py
        if reader is not None:
            return self.inline_call(reader, node)
        if obj is not _MISSING and not callable(obj):
            # `np(3)` in a branch that may never run: Python raises its TypeError only when
            # the call runs, so the call is left to run time as a call of a value
            obj = _MISSING
        # sum(map(f, xs)), ", ".join(...): computed as Python does (lower_iterators.py)
        self.note_read_at_once(obj if obj is not _MISSING else _string_join(callee, self), node)
        if obj is builtins.any or obj is builtins.all or obj is builtins.next:
            fused = self.fused_reading(obj, node)  # lower_iterators.py
            if fused is not None:
                return fused
        if obj is builtins.map or obj is builtins.filter:
            return self.map_or_filter(obj, node)
        if obj is functools.reduce or obj is itertools.starmap:
            return self.reduce_or_starmap(obj, node)  # lower_iterators.py
        operands, star, kw = self.call_arguments(node)
        operands = self.generator_arguments(obj, operands, node)
        if obj is not _MISSING:
            obj = runtime_forms.substitute_callee(obj)
            lowered = self.iterator_call(obj, operands, star, kw, node) \
                or self.iterator_type_call(obj, operands, star, kw, node)  # lower_iterators.py
            if lowered is None and obj is builtins.dict:
                lowered = self.dict_call(operands, star, kw, node)
            if lowered is not None:
                return lowered
        known = obj if obj is not _MISSING else self._attribute_of_constant(callee)
        written = self.in_place_call(known, callee, operands, star, kw, node)  # lower_writes.py
        if written is not None:
            return written
        if known is not _MISSING and _writes_in_place(known):  # invisible to the adjoint: a silent zero
            if isinstance(getattr(known, "__self__", None), np.ufunc):
                raise self.mutation_error(
                    node, f"{_callee_name(known)}() writes into its first argument in place, "
                    "and zygote_py follows ufunc.at only for np.add, np.subtract, np.multiply "
                    "and np.divide, into an array named here (a variable of this function)",
                    "name the array first, or compute a new array (np.where, a scatter with "
                    "np.add.at, or a rule registered with @zp.adjoint)")
            raise self.mutation_error(
                node, f"{_callee_name(known)}() writes into its first argument in place",
                "compute a new array instead (for example np.where, np.take_along_axis, or a "
                "scatter-add rule registered with @zp.adjoint)")
        if "out" in kw and self.constant_of(operands[len(operands) - len(kw) + kw.index("out")], 0) is not None:
            raise self.mutation_error(node, "out= writes the result into an existing array in place",
                                      "use the returned value instead of out=")
        if known is not _MISSING:
            self.refuse_positional_out(known, operands, kw, node)  # lower_writes.py
        if obj is not _MISSING:
            special = runtime_forms.lower_special_call(self, obj, operands, star, kw, node)
            if special is not None:
                return special
            threaded = self.argument_writing_call(obj, operands, star, kw, node)  # lower_writes.py
            if threaded is not None:
                return threaded
            self.escape_to_call(obj, operands)  # lower_objects.py
            return self.emit("call", operands, attrs={
                "fn": obj, "expr": callee.owner.attrs.get("expr"), "kw": kw, "star": star},
                node=node).result
        self.escape_to_call(None, operands)
        return self.emit("callv", [callee, *operands], attrs={"kw": kw, "star": star},
                         node=node).result

    def _attribute_of_constant(self, callee):
        """`np.add.at`: an attribute of a constant, which lowering leaves to run time."""
        op = getattr(callee, "defining_op", None)
        if op is None or op.opcode != "getattr":
            return _MISSING
        base = self.constant_of(op.operands[0], _MISSING)
        return getattr(base, op.attrs["name"], _MISSING) if isinstance(base, np.ufunc) else _MISSING

    def method_call(self, base: Value, func, node):
        name = func.attr
        operands, star, kw = self.call_arguments(node)
        if name in ("sort", "put") and isinstance(func.value, gast.Name) and not star \
                and func.value.id in self.local_names and self.local_container(func) is None:
            # an array's in-place sort or put (lower_writes.py), followed by the gradient
            if name == "sort":  # a list from outside, or an array (lower_containers.py)
                return self.sort_outside_or_array(func, base, operands, kw, node)
            written = self.positions_write(np.put, ("a", "ind", "v", "mode"), operands, kw, node,
                                           receiver=func.value)
            if written is not None:
                return written
        lowered = self.container_method(func, base, operands, star, kw, node)
        if lowered is not None:
            return lowered
        if name in ("append", "extend") and isinstance(func.value, gast.Name) and not kw and not star \
                and func.value.id in self.local_names:
            return self.container_update(func.value, name, base, operands, node)
        if name in ("append", "extend") and isinstance(func.value, gast.Name) \
                and (self.enclosing_local(func.value.id) or self.captured_cell(func.value.id)):
            # a nested function (inlined here) would modify a list of the function being
            # differentiated behind the name's back: its adjoint would never see the items
            raise self.mutation_error(
                node, f"{func.value.id}.{name}() in a nested function modifies a list of the "
                "enclosing function", "return the new items from the nested function and "
                f"{name} them in the enclosing function")
        # a global or captured list updated as a side effect (logging, say): it just runs
        if name == "fill" and isinstance(func.value, gast.Name) and len(operands) == 1 \
                and not kw and not star and func.value.id in self.local_names:
            return self.fill_array(func.value.id, base, operands[0], node)  # lower_writes.py
        self.check_method_out(base, name, operands, kw, node)  # lower_writes.py
        if name in _ARRAY_MUTATORS:
            raise self.mutation_error(
                node, f".{name}() writes into an array in place",
                "compute a new array instead (for example np.sort(x), np.full_like(x, v))")
        self.escape_to_call(None, operands)
        return self.emit("method", [base, *operands],
                         attrs={"name": name, "kw": kw, "star": star}, node=node).result

    # -- nested functions and comprehensions -------------------------------
    def expr_Lambda(self, node):
        return self.make_local_function(node, "<lambda>")

    def expr_ListComp(self, node):
        return self.comprehension(node, "list")

    def expr_GeneratorExp(self, node):
        """A generator read by a for loop, any(), all() or next() where it is made is
        lowered as that loop (lower_iterators.py); here it is computed as a list: read at
        once by sum(), list(), sorted(), ..., in Python's order; kept for later, in
        advance, where nothing can tell (lower_iterators.py: finish_items_ahead). Handed
        straight to a library call that reads it once (sum(), np.array(), zip(), ...), the
        list behaves the same; anywhere else it is a one-shot iterator over those items,
        as Python's generator is: `g = (...); sum(g) + sum(g)` reads nothing the second
        time, and next(g) advances it."""
        if self.never_read(node):  # Python computes no item (lower_iterators.py)
            return self.made_but_never_read([self.expr(node.generators[0].iter)], node)
        built = self.comprehension(node, "list")
        ahead = self.begin_items_ahead_before(built, node)  # (lower_iterators.py)
        items = self.finish_items_ahead(built, ahead, node, "this generator expression")
        parent = self.rebinding_index().parents.get(id(node))
        if isinstance(parent, gast.Call) and any(a is node for a in parent.args):
            self.__dict__.setdefault("generator_lists", set()).add(items.id)  # see lower_call
            return items
        # what Python's generator would read as it runs: updates of those before it is
        # consumed are refused (lower_containers.py: lazily_read_sources)
        self.generator_reads[items.id] = _outer_operands(built)
        return self.generator_items(items, node)

    def generator_items(self, items, node):
        """The one-shot iterator over a generator expression's items (a `generator` to repr)."""
        kind = self.static(types.GeneratorType, "GeneratorType", node)
        return self.call_static(_iterators.list_of_items, (items, kind), node)

    @property
    def generator_reads(self) -> dict:
        """id of a generator expression's list -> ids of the values from outside it that
        its loop reads (the iterable, names used in its expressions)."""
        return self.__dict__.setdefault("_generator_reads", {})

    def generator_arguments(self, obj, operands, node):
        """Generator expressions passed to a callee that may not read them exactly once,
        start to end (a Python function, next(), a callee known only while running),
        become one-shot iterators, as Python's are."""
        lists = self.__dict__.get("generator_lists")
        if not lists or not any(v.id in lists for v in operands) or _reads_once(obj):
            return operands
        return [self.generator_items(v, node) if v.id in lists else v for v in operands]

    def expr_DictComp(self, node):
        return self.comprehension(node, "dict")

    def expr_SetComp(self, node):
        return self.call_static(builtins.set, (self.comprehension(node, "list"),), node)

    def expr_JoinedStr(self, node):
        parts = []
        for piece in node.values:
            if isinstance(piece, gast.FormattedValue):
                spec = self.expr(piece.format_spec) if piece.format_spec else self.const("", node)
                value = self.expr(piece.value)
                conversion = {115: builtins.str, 114: builtins.repr, 97: builtins.ascii}.get(piece.conversion)
                if conversion is not None:
                    value = self.call_static(conversion, (value,), node)
                parts.append(self.call_static(builtins.format, (value, spec), node))
            else:
                parts.append(self.expr(piece))
        joined = self.emit("list", parts, node=node).result
        return self.call_static(runtime_forms.join_strings, (joined,), node)

    def expr_Starred(self, node):
        raise self.unsupported(node, "a starred expression is not supported here",
                               "unpack into names first")

    def expr_Await(self, node):
        raise self.unsupported(node, "await is not supported", "differentiate a plain def")

    def expr_Yield(self, node):
        raise self.unsupported(node, "yield (a generator) is not supported",
                               "return a list instead of yielding values")

    expr_YieldFrom = expr_Yield


def _nested_code(code, node):
    """The code object of a nested def or lambda, found among code's constants.

    Candidates share the name and first line.  Several lambdas on one line are
    told apart first by their parameter names, then by how much of each
    candidate's code lies inside node's source span (a fraction, so that the
    enclosing function's few instructions that make the lambda do not outweigh
    the lambda's own).  A tie is refused (None): a guess could run the wrong body."""
    name = node.name if isinstance(node, gast.FunctionDef) else "<lambda>"
    # a decorated def's code starts at its first decorator
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
    found = []
    stack = [code]
    while stack:
        current = stack.pop()
        for const in current.co_consts:
            if isinstance(const, types.CodeType):
                if const.co_name == name and const.co_firstlineno == first:
                    found.append(const)
                stack.append(const)
    if len(found) > 1:
        wanted = _parameter_names(node)
        found = [c for c in found if _code_parameter_names(c) == wanted] or found
    if len(found) > 1:  # several lambdas on one line with the same parameters
        scored = sorted(((share_inside(c, node), i) for i, c in enumerate(found)), reverse=True)
        if scored[0][0] == scored[1][0]:
            return None
        return found[scored[0][1]]
    return found[0] if found else None


def _parameter_names(node) -> tuple:
    sig = signature_of(node)
    return (*sig.posonly, *sig.args, *([sig.vararg] if sig.vararg else []), *sig.kwonly,
            *([sig.kwarg] if sig.kwarg else []))


def _code_parameter_names(code) -> tuple:
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return tuple(code.co_varnames[:count])


_MISSING = object()
_ARRAY_MUTATORS = frozenset({"fill", "sort", "put", "itemset", "resize", "setfield",
                             "partition", "__setitem__", "__iadd__", "__isub__", "__imul__"})


# NumPy functions that write into an argument (and return None); ufunc.at is found by its name
_IN_PLACE_FUNCTIONS = tuple(f for f in (np.put, np.put_along_axis, np.place, np.putmask, np.copyto,
                                        np.fill_diagonal) if f is not None)


def _writes_in_place(obj) -> bool:
    if isinstance(getattr(obj, "__self__", None), np.ufunc) and getattr(obj, "__name__", "") == "at":
        return True
    return any(obj is f for f in _IN_PLACE_FUNCTIONS)


def _callee_name(obj) -> str:
    owner = getattr(obj, "__self__", None)
    if isinstance(owner, np.ufunc):
        return f"np.{owner.__name__}.{obj.__name__}"
    return f"np.{getattr(obj, '__name__', 'function')}"


def _plain_constant(value) -> bool:
    return value is None or isinstance(value, (bool, int, float, complex, str, slice, tuple,
                                               type(Ellipsis)))


# builtins that take a generator as an object and do not iterate it (type(g) is a
# generator, print(g) shows one, len(g) and reversed(g) are Python's TypeErrors)
_NOT_READING = frozenset((builtins.type, builtins.isinstance, builtins.id, builtins.repr,
                          builtins.str, builtins.print, builtins.bool, builtins.len,
                          builtins.reversed, builtins.hash, builtins.callable, builtins.format,
                          builtins.ascii, builtins.issubclass))


def _string_join(callee, lowerer):
    """`sep.join` of a constant string sep (lowered as an attribute read), else _MISSING."""
    op = getattr(callee, "defining_op", None)
    if op is None or op.opcode != "getattr" or op.attrs["name"] != "join":
        return _MISSING
    base = lowerer.constant_of(op.operands[0], _MISSING)
    return base.join if isinstance(base, str) else _MISSING


def _reads_once(obj) -> bool:
    """Whether a call of obj reads an iterable argument once, from start to end, as a
    list would be read: the builtins and NumPy's functions (next() is not: it reads one
    item and leaves the rest)."""
    if obj is _MISSING or obj is builtins.next or obj in _NOT_READING:
        return False
    if isinstance(obj, (types.BuiltinFunctionType, np.ufunc)):
        return True
    if isinstance(obj, type) and obj.__module__ == "builtins":  # list, tuple, zip, ...
        return True
    return (getattr(obj, "__module__", None) or "").split(".")[0] == "numpy"


def _outer_operands(result: Value) -> set[int]:
    """The values a comprehension's loop (the op defining result) reads that are defined
    outside it."""
    op = result.defining_op
    if op is None:
        return set()
    inside, read = set(), set()
    for region in op.regions:
        for inner in region.walk():
            inside.update(r.id for r in inner.results)
            read.update(v.id for v in inner.operands)
        inside.update(a.id for a in region.args)
    read.update(v.id for v in op.operands)
    return read - inside
