"""Adjoints of calls: rules spliced in, user functions through their pullbacks,
calls resolved only at run time through `dispatch`, methods and attributes.

For a call with a registered rule, the rule's body is spliced into the adjoint
(see splice.py).  A call of a Python function becomes a call of its cached
pullback.  A callee that is a value, a custom `@zp.adjoint` rule, or a call
spreading `*args`/`**kwargs` goes through `dispatch.call`, whose back returns
one cotangent per operand.
"""

from __future__ import annotations

import operator
import types

import numpy as np

from ..runtime import dispatch
from ..runtime import helpers as runtime
from ..ir.core import Op, Value, is_inside, value_block
from ..analysis.activity import attribute_is_nondifferentiable, may_read_parameters
from ..resolve import CALLABLE, CUSTOM, FUNCTION, METHOD, RECEIVER, RULE, UNKNOWN, no_rule, resolve
from ..rules import registry
from .implicit import is_module_data_read
from .splice import Splice, bind_call
from .values import produces_numeric


class CallAdjoints:
    """Mixin of ReverseTransform."""

    def adjoint_call(self, op: Op) -> None:
        fn = op.attrs["fn"]
        if not any(self.varied_operand(v) for v in op.operands) and not self.reads_parameters(op):
            return
        how = resolve(fn, registry)
        if how.kind == CUSTOM:
            self.dynamic_call(op, kind="call")
            return
        if fn is operator.getitem and self.index_into_outer(op):
            return
        if how.kind == RULE:
            rule = how.rule
            bound = bind_call(rule, op, op.operands)
            if rule.meta.get("sequence") and any(_is_sequence(v) for v in op.operands):
                self.dynamic_call(op, kind="call")  # list/tuple + or *: the sequence rule
            elif bound is not None and _binds_values(rule, bound):
                self.apply_rule(rule, op, bound, op.result)
            else:  # *args rules, or a call spreading *args: bound while running
                self.dynamic_call(op, kind="call")
        elif how.kind == FUNCTION:
            self.user_call(op)
        elif how.kind in (METHOD, RECEIVER, CALLABLE):
            self.dynamic_call(op, kind="call")  # a bound method or callable object: at run time
        elif how.kind == UNKNOWN:
            raise no_rule(fn, op.loc)

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
            if produces_numeric(value):
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
        if self.implicit and fn.__closure__:
            self.dynamic_call(op, kind="call")  # a closure over parameters: its cells' cotangents
            return
        active = tuple(any(self.varied_operand(op.operands[i]) for i in idx) for idx in mapping)
        # the callee's parameters that are known arrays or numbers (False), or not (None)
        kinds = tuple(False if idx and all(op.operands[i].id in self.arrays for i in idx) else None
                      for idx in mapping)
        pullback = self.compiler.pullback_for(fn, active, self.implicit, kinds)
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
            if self.implicit and kind == "call" and isinstance(op.attrs["fn"], types.FunctionType):
                # a function known statically: its captured cells may hold parameters
                self.deposit(self.const(op.attrs["fn"]), call.results[0])

        if g.id in self.maybe_none:
            self.guarded(g, emit_back)
        else:
            emit_back()

    def reads_parameters(self, op: Op) -> bool:
        """In an implicit variant, whether op runs user code that may read parameters."""
        return self.implicit and may_read_parameters(op, self.arrays)

    def adjoint_callv(self, op: Op) -> None:
        if any(self.varied_operand(v) for v in op.operands) or self.reads_parameters(op):
            self.dynamic_call(op, kind="callv")

    def adjoint_method(self, op: Op) -> None:
        if not any(self.varied_operand(v) for v in op.operands) and not self.reads_parameters(op):
            return
        name = op.attrs["name"]
        if op.operands[0].id not in self.arrays:  # not known to be an array: decided by its type
            self.dynamic_call(op, kind="method")
            return
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
        if self.implicit and is_module_data_read(op):  # module.W: a root, like a global
            self.deposit(self.fetch(op.result), self.bar(op.result))
            return
        array = obj.id in self.arrays  # otherwise its type decides, at run time
        if not self.varied_operand(obj) or array and attribute_is_nondifferentiable(name):
            return
        rule = registry.attr_rule(np.ndarray, name) if array else None
        if rule is not None:
            self.apply_rule(rule, op, {"self": obj}, op.result)
            return
        g = self.bar(op.result)
        part = self.call(dispatch.attribute_cotangent, self.fetch(obj), self.const(name), g,
                         expr="_zp_attribute_cotangent")
        self.maybe_none.add(part.id)
        self.accumulate(obj, part)


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
