"""Adjoints of calls: rules spliced in, user functions through their pullbacks,
calls resolved only at run time through `dispatch`, methods and attributes.

What a callee known at transform time means is asked of the one resolver
(zygote_py/resolve.py), which run-time dispatch and standalone modules ask
too.  For a call with a registered rule, the rule's body is spliced into the
adjoint (see ../splice.py).  A call of a Python function becomes a call of its
pullback, named by a `CalleeRef` that the driver resolves (callees.py).  A
callee that is a value, a custom `@zp.adjoint` rule, a bound method or a
callable object, or a call spreading `*args`/`**kwargs` goes through
`dispatch.call`, whose back returns one cotangent per operand.  A method or
attribute gets the ndarray rule only on a value known to be an array or a
number (`builder.arrays`, analysis/receivers.py); on anything else its type
decides while running.  Each handler is a function of (builder, op); the
builder (adjoint.py) holds the state they share.
"""

from __future__ import annotations

import operator
import types

import numpy as np

from ...analysis.activity import attribute_is_nondifferentiable
from ...analysis.receivers import decided_by_operands
from ...ir.core import Op, Value, is_inside, value_block
from ...kinds import ITEMS
from ...resolve import (
    CALLABLE,
    CUSTOM,
    FUNCTION,
    METHOD,
    RECEIVER,
    RECORD,
    RULE,
    UNKNOWN,
    no_rule,
    resolve,
)
from ...rules import registry
from ...runtime import dispatch
from ...runtime import helpers as runtime
from ..splice import Splice, bind_call
from ..values import produces_numeric
from .adjoint import AdjointBuilder, adjoint_of
from .callees import CalleeRef, bind_parameters
from .control import guarded


@adjoint_of("call")
def adjoint_call(builder: AdjointBuilder, op: Op) -> None:
    fn = op.attrs["fn"]
    if not any(builder.varied_operand(v) for v in op.operands) \
            and not reads_parameters(builder, op):
        return
    how = resolve(fn, registry)
    if how.kind == CUSTOM:  # @zp.adjoint comes first
        dynamic_call(builder, op, kind="call")
        return
    if fn is operator.getitem and index_into_outer(builder, op):
        return
    if how.kind == RULE and decided_by_operands(fn) and \
            not all(v.id in builder.plain for v in _deciding_operands(fn, op)):
        # an operand that may be an object: its own methods may take the call over
        # (Python's operator protocol, np.sum(obj) calling obj.sum()): decided while running
        dynamic_call(builder, op, kind="call")
    elif how.kind == RULE:
        rule = how.rule
        bound = bind_call(rule, op, op.operands)
        if rule.meta.get("sequence") and any(_is_sequence(v) for v in op.operands):
            dynamic_call(builder, op, kind="call")  # list/tuple + or *: the sequence rule
        elif bound is not None and _binds_values(rule, bound):
            apply_rule(builder, rule, op, bound, op.result)
        else:  # *args rules, or a call spreading *args: bound while running
            dynamic_call(builder, op, kind="call")
    elif how.kind == FUNCTION:
        user_call(builder, op)
    elif how.kind in (METHOD, RECEIVER, CALLABLE, RECORD):
        dynamic_call(builder, op, kind="call")  # a bound method or callable object: at run time
    elif how.kind == UNKNOWN:
        raise no_rule(fn, op.loc)


def index_into_outer(builder: AdjointBuilder, op: Op) -> bool:
    """x[i] inside a loop, x from outside it: add into one accumulator of x owned by the
    loop, in place, instead of building a full-size cotangent every iteration."""
    container, index = op.operands
    scope = builder.scope
    while scope is not None and scope.kind != "loop":
        scope = scope.parent
    if scope is None or not builder.varied_operand(container) or \
            is_inside(value_block(container), scope.fwd_region):
        return False
    g = builder.bar(op.result)

    def add_in():
        key = builder.index_key(container, scope.fwd_region.parent)
        acc = builder.bar_for_update(key)
        if acc is None:
            acc = builder.const(None)
        new = builder.call(runtime.accum_index, acc, builder.fetch(container), builder.fetch(index),
                           g, builder.const(False), expr="_zp_accum_index",
                           hint=(container.hint or "v") + "_bar")
        builder.set_bar(key, new)
        if (key, container) not in scope.index_keys:
            scope.index_keys.append((key, container))

    if g.id in builder.maybe_none:
        guarded(builder, g, add_in)
    else:
        add_in()
    return True


def apply_rule(builder: AdjointBuilder, rule, op: Op, bound: dict, result: Value,
               self_value=None) -> None:
    needed = [n for n in rule.diff if n in bound and isinstance(bound[n], Value)
              and builder.varied_operand(bound[n])]
    if not needed:
        return
    g = builder.bar(result)
    if g.id in builder.maybe_none:
        guarded(builder, g, lambda: _apply_rule(builder, rule, bound, result, needed, g))
    else:
        _apply_rule(builder, rule, bound, result, needed, g)


def _apply_rule(builder: AdjointBuilder, rule, bound, result, needed, g) -> None:
    splice = Splice(rule, bound, needed, builder.scalars)
    values = {"g": g}
    for name in splice.used_params:
        if name == "g" or name not in splice.unbound:
            continue
        if name == "y":
            values["y"] = builder.fetch(result)
        elif name in bound and isinstance(bound[name], Value):
            values[name] = builder.fetch(bound[name])
        else:
            values[name] = builder.const(bound.get(name))
    outputs = splice.place(builder.block, values, builder.current_loc)
    for name, value in outputs.items():
        if value.defining_op is not None and value.defining_op.opcode in ("if", "callv", "call") \
                and value.defining_op.opcode != "call":
            builder.maybe_none.add(value.id)
        if produces_numeric(value):
            builder.numeric.add(value.id)
        builder.accumulate(bound[name], value)


def user_call(builder: AdjointBuilder, op: Op) -> None:
    """A call of a Python function with source: call its pullback instead."""
    fn = op.attrs["fn"]
    if op.attrs.get("star") or None in op.attrs.get("kw", ()):
        dynamic_call(builder, op, kind="call")
        return
    mapping = bind_parameters(fn, op, builder.current_loc)
    if any(len(indices) > 1 for indices in mapping) or _has_var_params(fn):
        dynamic_call(builder, op, kind="call")  # *args/**kwargs parameters: bound at run time
        return
    if builder.reads.calls_through_dispatch(fn):
        dynamic_call(builder, op, kind="call")  # a closure over parameters: its cells' cotangents
        return
    active = tuple(any(builder.varied_operand(op.operands[i]) for i in idx) for idx in mapping)
    # the callee's parameters that are known arrays or numbers (False), or not (None)
    kinds = tuple(False if idx and all(op.operands[i].id in builder.arrays for i in idx) else
                  ITEMS if len(idx) == 1 and op.operands[idx[0]].id in builder.sequences else None
                  for idx in mapping)
    # compiled by the driver, afterwards
    callee = CalleeRef(fn, active, builder.reads.implicit, kinds)
    if callee not in builder.callees:
        builder.callees.append(callee)
    back = builder.plan.call_with_back(op, "call_pb",
                                       dict(op.attrs, callee=callee, pb_expr=callee.expr))
    g = builder.bar(op.result)

    def emit_back():
        # the callee's back returns one cotangent per parameter (None where inactive)
        call = builder.emit("call_back", [builder.fetch(back), g], len(mapping))
        for param_index, result in enumerate(call.results):
            if not active[param_index]:
                continue
            builder.maybe_none.add(result.id)
            for operand_index in mapping[param_index]:
                if builder.varied_operand(op.operands[operand_index]):
                    builder.accumulate(op.operands[operand_index], result)

    if g.id in builder.maybe_none:
        guarded(builder, g, emit_back)
    else:
        emit_back()


def dynamic_call(builder: AdjointBuilder, op: Op, kind: str) -> None:
    """A call resolved only at run time: `y, back = _zp_call(f, args, kwargs)`."""
    back = builder.plan.call_with_back(op, "dyncall", dict(op.attrs, dyn_kind=kind))
    g = builder.bar(op.result)
    # back(g) returns cotangents for (callee or self, *args, *kwargs)
    targets = ([None] if kind == "call" else []) + list(op.operands)

    def emit_back():
        call = builder.emit("call_back", [builder.fetch(back), g], len(targets))
        for value, operand in zip(call.results, targets):
            builder.maybe_none.add(value.id)
            if operand is not None and builder.varied_operand(operand):
                builder.accumulate(operand, value)
        if kind == "call" and isinstance(op.attrs["fn"], types.FunctionType):
            # a function known statically: its captured cells may hold parameters
            builder.reads.captured_cotangent(builder, op.attrs["fn"], call.results[0])

    if g.id in builder.maybe_none:
        guarded(builder, g, emit_back)
    else:
        emit_back()


def reads_parameters(builder: AdjointBuilder, op: Op) -> bool:
    """Whether op runs user code that may read parameters (implicit variants only)."""
    return builder.reads.may_read_parameters(op, builder.arrays)


@adjoint_of("callv")
def adjoint_callv(builder: AdjointBuilder, op: Op) -> None:
    if any(builder.varied_operand(v) for v in op.operands) or reads_parameters(builder, op):
        dynamic_call(builder, op, kind="callv")


@adjoint_of("method")
def adjoint_method(builder: AdjointBuilder, op: Op) -> None:
    if not any(builder.varied_operand(v) for v in op.operands) \
            and not reads_parameters(builder, op):
        return
    name = op.attrs["name"]
    if op.operands[0].id not in builder.arrays:  # not known to be an array: decided by its type
        dynamic_call(builder, op, kind="method")
        return
    rule = registry.method_rule(np.ndarray, name)
    if rule is not None:
        bound = bind_call(rule, op, op.operands)
        if bound is not None and _binds_values(rule, bound):
            apply_rule(builder, rule, op, bound, op.result)
            return
    if registry.method_is_nondifferentiable(np.ndarray, name):
        return
    dynamic_call(builder, op, kind="method")


@adjoint_of("getattr")
def adjoint_getattr(builder: AdjointBuilder, op: Op) -> None:
    obj = op.operands[0]
    name = op.attrs["name"]
    if builder.reads.adjoint_read(builder, op):  # module.W in an implicit variant: a root
        return
    array = obj.id in builder.arrays  # otherwise its type decides, at run time
    if not builder.varied_operand(obj) or array and attribute_is_nondifferentiable(name):
        return
    rule = registry.attr_rule(np.ndarray, name) if array else None
    if rule is not None:
        apply_rule(builder, rule, op, {"self": obj}, op.result)
        return
    g = builder.bar(op.result)
    part = builder.call(dispatch.attribute_cotangent, builder.fetch(obj), builder.const(name), g,
                        expr="_zp_attribute_cotangent")
    builder.maybe_none.add(part.id)
    builder.accumulate(obj, part)


def _deciding_operands(fn, op: Op) -> list[Value]:
    """The operands whose types decide what fn does: for x[i], x's alone (its
    __getitem__ makes what it likes of the index)."""
    return op.operands[:1] if fn is operator.getitem else op.operands


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
