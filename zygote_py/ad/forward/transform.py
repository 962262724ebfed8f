"""The forward-mode transform: a primal `Function` -> a function computing values and tangents.

The primal IR is only read.  New IR is built op by op: each primal op is
copied, and where one of its operands carries a tangent, the ops computing the
tangent of its results follow it (the tangent of a value `x` is named
`x_dot` in the generated code).  A value with no tangent has a statically zero
one and costs nothing; `None` is the zero tangent while running.

  - a call with a registered rule, on operands known to be arrays or numbers
    (analysis/receivers.py), is followed by a call of the rule's forward rule
    `jvp(dx..., y, *args)` -- the zero tangent of an inactive argument is None;
  - any other call, method call or attribute read carrying a tangent goes
    through the forward dispatcher (calls/forward_dispatch.py), which
    returns `(value, tangent)`: rules, Python functions (transformed in turn),
    methods, callable objects and closures are decided there from the object;
  - containers: a tuple, list or dict literal's tangent is the same literal of
    the items' tangents; unpacking, appends and dict updates have helpers;
  - a closure's tangent holds the tangents of the values it captures;
  - attribute writes (`obj.name = v`) keep v's tangent by the object, in the call's book
    (objects.py, calls/forward_objects.py): every attribute read of a value that may be
    an object, and every call of user code, asks the book, tangent or not;
  - an `if` yields its results' tangents as extra results; a loop carries the
    tangents of its carried values as extra slots (which slots vary is read
    from the activity analysis), and the tangents of the items a `for`
    iterates are drawn from an iterator over the iterable's tangent, in step.
The new function takes the primal's parameters, then one tangent per active
parameter, then (with active closure cells) the dict of the cells' tangents,
and returns `(value, tangent)`.
"""

from __future__ import annotations

import inspect

import numpy as np

from ...analysis.activity import attribute_is_nondifferentiable, varied_values
from ...analysis.claims import unneeded_claims
from ...analysis.complexity import complex_values
from ...analysis.receivers import ARRAY, value_levels
from ...analysis.scalars import scalar_values
from ...calls import dispatch
from ...calls import forward_dispatch as fwd
from ...calls import forward_objects as fob
from ...errors import InternalError, NoDerivativeRule
from ...ir.builder import IRBuilder
from ...ir.core import Block, Function, Op, Value, iteration_pairs
from ...ir.ops import loop_layout
from ...kinds import is_complex_kind
from ...resolve import CALLABLE, CONSTRUCT, FUNCTION, METHOD, NONDIFF, RECEIVER, RULE, resolve
from ...rules import registry
from ...rules.jvp_complex import forward_rule
from ...runtime import built_objects, forward_writes, outside_containers, writes
from ...runtime.complex_guard import VARY_ON_COMPLEX, refuse_complex
from ...runtime.tangent_checks import refuse_key_tangent
from .inline import NOT_INLINED, Inliner
from .objects import object_op
from .writes import follow_write, mark_in_place

# the runtime modules of in-place writes (followed: writes.py), of lists and dicts from
# outside updated in place (writes.py) and of objects written (objects.py)
_MUTATION_MODULES = ("zygote_py.runtime.writes", "zygote_py.runtime.built_objects",
                     "zygote_py.runtime.outside_containers")
_ATTRIBUTE_WRITES = (built_objects.set_attribute, built_objects.object_set_attribute)
# what a call of these may run: code of the user's, which may read an object's attributes
_USER_CODE = (FUNCTION, METHOD, CALLABLE, RECEIVER, CONSTRUCT)


def _unfollowed(module: str) -> str:
    if module.endswith("writes"):
        return "this write into an array"
    return "this operation on objects"


class _Shared:
    """The copy of a user's call that was not emitted: an equal call's value is used."""

    __slots__ = ("operands", "result", "results")

    def __init__(self, result: Value, operands: list[Value]):
        self.result = result
        self.results = [result]
        self.operands = operands


class ForwardTransform:
    """Builds the forward-mode function of fn for the active parameters and cells."""

    def __init__(self, fn: Function, active, active_cells=(), kinds=(), returns=None):
        self.fn = fn
        self.active = list(active) + [False] * (len(fn.params) - len(active))
        self.active_cells = tuple(active_cells)
        cell_roots = [op.result.id for op in fn.walk()
                      if op.opcode == "cell" and op.attrs["name"] in self.active_cells]
        levels = value_levels(fn, kinds, returns)
        self.arrays = {i for i, level in levels.items() if level == ARRAY}
        scalar_params = [k is True for k in kinds] + [False] * (len(fn.params) - len(kinds))
        self.scalars = scalar_values(fn, scalar_params)  # certainly plain numbers
        self.inline = Inliner(self)  # rules spliced as expressions (inline.py)
        self.varied = varied_values(fn, self.active, extra_roots=cell_roots + self.object_roots(),
                                    arrays=self.arrays)
        self.unneeded_claims = unneeded_claims(fn, self.varied)  # (analysis/claims.py)
        # values that may be complex (analysis/complexity.py): a rule there runs its forward
        # rule for complex values (rules/jvp_complex.py), right for real ones too
        complex_params = [is_complex_kind(k) for k in kinds][:len(fn.params)]
        complex_params += [False] * (len(fn.params) - len(complex_params))
        self.maybe_complex = complex_values(fn, complex_params)
        self.vmap: dict[int, Value] = {}  # primal value id -> its copy
        self.tmap: dict[int, Value] = {}  # primal value id -> its tangent
        self.ir = IRBuilder()
        self.cells_dot: Value | None = None

    # -- driver ------------------------------------------------------------------------
    def run(self) -> Function:
        fn = self.fn
        body = Block([p.hint for p in fn.params])
        for old, new in zip(fn.params, body.args):
            self.vmap[old.id] = new
        tangent_params = []
        for old, active in zip(fn.params, self.active):
            if active:
                t = body.add_arg((old.hint or "x") + "_dot")
                self.tmap[old.id] = t
                self.inline.mark(t)  # an active argument's tangent is never None
                tangent_params.append(t)
        if self.active_cells:
            self.cells_dot = body.add_arg("_zp_cells_dot")
        with self.ir.at(body):
            self.block(fn.body)
        out = Function(f"{fn.name}_jvp", list(body.args), body, fn.loc, fn.signature, dict(fn.meta))
        out.meta["tangent_params"] = len(tangent_params)
        mark_in_place(out)
        return out

    # -- values --------------------------------------------------------------------------
    def v(self, value: Value) -> Value:
        return self.vmap.get(value.id, value)

    def t(self, value: Value) -> Value | None:
        return self.tmap.get(value.id)

    def t_or_none(self, value: Value) -> Value:
        found = self.tmap.get(value.id)
        return found if found is not None else self.ir.const(None)

    def emit(self, opcode, operands=(), nresults=1, attrs=None, regions=(), hints=()) -> Op:
        return self.ir.emit(opcode, list(operands), nresults, attrs, regions, hints)

    def helper(self, fn, *operands, hint="") -> Value:
        return self.ir.call(fn, *operands, expr="_zp_" + fn.__name__, hint=hint)

    def copy(self, op: Op) -> Op | _Shared:
        operands = [self.v(x) for x in op.operands]
        found, key = self.inline.primal_call(op, operands)
        if found is not None:  # a spliced rule computed it already (np.cos(x) of sin's tangent)
            if not found.hint:
                found.hint = op.result.hint
            self.vmap[op.result.id] = found
            return _Shared(found, operands)
        new = self.emit(op.opcode, operands, len(op.results), dict(op.attrs),
                        hints=[r.hint for r in op.results])
        for old, result in zip(op.results, new.results):
            self.vmap[old.id] = result
        self.inline.note(key, new.result if new.results else None)
        return new

    def set_tangent(self, value: Value, tangent: Value | None) -> None:
        if tangent is not None:
            if not tangent.hint and value.hint:
                tangent.hint = value.hint + "_dot"
            self.tmap[value.id] = tangent

    # -- the walk ------------------------------------------------------------------------
    def block(self, block: Block) -> None:
        for op in block.ops:
            self.ir.loc = op.loc
            handler = getattr(self, "op_" + op.opcode, None)
            if handler is None:
                raise InternalError(f"the forward transform has no rule for the IR op "
                                    f"'{op.opcode}'", op.loc,
                                    "this is a defect of zygote_py; please report it")
            handler(op)

    def op_const(self, op):
        self.copy(op)

    op_global = op_undef = op_assert = op_raise = op_const

    def op_cell(self, op):
        self.copy(op)
        name = op.attrs["name"]
        if name in self.active_cells:
            self.set_tangent(op.result, self.helper(fwd.cell_tangent, self.cells_dot,
                                                    self.ir.const(name)))

    def op_return(self, op):
        value = op.operands[0]
        pair = self.emit("tuple", [self.v(value), self.t_or_none(value)]).result
        self.emit("return", [pair], 0)

    def op_yield(self, op):  # handled by the enclosing op (tangent slots are added there)
        self.emit("yield", [self.v(x) for x in op.operands], 0)

    # -- calls -----------------------------------------------------------------------------
    def op_call(self, op):
        fn = op.attrs["fn"]
        if fn is built_objects.set_attribute and _const_is(op.operands[1], "_zp_effects"):
            # pullback code flags its back function (codegen/generate.py): a flag on a
            # function made here, not data, set as it is when forward mode runs that code
            # (whether or not the function carries a tangent)
            self.vmap[op.results[0].id] = self.helper(
                fwd.flag_function, *[self.v(x) for x in op.operands[:3]])
            return
        if _is_object_op(fn):
            object_op(self, op)  # objects.py
            return
        if fn is writes.restore_final or fn is outside_containers.claim_outside:
            follow_write(self, op)  # whatever its tangents (writes.py)
            return
        if not any(self.t(x) is not None for x in op.operands):
            if fn is dispatch.call or fn is dispatch.call_method:
                # a call gradient code resolves while running: its handler decides, even
                # where nothing moves (a method of an object whose attributes were written
                # with tangents runs transformed; its back, which may undo writes, once)
                self.dynamic(op, fwd.jvp_call, self.ir.const(fn), self.ir.const(None),
                             op.operands)
                return
            if len(op.results) == 1 and _user_code(fn):  # it may read written attributes
                self.plain(op, fob.plain_call, self.ir.const(fn), op.operands)
            else:
                self.copy(op)
            return
        module = getattr(fn, "__module__", None)
        if module in _MUTATION_MODULES and follow_write(self, op):
            return  # writes into arrays, their saves and restores in gradient code (writes.py)
        if type(fn) is writes.ArgumentWrites:  # `(r, u2) = f(u)` where f writes into u
            self.dynamic(op, forward_writes.argument_writes_jvp, self.ir.const(fn),
                         self.ir.const(None), op.operands)
            return
        if fn is built_objects.check_underived_result:  # gradient code's check: y itself
            self.copy(op)
            self.set_tangent(op.results[0], self.t(op.operands[0]))
            return
        if fn is built_objects.check_underived_argument:  # (a check: no result to speak of)
            self.copy(op)
            return
        if fn is built_objects.super_of:  # super(): its tangent is its self's, as a method's
            self.copy(op)
            self.set_tangent(op.results[0], self.t(op.operands[1]))
            return
        if fn is built_objects.with_effects:  # a wrapper of a back, marked as the back is
            self.copy(op)
            self.set_tangent(op.results[0], self.t(op.operands[0]))
            return
        if module in _MUTATION_MODULES and registry.function_rule(fn) is None:
            raise fwd.not_followed(_unfollowed(module), op.loc)
        res = resolve(fn, registry)
        if res.kind == NONDIFF:
            if _varies_on_complex(fn) and self.may_be_complex(op):  # sign(z) = z / |z|
                self.ir.call(refuse_complex, self.ir.const(registry.qualified_name(fn)),
                             self.ir.const(op.loc), *[self.v(x) for x in op.operands],
                             expr="_zp_refuse_complex")
            self.copy(op)
            return
        if res.kind == RULE and self.static_rule(op, res.rule):
            return
        # code of the user's may read attributes written with tangents (forward_objects.py)
        helper = fob.jvp_call if res.kind in _USER_CODE else fwd.jvp_call
        self.dynamic(op, helper, self.ir.const(fn), self.ir.const(None), op.operands)

    def may_be_complex(self, op: Op) -> bool:
        """Whether an operand or a result of op may hold a complex value."""
        maybe = self.maybe_complex
        return any(v.id in maybe for v in op.operands) or any(r.id in maybe for r in op.results)

    def forward_rule(self, op: Op, new, rule):
        """The rule's forward rule for this call (new: its copy): the one right for complex
        values where a value of the call may be complex, else its own; for a rule not
        declared for complex values, a check first that refuses one at the user's line."""
        if not self.may_be_complex(op):
            return rule.jvp
        if registry.for_complex(rule) is None:
            self.ir.call(refuse_complex, self.ir.const(rule.qualname), self.ir.const(op.loc),
                         *new.operands, expr="_zp_refuse_complex")
            return rule.jvp
        return forward_rule(rule)

    def static_rule(self, op: Op, rule) -> bool:
        """`y = f(x); y_dot = jvp(x_dot, y, x)` where every operand is an array or a number."""
        kw = op.attrs.get("kw", ())
        if rule.jvp is None or op.attrs.get("star") or None in kw:
            return False
        if not all(x.id in self.arrays or _number_const(x) for x in op.operands):
            return False
        npos = len(op.operands) - len(kw)
        try:
            bound = inspect.Signature(list(rule.params)).bind(
                *range(npos), **{k: npos + i for i, k in enumerate(kw)}).arguments
        except TypeError:
            return False
        for name in rule.meta.get("unsupported", ()):
            if name in bound:
                return False  # the dispatcher refuses it if it is given
        for name, index in bound.items():
            if not isinstance(index, int):
                return False  # *args bound to a rule parameter
            if name in rule.meta.get("underived", ()) and self.t(op.operands[index]) is not None:
                raise NoDerivativeRule(
                    f"the rule for {rule.qualname} has no derivative with respect to its "
                    f"argument {name!r}, which depends on the inputs here", op.loc,
                    "wrap that argument in zp.stop_gradient(...) if no derivative is wanted "
                    "through it")
        dxs = [self.t(op.operands[bound[name]]) if name in bound else None for name in rule.diff]
        if all(d is None for d in dxs):
            self.copy(op)
            return True
        new = self.copy(op)
        tangent = self.inline.tangent(rule, op, new, dxs)
        if tangent is not NOT_INLINED:
            self.set_tangent(op.result, tangent)
            return True
        operands = [d if d is not None else self.ir.const(None) for d in dxs]
        operands += [new.result] + list(new.operands)
        jvp_fn = self.forward_rule(op, new, rule)
        name = getattr(jvp_fn, "__name__", "jvp").lstrip("_")
        tangent = self.emit("call", operands, attrs={"fn": jvp_fn, "expr": f"_zp_{name}",
                                                     "kw": kw, "star": ()}).result
        self.set_tangent(op.result, tangent)
        if _gives_tangent(jvp_fn, dxs, self.inline.is_dense):
            self.inline.mark(tangent)
        return True

    def dynamic(self, op: Op, helper, head: Value, head_dot: Value, operands, name=None):
        """`y, y_dot = helper(head, head_dot, [name,] (args), (tangents), spec, loc)`."""
        kw = op.attrs.get("kw", ())
        star = op.attrs.get("star", ())
        npos = len(operands) - len(kw)
        spec = tuple(("*" if i in star else None) for i in range(npos)) + \
            tuple(k if k is not None else "**" for k in kw)
        args = self.emit("tuple", [self.v(x) for x in operands]).result
        tangents = self.emit("tuple", [self.t_or_none(x) for x in operands]).result
        extra = [self.ir.const(name)] if name is not None else []
        pair = self.ir.call(helper, head, head_dot, *extra, args, tangents, self.ir.const(spec),
                            self.ir.const(op.loc), expr="_zp_" + helper.__name__)
        unpack = self.emit("unpack", [pair], 2, {"n": 2, "star": None},
                           hints=[op.result.hint, (op.result.hint + "_dot") if op.result.hint else ""])
        self.vmap[op.result.id] = unpack.results[0]
        self.set_tangent(op.result, unpack.results[1])

    def plain(self, op: Op, helper, head: Value, operands, name=None):
        """`y, y_dot = helper(head, [name,] (args), spec, loc)`: a call with no tangent that
        may read attributes written with one (calls/forward_objects.py)."""
        kw = op.attrs.get("kw", ())
        star = op.attrs.get("star", ())
        npos = len(operands) - len(kw)
        spec = tuple(("*" if i in star else None) for i in range(npos)) + \
            tuple(k if k is not None else "**" for k in kw)
        args = self.emit("tuple", [self.v(x) for x in operands]).result
        extra = [self.ir.const(name)] if name is not None else []
        pair = self.ir.call(helper, head, *extra, args, self.ir.const(spec),
                            self.ir.const(op.loc), expr="_zp_" + helper.__name__)
        unpack = self.emit("unpack", [pair], 2, {"n": 2, "star": None},
                           hints=[op.result.hint, (op.result.hint + "_dot") if op.result.hint else ""])
        self.vmap[op.result.id] = unpack.results[0]
        self.set_tangent(op.result, unpack.results[1])

    def op_callv(self, op):
        callee = op.operands[0]
        if not any(self.t(x) is not None for x in op.operands):
            if len(op.results) == 1:
                self.plain(op, fob.plain_call, self.v(callee), op.operands[1:])
            else:
                self.copy(op)
            return
        self.dynamic(op, fob.jvp_call, self.v(callee), self.t_or_none(callee), op.operands[1:])

    def may_be_object(self, value: Value) -> bool:
        """Whether value may be an object whose attributes forward-mode code writes: not known
        to be an array or a number, nor a constant (a module, a class)."""
        if value.id in self.arrays or value.id in self.scalars:
            return False
        made = value.defining_op
        return made is None or made.opcode != "const"

    def object_roots(self) -> list[int]:
        """ids of the results whose tangent may come from attributes written with tangents
        (calls/forward_objects.py) even when no operand has one: reads of attributes of
        values that may be objects, calls of code of the user's, the writes' old values."""
        out = []
        for op in self.fn.walk():
            code = op.opcode
            if len(op.results) != 1:
                continue
            if code in ("getattr", "method") and self.may_be_object(op.operands[0]) or \
                    code == "callv" or code == "call" and (
                        _user_code(op.attrs["fn"]) or _is_object_op(op.attrs["fn"])):
                out.append(op.result.id)
        return out

    def op_method(self, op):
        if not any(self.t(x) is not None for x in op.operands):
            if len(op.results) == 1 and self.may_be_object(op.operands[0]):
                self.plain(op, fob.plain_method, self.v(op.operands[0]), op.operands[1:],
                           name=op.attrs["name"])
            else:
                self.copy(op)
            return
        obj = op.operands[0]
        if obj.id in self.arrays:  # an array's method: the ndarray rules, as reverse mode
            name = op.attrs["name"]
            rule = registry.method_rule(np.ndarray, name)
            if rule is not None and self.static_rule(op, rule):
                return
            if rule is None and registry.method_is_nondifferentiable(np.ndarray, name):
                self.copy(op)
                return
        self.dynamic(op, fob.jvp_method, self.v(obj), self.t_or_none(obj), op.operands[1:],
                     name=op.attrs["name"])

    def op_getattr(self, op):
        obj = op.operands[0]
        if self.t(obj) is None and not self.may_be_object(obj):
            self.copy(op)
            return
        if obj.id in self.arrays:  # an array's attribute: .T by its rule, .shape has no tangent
            name = op.attrs["name"]
            if attribute_is_nondifferentiable(name):
                self.copy(op)
                return
            rule = registry.attr_rule(np.ndarray, name)
            if rule is not None and rule.jvp is not None:
                new = self.copy(op)
                jvp_fn = self.forward_rule(op, new, rule)
                tangent = self.ir.call(jvp_fn, self.t(obj), new.result, self.v(obj),
                                       expr="_zp_" + getattr(jvp_fn, "__name__", "jvp").lstrip("_"))
                self.set_tangent(op.result, tangent)
                if _gives_tangent(jvp_fn, [self.t(obj)], self.inline.is_dense):
                    self.inline.mark(tangent)
                return
        pair = self.ir.call(fob.attribute_read, self.v(obj), self.t_or_none(obj),
                            self.ir.const(op.attrs["name"]), self.ir.const(op.loc),
                            expr="_zp_attribute_read")
        unpack = self.emit("unpack", [pair], 2, {"n": 2, "star": None},
                           hints=[op.result.hint, (op.result.hint + "_dot") if op.result.hint else ""])
        self.vmap[op.result.id] = unpack.results[0]
        self.set_tangent(op.result, unpack.results[1])

    # -- containers ------------------------------------------------------------------------
    def op_tuple(self, op):
        self.copy(op)
        if any(self.t(x) is not None for x in op.operands):
            self.set_tangent(op.result, self.emit(op.opcode, [self.t_or_none(x) for x in op.operands]).result)

    op_list = op_tuple

    def op_dict(self, op):
        self.copy(op)
        for key in op.operands[::2]:  # refused when a key has a tangent
            if self.t(key) is not None:
                self.helper(refuse_key_tangent, self.v(op.result), self.t(key),
                            self.ir.const(op.loc))
        values = op.operands[1::2]
        if any(self.t(x) is not None for x in values):
            pairs = []
            for key, value in zip(op.operands[::2], values):
                pairs += [self.v(key), self.t_or_none(value)]
            self.set_tangent(op.result, self.emit("dict", pairs).result)

    def op_unpack(self, op):
        source = op.operands[0]
        self.copy(op)
        if self.t(source) is None:
            return
        parts = self.helper(fwd.unpack_tangent, self.v(source), self.t(source),
                            self.ir.const(op.attrs["n"]), self.ir.const(op.attrs.get("star")))
        unpack = self.emit("unpack", [parts], len(op.results), {"n": len(op.results), "star": None})
        for old, t in zip(op.results, unpack.results):
            self.set_tangent(old, t)

    def op_append(self, op):
        container, item = op.operands
        new = self.copy(op)
        if self.t(container) is None and self.t(item) is None:
            return
        self.set_tangent(op.result, self.helper(fwd.append_tangent, new.result,
                                                self.t_or_none(container), self.t_or_none(item)))

    def op_extend(self, op):
        container, items = op.operands
        if self.t(container) is None and self.t(items) is None:
            self.copy(op)
            return
        before = self.ir.call(len, self.v(container), expr="len")
        new = self.copy(op)
        self.set_tangent(op.result, self.helper(fwd.extend_tangent, new.result, before,
                                                self.t_or_none(container), self.t_or_none(items)))

    def op_setitem(self, op):
        container, key, value = op.operands
        self.copy(op)
        if self.t(key) is not None:  # refused when the container is a dict (see reverse mode)
            self.helper(refuse_key_tangent, self.v(op.result), self.t(key), self.ir.const(op.loc))
        if self.t(container) is None and self.t(value) is None:
            return
        self.set_tangent(op.result,
                         self.helper(fwd.setitem_tangent, self.t_or_none(container), self.v(key),
                                     self.t_or_none(value)))

    def op_closure(self, op):
        self.copy(op)
        names = op.attrs["names"]
        captured = op.operands[:len(names)]
        for default in op.operands[len(names):]:
            if self.t(default) is not None:
                raise NoDerivativeRule(
                    "forward mode does not follow a derivative through a nested function's "
                    "default argument", op.loc, "pass the value as an argument instead")
        if any(self.t(x) is not None for x in captured):
            pairs = [self.t_or_none(x) for x in captured]
            self.set_tangent(op.result, self.helper(fwd.closure_tangent, self.ir.const(tuple(names)),
                                                    *pairs))

    # -- control flow ----------------------------------------------------------------------
    def region(self, block: Block, new: Block) -> Op:
        """Copy block's ops into new; returns the new terminator (tangents not yet added)."""
        self.inline.push()
        try:
            with self.ir.at(new):
                self.block(block)
        finally:
            self.inline.pop()
        return new.ops[-1]

    def add_yield_tangents(self, term: Op, old_term: Op, slots: list[int]) -> None:
        """Append the tangents of the yielded values of slots to the new terminator."""
        block = term.block
        with self.ir.at(block, len(block.ops) - 1), self.ir.at_loc(term.loc):
            for k in slots:
                term.operands.append(self.t_or_none(old_term.operands[k]))

    def check_dropped(self, old_term: Op, slots: list[int], first: int = 0) -> None:
        for k, value in enumerate(old_term.operands[first:]):
            if k not in slots and self.t(value) is not None:
                raise InternalError("the forward transform found a tangent the activity analysis "
                                    "did not expect", old_term.loc,
                                    "this is a defect of zygote_py; please report it")

    def op_if(self, op):
        then_old, else_old = op.regions
        then_new, else_new = Block(), Block()
        saved = self.ir.loc
        then_term = self.region(then_old, then_new)
        else_term = self.region(else_old, else_new)
        self.ir.loc = saved
        slots = [k for k, r in enumerate(op.results)
                 if r.id in self.varied or self.t(then_old.ops[-1].operands[k]) is not None
                 or self.t(else_old.ops[-1].operands[k]) is not None]
        self.add_yield_tangents(then_term, then_old.ops[-1], slots)
        self.add_yield_tangents(else_term, else_old.ops[-1], slots)
        hints = [r.hint for r in op.results] + [(op.results[k].hint + "_dot") if op.results[k].hint
                                                else "" for k in slots]
        new = self.emit("if", [self.v(op.operands[0])], len(op.results) + len(slots),
                        dict(op.attrs), regions=[then_new, else_new], hints=hints)
        for old, result in zip(op.results, new.results):
            self.vmap[old.id] = result
        for j, k in enumerate(slots):
            tangent = new.results[len(op.results) + j]
            self.tmap[op.results[k].id] = tangent
            if all(self.inline.is_dense(self.t(region.ops[-1].operands[k])) for region in op.regions):
                self.inline.mark(tangent)

    def op_for(self, op):
        layout = loop_layout(op)
        item_iters = {}
        for iterable, target in iteration_pairs(op):
            if self.t(iterable) is not None:
                reverse = op.attrs["kind"] == "reversed"
                item_iters[target.id] = self.helper(fwd.tangent_items, self.v(iterable),
                                                    self.t(iterable), self.ir.const(reverse))
        body_old = op.regions[0]

        def transform_body(slots: list[int], dense: set[int]) -> tuple[Block, Op]:
            body = Block([a.hint for a in body_old.args])
            for old, new in zip(body_old.args, body.args):
                self.vmap[old.id] = new
            for k in slots:
                arg = layout.carried[k]
                self.tmap[arg.id] = body.add_arg((arg.hint or "v") + "_dot")
                if k in dense:
                    self.inline.mark(self.tmap[arg.id])
            with self.ir.at(body):
                for target in layout.targets:
                    if target.id in item_iters:
                        self.set_tangent(target, self.helper(fwd.next_tangent, item_iters[target.id]))
            return body, self.region(body_old, body)

        slots, inits, body, term, dense = self.carried_loop(op, layout, transform_body)
        self.check_dropped(body_old.ops[-1], slots)
        self.add_yield_tangents(term, body_old.ops[-1], slots)
        self.ir.loc = op.loc
        operands = [self.v(x) for x in op.operands] + inits
        hints = [r.hint for r in op.results] + [(layout.results[k].hint or "v") + "_dot" for k in slots]
        new = self.emit("for", operands, len(op.results) + len(slots), dict(op.attrs),
                        regions=[body], hints=hints)
        self.finish_loop(op, new, slots, dense)

    def carried_loop(self, op: Op, layout, transform_body):
        """(slots, their initial tangents, body, terminator, dense slots) of a loop: the
        carried values whose tangents it carries are those the activity analysis finds
        varied, and any other that the transformed body yields with a tangent, found by
        transforming the body again with it.  A call that gradient code resolves while
        running has a tangent even where none of its operands does (its handler decides:
        its back's tangent), so a loop of a pullback can carry, say, a running total that
        such calls return, which the analysis of operands does not see vary."""
        term_old = op.regions[-1].ops[-1]
        slots = [k for k, arg in enumerate(layout.carried) if arg.id in self.varied]
        while True:
            inits = [self.t_or_none(layout.inits[k]) for k in slots]
            body, term, dense = self.dense_loop(
                op, slots, inits, lambda dense, slots=slots: transform_body(slots, dense))
            more = [k for k, value in enumerate(term_old.operands)
                    if k not in slots and self.t(value) is not None]
            if not more:
                return slots, inits, body, term, dense
            slots = sorted({*slots, *more})

    def dense_loop(self, op: Op, slots: list[int], inits: list[Value], transform_body):
        """Transform a loop's body (transform_body(dense slots) -> (block, terminator)),
        taking a carried tangent to be dense (never None) where its initial tangent is, and
        again without the slots whose yielded tangent turns out not to be."""
        dense = {k for k, init in zip(slots, inits) if self.inline.is_dense(init)}
        term_old = op.regions[-1].ops[-1]
        while True:
            saved_loc = self.ir.loc
            body, term = transform_body(dense)
            self.ir.loc = saved_loc
            kept = {k for k in dense if self.inline.is_dense(self.t(term_old.operands[k]))}
            if kept == dense:
                return body, term, dense
            dense = kept

    def op_while(self, op):
        layout = loop_layout(op)
        cond_old, body_old = op.regions
        blocks = {}

        def transform_body(slots: list[int], dense: set[int]) -> tuple[Block, Op]:
            cond = Block([a.hint for a in cond_old.args])
            body = Block([a.hint for a in body_old.args])
            for block_old, block_new in ((cond_old, cond), (body_old, body)):
                for old, new in zip(block_old.args, block_new.args):
                    self.vmap[old.id] = new
                for k in slots:
                    arg = block_old.args[k]
                    self.tmap[arg.id] = block_new.add_arg((arg.hint or "v") + "_dot")
                    if k in dense:
                        self.inline.mark(self.tmap[arg.id])
            self.region(cond_old, cond)
            blocks["cond"] = cond
            return body, self.region(body_old, body)

        slots, inits, body, term, dense = self.carried_loop(op, layout, transform_body)
        cond = blocks["cond"]
        self.check_dropped(body_old.ops[-1], slots)
        self.add_yield_tangents(term, body_old.ops[-1], slots)
        self.ir.loc = op.loc
        hints = [r.hint for r in op.results] + [(layout.results[k].hint or "v") + "_dot" for k in slots]
        new = self.emit("while", [self.v(x) for x in op.operands] + inits,
                        len(op.results) + len(slots), dict(op.attrs), regions=[cond, body],
                        hints=hints)
        self.finish_loop(op, new, slots, dense)

    def finish_loop(self, op: Op, new: Op, slots: list[int], dense: set[int]) -> None:
        for old, result in zip(op.results, new.results):
            self.vmap[old.id] = result
        for j, k in enumerate(slots):
            self.tmap[op.results[k].id] = new.results[len(op.results) + j]
            if k in dense:
                self.inline.mark(new.results[len(op.results) + j])


def _is_object_op(fn) -> bool:
    return any(fn is f for f in _ATTRIBUTE_WRITES) or fn is built_objects.take_attribute \
        or fn is built_objects.released_cotangent


def _user_code(fn) -> bool:
    """Whether a call of fn may run code of the user's (not zygote_py's own helpers)."""
    if (getattr(fn, "__module__", None) or "").startswith("zygote_py."):
        return False
    try:
        return resolve(fn, registry).kind in _USER_CODE
    except TypeError:  # an unhashable callee
        return False


def _varies_on_complex(fn) -> bool:
    try:
        return fn in VARY_ON_COMPLEX
    except TypeError:  # an unhashable callee
        return False


def _gives_tangent(jvp_fn, dxs, is_dense) -> bool:
    """Whether the forward rule certainly returns a tangent (not None) given these tangents:
    a rule marked `gives_tangent` (rules/jvp_common.py) does when any of its tangents, or
    any at the positions it names, is certainly there."""
    gives = getattr(jvp_fn, "gives_tangent", False)
    if gives is True:
        return any(map(is_dense, dxs))
    return any(is_dense(dxs[i]) for i in gives or () if i < len(dxs))


_PLAIN_CONSTANTS = (int, float, bool, str, type(None), tuple, slice)


def _const_is(value: Value, expected) -> bool:
    op = value.defining_op
    return op is not None and op.opcode == "const" and op.attrs["value"] == expected


def _number_const(value: Value) -> bool:
    """A literal of a builtin type (a number, an axis tuple, None): no protocol of its own."""
    op = value.defining_op
    return op is not None and op.opcode == "const" and type(op.attrs["value"]) in _PLAIN_CONSTANTS

