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

import functools
import operator
import types

import numpy as np

from ...analysis.activity import attribute_is_nondifferentiable, object_operator
from ...calls import dispatch
from ...errors import NoDerivativeRule
from ...analysis.complexity import is_complex_constant
from ...analysis.receivers import decided_by_operands
from ...analysis.scalars import int_indices
from ...ir.core import Op, Value, is_inside, value_block
from ...ir.purity import is_pure
from ...resolve import (CALLABLE, CONSTRUCT, CUSTOM, FUNCTION, METHOD, NONDIFF, RECEIVER, RECORD,
                        RULE, UNKNOWN, no_rule, resolve)
from ...rules import registry
from ...runtime import helpers as runtime
from ...runtime.built_objects import check_underived_argument, is_dataclass_init
from ...runtime.complex_guard import VARY_ON_COMPLEX, refuse_complex
from ..splice import COTANGENT, OUTPUT, Splice, bind_call
from ..values import produces_numeric
from .adjoint import AdjointBuilder, adjoint_of, inside_loop
from .callees import CalleeRef, bind_parameters, callee_kind
from .control import guarded
from .objects import adjoint_object_call, effect_guarded


@adjoint_of("call")
def adjoint_call(builder: AdjointBuilder, op: Op) -> None:
    fn = op.attrs["fn"]
    if adjoint_object_call(builder, op):  # a write into an object, super()
        return
    if not any(builder.varied_operand(v) for v in op.operands) \
            and not reads_parameters(builder, op) and id(op) not in builder.effectful:
        return
    how = resolve(fn, registry)
    if builder.bar(op.result) is None:  # an op whose back runs regardless (objects.py)
        if how.kind == FUNCTION:
            user_call(builder, op)
        else:
            dynamic_call(builder, op, kind="call")
        return
    if how.kind == CUSTOM:  # @zp.adjoint comes first
        dynamic_call(builder, op, kind="call")
        return
    if fn is operator.getitem and index_into_outer(builder, op):
        return
    if how.kind == RULE and decided_by_operands(fn) and \
            not all(v.id in builder.plain for v in _deciding_operands(fn, op)):
        # an operand that may be an object: its own methods may take the call over
        # (Python's operator protocol, np.sum(obj) calling obj.sum()): decided while running
        bound = bind_call(how.rule, op, op.operands)
        if bound is not None:  # where the rule applies, an active underived argument is
            # refused here, from activity (the dispatcher cannot tell a constant array apart)
            refuse_active_nondiff(builder, how.rule, op, bound, options=False)
        dynamic_call(builder, op, kind="call")
    elif how.kind == RULE:
        rule = how.rule
        bound = bind_call(rule, op, op.operands)
        if (rule.meta.get("sequence") or rule.takes_array_likes) and \
                any(_is_sequence(v) or v.id in builder.sequences for v in op.operands):
            # list/tuple + or *: the sequence rule; a list given to a ufunc: NumPy's array
            # of it, which run-time dispatch hands the rule (Rule.takes_array_likes)
            dynamic_call(builder, op, kind="call")
        elif bound is not None and _binds_values(rule, bound):
            apply_rule(builder, rule, op, bound, op.result)
        elif operand_cotangents(builder, rule, op):
            pass  # np.einsum with constant subscripts: one helper per active operand
        else:  # *args rules, or a call spreading *args: bound while running
            refuse_active_nondiff(builder, rule, op, _keyword_operands(op))
            dynamic_call(builder, op, kind="call")
    elif how.kind == NONDIFF and object_operator(fn, op, builder.plain):
        dynamic_call(builder, op, kind="call")  # `obj // 2`: the object's method, while running
    elif how.kind == NONDIFF:
        if fn in VARY_ON_COMPLEX:  # np.sign(z) of a complex z does vary: refuse it there
            guard_complex(builder, registry.qualified_name(fn), op.operands)
    elif how.kind == FUNCTION:
        user_call(builder, op)
    elif how.kind in (METHOD, RECEIVER, CALLABLE, RECORD, CONSTRUCT) or _resolved_while_running(fn):
        if how.kind == RECEIVER:  # a method rule's active underived argument: refused here
            refuse_underived_of_receiver(builder, how.receiver, how.name, op, op.operands)
        dynamic_call(builder, op, kind="call")  # a bound method or callable object: at run time
    elif how.kind == UNKNOWN:
        if builder.scope.kind == "root":  # it runs whenever the function does: refused
            raise no_rule(fn, op.loc)     # before anything runs
        # in a branch or loop: decided when the call runs, from its real arguments
        # (dispatch.call refuses one that carries a derivative), so that a branch that
        # does not run, or runs with constants, compiles
        dynamic_call(builder, op, kind="call")


# The keywords a per-operand cotangent may see given: they change how the primal
# computes, not what (np.einsum's contraction order).
_ORDER_ONLY_KEYWORDS = frozenset({"optimize"})


def operand_cotangents(builder: AdjointBuilder, rule, op: Op) -> bool:
    """A call of a `*operands` rule with a per-operand helper (meta `operand_cotangent`):
    np.einsum("ij,jk->ik", a, b) with its subscripts a constant string and its operands
    passed one by one.  The adjoint calls `helper(g, k, subscripts, *operands)` for each
    active operand k alone, instead of dispatching the rule while running (which binds its
    signature and computes every operand's cotangent, a constant's too).  False (nothing
    emitted) for any other form: a spread `*args`, other keywords, a subscripts value
    known only while running, the sublist form, or operands that may be complex where the
    rule is not right as written for complex values."""
    helper = rule.meta.get("operand_cotangent")
    kw = op.attrs.get("kw", ())
    if helper is None or op.attrs.get("star") or any(k not in _ORDER_ONLY_KEYWORDS for k in kw):
        return False
    positional = op.operands[:len(op.operands) - len(kw)]
    head = positional[0].defining_op if positional else None
    if head is None or head.opcode != "const" or type(head.attrs["value"]) is not str:
        return False
    subscripts, operands = head.attrs["value"], positional[1:]
    if not operands or not all(v.id in builder.arrays for v in operands):
        return False  # a list operand, or an object: its cotangent's form is decided while running
    if (any(v.id in builder.maybe_complex for v in operands)
            or any(is_complex_constant(v) for v in operands)) and registry.for_complex(rule) is not rule:
        return False  # a complex variant of the rule, or a refusal: decided while running
    refuse_active_nondiff(builder, rule, op, _keyword_operands(op))
    g = builder.bar(op.result)

    def emit() -> None:
        fetched = [builder.fetch(v) for v in operands]
        for k, copies in _interchangeable_operands(subscripts, operands):
            if not builder.varied_operand(operands[k]):
                continue
            part = builder.call(helper, g, builder.const(k), builder.const(subscripts), *fetched,
                                expr="_zp_" + helper.__name__)
            if copies > 1:  # einsum("ijk,ijk->ij", d, d): d's two cotangents are equal
                part = builder.call(operator.mul, part, builder.const(copies))
            builder.numeric.add(part.id)  # always an array, never None
            builder.accumulate(operands[k], part)

    if g.id in builder.maybe_none:
        guarded(builder, g, emit)
    else:
        emit()
    return True


def _interchangeable_operands(subscripts: str, operands) -> list[tuple[int, int]]:
    """(k, copies) per distinct operand of einsum(subscripts, *operands): operands that are
    the same value with the same subscript letters can be swapped without changing the
    einsum, so their cotangents are equal, and one is computed and counted `copies` times."""
    specs = subscripts.replace(" ", "").split("->")[0].split(",")
    if len(specs) != len(operands):  # NumPy will refuse it while running
        return [(k, 1) for k in range(len(operands))]
    first: dict = {}
    for k, (value, spec) in enumerate(zip(operands, specs)):
        first.setdefault((value.id, spec), []).append(k)
    return [(ks[0], len(ks)) for ks in first.values()]


def _resolved_while_running(fn) -> bool:
    """Callables the run-time dispatcher sees through (calls/dispatch.py: call): a
    bound method of a Python function (a class method), a functools.partial, an
    lru_cache wrapper."""
    if isinstance(fn, types.MethodType):
        return isinstance(fn.__func__, types.FunctionType)
    return isinstance(fn, functools.partial) or type(fn) is dispatch.LRU_WRAPPER


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
    inline = _adds_inline(builder, op)

    def add_in():
        key = builder.index_key(container, scope.fwd_region.parent)
        if inline and builder.bar(key) is None:
            _allocate_before(builder, scope, key, container)
        acc = builder.bar_for_update(key)
        if inline and acc is not None and acc.id not in builder.maybe_none:
            # `x_bar[i] += g` into the array allocated before the loop, which only these
            # statements and accum_index touch until the loop ends
            # a gradient's seed is a real number, so its cotangents are real here; a
            # pullback's seed may be complex: the statement takes the real part
            add = runtime.add_into_item if builder.real_seed else runtime.add_real_into_item
            builder.call(add, acc, builder.fetch(index), g, expr="_zp_" + add.__name__)
            if (key, container) not in scope.index_keys:
                scope.index_keys.append((key, container))
            return
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


def _adds_inline(builder: AdjointBuilder, op: Op) -> bool:
    """Whether the cotangent of `x[i]` (x from outside the loop) is added into x's loop
    accumulator inline, `x_bar[i] += g`, instead of by accum_index: x is a parameter
    (read directly where the accumulator is allocated) proven an exact real float ndarray (the array kind in the cache key), the index is
    one certain int per dimension (so `x[i]` is a number: analysis/scalars.py), nothing
    in the function may be complex (its rules' cotangents then stay real; a pullback's
    complex seed is met by `.real` in the statement, as accum_index takes np.real), and
    the gradient is not compiled to be differentiated again (the statement has no rule
    of its own)."""
    container, index = op.operands
    ndim = builder.float_arrays.get(container.id)
    return ndim is not None and any(container is p for p in builder.fn.params) \
        and builder.plan.fused_writes and not builder.maybe_complex \
        and op.result.id in builder.scalars and int_indices(index, ndim)


def _allocate_before(builder: AdjointBuilder, scope, key: Value, container: Value) -> None:
    """The accumulator of key, zeros allocated just before the backward loop of scope (in
    the block holding it), as key's cotangent there: the loop carries it from the start."""
    loop_op = scope.loop_op
    parent_block = loop_op.block
    with builder.ir.at(parent_block, parent_block.ops.index(loop_op)), builder.ir.at_loc(None):
        zeros = builder.call(runtime.index_accumulator, container, expr="_zp_index_accumulator",
                             hint=(container.hint or "v") + "_bar")
    builder.numeric.add(zeros.id)
    scope.parent.bars[key.id] = zeros
    scope.parent.primals[key.id] = key


def apply_rule(builder: AdjointBuilder, rule, op: Op, bound: dict, result: Value,
               self_value=None) -> None:
    refuse_active_nondiff(builder, rule, op, bound)
    needed = [n for n in rule.diff if n in bound and isinstance(bound[n], Value)
              and builder.varied_operand(bound[n])]
    if not needed:
        return
    operands = _bound_values(bound)
    if any(v.id in builder.maybe_complex for v in operands) or any(
            is_complex_constant(v) for v in bound.values() if not isinstance(v, Value)):
        complex_rule = registry.for_complex(rule)
        if complex_rule is None:  # real-only: refuse a complex operand while running
            guard_complex(builder, rule.qualname, operands)
        else:
            rule = complex_rule
    g = builder.bar(result)
    if g.id in builder.maybe_none:
        guarded(builder, g, lambda: _apply_rule(builder, rule, bound, result, needed, g))
    else:
        _apply_rule(builder, rule, bound, result, needed, g)


def refuse_active_nondiff(builder: AdjointBuilder, rule, op: Op, bound: dict,
                          options: bool = True) -> None:
    """An active argument the rule gives no cotangent for would be a silent zero: refuse it.

    A rule names such real-valued parameters in `underived=` (np.interp's knots
    xp, a quantile's q, a norm's ord); decided at transform time from activity,
    an active one raises NoDerivativeRule at the call site.  Index, axis and
    shape parameters are not listed: their derivative is zero where it exists.
    Options the rule has no derivative for at all (`where=` of np.max,
    np.interp's period=) are named in `unsupported=` and refused when given (unless
    options is False: a call dispatched while running, where an object's own method may
    take the option, and the dispatcher refuses it when the rule applies).
    """
    builder.reads.check_rule_call(rule, op)  # the Params variant refuses some (reads.py)
    for name in rule.meta.get("unsupported", ()) if options else ():  # no derivative for it
        value = bound.get(name)
        given = value.defining_op is None or value.defining_op.opcode != "const" or \
            value.defining_op.attrs["value"] is not None if isinstance(value, Value) else False
        if given:
            raise NoDerivativeRule(
                f"the rule for {rule.qualname} has no derivative with {name}= given", op.loc,
                f"write the computation without {name}=, or register a rule with @zp.adjoint")
    for name in rule.meta.get("underived", ()):
        value = bound.get(name)
        items = value.values() if isinstance(value, dict) else \
            value if isinstance(value, tuple) else (value,)
        varied = [item for item in items if isinstance(item, Value) and builder.varied_operand(item)]
        if varied and all(item.id in builder.weakly_varied for item in varied):
            for item in varied:  # may carry a derivative only through an object written here
                builder.call(check_underived_argument, builder.fetch(item),
                             builder.const(rule.qualname), builder.const(name),
                             builder.const(op.loc), expr="_zp_check_underived_argument")
            continue
        if varied:
            raise NoDerivativeRule(
                f"the rule for {rule.qualname} has no derivative with respect to its argument "
                f"{name!r}, which depends on the inputs here", op.loc,
                "wrap that argument in zp.stop_gradient(...) if no derivative is wanted "
                "through it, or register a rule with @zp.adjoint that differentiates it")


def _may_be_none(value: Value) -> bool:
    """A spliced rule's output that a branch of the rule may return as None (zero):
    an `if` result, or an item of one (a rule returning a tuple from its branches,
    as power does for an exponent that is 0 only at run time)."""
    op = value.defining_op
    if op is not None and op.opcode == "call" and op.attrs["fn"] is operator.getitem:
        op = op.operands[0].defining_op
    return op is not None and op.opcode in ("if", "callv")


def _keyword_operands(op: Op) -> dict:
    """The operands a call passes by keyword, by name (what is known before it runs)."""
    kw = op.attrs.get("kw", ())
    operands = op.operands[len(op.operands) - len(kw):]
    return {name: value for name, value in zip(kw, operands) if name is not None}


def _apply_rule(builder: AdjointBuilder, rule, bound, result, needed, g) -> None:
    twins = _twin_arguments(rule, bound, needed)
    if twins:  # x * x: the cotangent through b equals the one through a; one of them, twice
        needed = [n for n in needed if n != twins[1]]
    splice = Splice(rule, bound, needed, builder.scalars, result.id in builder.scalars,
                    builder.shapes.get(result.id), builder.shapes)
    values = {COTANGENT: g}
    for name in splice.used_params:
        if name == COTANGENT or name not in splice.unbound:
            continue
        if name == OUTPUT:
            values[OUTPUT] = builder.fetch(result)
        elif name in bound and isinstance(bound[name], Value):
            fetch = builder.fetch_shape if name in splice.shape_only else builder.fetch
            values[name] = fetch(bound[name])
        elif isinstance(bound.get(name), tuple) and \
                any(isinstance(item, Value) for item in bound[name]):
            # a *args tuple of the call's values (x.transpose(k, 0, 1)): a tuple of them,
            # never a constant holding IR values
            items = [builder.fetch(v) if isinstance(v, Value) else builder.const(v)
                     for v in bound[name]]
            values[name] = builder.emit("tuple", items).result
        elif isinstance(bound.get(name), dict) and \
                any(isinstance(item, Value) for item in bound[name].values()):
            pairs = []  # a **kwargs dict of the call's values: keys and values alternate
            for key, item in bound[name].items():
                pairs += [builder.const(key), builder.fetch(item) if isinstance(item, Value)
                          else builder.const(item)]
            values[name] = builder.emit("dict", pairs).result
        else:
            values[name] = builder.const(bound.get(name))
    outputs = splice.place(builder.block, values, builder.current_loc)
    outputs = _reuse_forward_results(builder, splice, values, bound, result, outputs)
    for name, value in outputs.items():
        if twins and name == twins[0]:
            if _may_be_none(value) or _part_of_a_helper_result(value):
                builder.accumulate(bound[name], value)  # counted twice: here and below
                builder.maybe_none.add(value.id)
            else:
                value = builder.call(operator.mul, value, builder.const(2))
        if _may_be_none(value) or _part_of_a_helper_result(value):
            builder.maybe_none.add(value.id)
        if produces_numeric(value):
            builder.numeric.add(value.id)
        builder.accumulate(bound[name], value)


# Functions whose value at a number the adjoint of another may need again (cos's adjoint
# needs sin): computed forward once, read back rather than computed again.
_REUSABLE = frozenset({np.sin, np.cos, np.exp, np.tanh, np.sinh, np.cosh, np.sqrt, np.log})


def _reuse_forward_results(builder: AdjointBuilder, splice, values: dict, bound: dict,
                           result: Value, outputs: dict) -> dict:
    """`np.sin(x)` in a spliced rule (cos's adjoint) where the forward computes `np.sin(x)`
    of the same x in the same block: read the forward's value instead of computing it
    again (the forward's op runs whenever the op being differentiated does).

    - x a number: anywhere, a tape slot in a loop (a float a step);
    - x an exact real float ndarray (`builder.shapes`: made from the arguments by NumPy's
      own elementwise functions, so `np.sin` is NumPy's ufunc, whose result depends on x
      alone) outside loops: one array kept from the forward to the adjoint, where
      computing it again would allocate one of the same size.  Not in a loop, where
      keeping it would take a tape slot of an array a step: memory growing with the
      trip count, for a pass the adjoint can make again.  And only where the forward
      cannot change the kept array (`_forward_cannot_write`).

    Never where the function writes in place (builder.restoring)."""
    primal_op = result.defining_op
    if builder.restoring or primal_op is None or primal_op.block is None:
        return outputs
    primal_of = {values[name].id: bound[name] for name in values
                 if name in bound and isinstance(bound[name], Value)}
    mapping: dict[int, Value] = {}
    for op in list(splice.ops):
        if op.opcode != "call" or op.attrs["fn"] not in _REUSABLE or len(op.operands) != 1 \
                or op.attrs.get("kw") or op.attrs.get("star") or op.regions:
            continue
        primal = primal_of.get(op.operands[0].id)
        if primal is None or not (primal.id in builder.scalars
                                  or _array_kept_whole(builder, primal, primal_op)):
            continue
        same = next((other for other in primal_op.block.ops
                     if other.opcode == "call" and other.attrs["fn"] is op.attrs["fn"]
                     and len(other.operands) == 1 and other.operands[0] is primal
                     and not other.attrs.get("kw") and not other.attrs.get("star")), None)
        if same is None:
            continue
        mapping[op.result.id] = builder.fetch(same.result)
        op.block.ops.remove(op)
        splice.ops.remove(op)
    if not mapping:
        return outputs
    for op in splice.ops:
        op.operands = [mapping.get(v.id, v) for v in op.operands]
        for region in op.regions:
            for inner in region.walk():
                inner.operands = [mapping.get(v.id, v) for v in inner.operands]
    return {k: mapping.get(v.id, v) for k, v in outputs.items()}


def _array_kept_whole(builder: AdjointBuilder, primal: Value, primal_op: Op) -> bool:
    """Whether a ufunc's result of the array primal may be read back from the forward (see
    _reuse_forward_results): primal an exact real float ndarray, outside loops, in a
    forward that cannot change an array behind the compiler's back."""
    if primal.id not in builder.shapes or inside_loop(primal_op.block):
        return False
    if builder.forward_cannot_write is None:
        builder.forward_cannot_write = _forward_cannot_write(builder.fn)
    return builder.forward_cannot_write


# ops of a forward that cannot write into an array: a call must be pure besides (is_pure:
# no random, no print, no user function, whose writes ad/reverse/writes.py sees only
# where it knows them); method calls, calls of values and pullback calls may do anything
# (a branch or loop op itself writes nothing: fn.walk() visits the ops in its regions)
_INERT_OPCODES = frozenset({"const", "global", "cell", "tuple", "list", "dict", "unpack",
                            "getattr", "if", "for", "while", "yield", "return", "assert",
                            "raise", "undef"})


def _forward_cannot_write(fn) -> bool:
    """Whether no op of the forward fn can write into an array: every call pure, and no
    op that runs code the compiler does not see (ad/reverse/writes.py handles the writes
    it sees; a function with one never reuses an array: builder.restoring)."""
    return all(op.opcode in _INERT_OPCODES or op.opcode == "call" and is_pure(op)
               for op in fn.walk())


def _twin_arguments(rule, bound: dict, needed: list[str]) -> tuple[str, str] | None:
    """(a, b) where the rule declares its cotangents through a and b equal whenever a and b
    are the same value (meta `symmetric`: + and *), and the call passes one value as both."""
    pair = rule.meta.get("symmetric")
    if not pair or not all(name in needed for name in pair):
        return None
    first, second = bound[pair[0]], bound[pair[1]]
    return pair if isinstance(first, Value) and first is second else None


def _bound_values(bound: dict) -> list[Value]:
    """The IR values bound to a rule's parameters (inside *args tuples too)."""
    out = []
    for value in bound.values():
        if isinstance(value, Value):
            out.append(value)
        elif isinstance(value, (tuple, list)):
            out.extend(v for v in value if isinstance(v, Value))
        elif isinstance(value, dict):
            out.extend(v for v in value.values() if isinstance(v, Value))
    return out


def guard_complex(builder: AdjointBuilder, qualname: str, operands) -> None:
    """`_zp_refuse_complex(name, loc, *operands)` in the backward, for the operands that
    may be complex: a real-only rule (or a function registered as having no derivative,
    which a complex value does vary) must not meet a complex value."""
    suspects = [builder.fetch(v) for v in operands if v.id in builder.maybe_complex]
    if suspects:
        builder.call(refuse_complex, builder.const(qualname), builder.const(builder.current_loc),
                     *suspects, expr="_zp_refuse_complex")


def _part_of_a_helper_result(value: Value) -> bool:
    """`helper(...)[i]`: one cotangent of several that a rule's helper returned, which
    may be None (zero) at run time, as helpers return a zero part."""
    op = value.defining_op
    if op is None or op.opcode != "call" or op.attrs.get("fn") is not operator.getitem:
        return False
    source = op.operands[0].defining_op
    return source is not None and source.opcode == "call" and \
        getattr(source.attrs.get("fn"), "__module__", "").startswith("zygote_py.rules.")


def user_call(builder: AdjointBuilder, op: Op) -> None:
    """A call of a Python function with source: call its pullback instead."""
    fn = op.attrs["fn"]
    if op.attrs.get("star") or None in op.attrs.get("kw", ()) or is_dataclass_init(fn):
        dynamic_call(builder, op, kind="call")  # (a dataclass's __init__ has no source)
        return
    mapping = bind_parameters(fn, op, builder.current_loc)
    if any(len(indices) > 1 for indices in mapping) or _has_var_params(fn):
        dynamic_call(builder, op, kind="call")  # *args/**kwargs parameters: bound at run time
        return
    if builder.reads.calls_through_dispatch(fn):
        dynamic_call(builder, op, kind="call")  # a closure over parameters: its cells' cotangents
        return
    active = tuple(any(builder.varied_operand(op.operands[i]) for i in idx) for idx in mapping)
    # per callee parameter: a known array or number (False), a list or tuple of them
    # (ITEMS) or not (None), and whether it may receive complex values (COMPLEX, HOLDS_COMPLEX)
    kinds = tuple(callee_kind(builder, op, idx) for idx in mapping)
    callee = CalleeRef(fn, active, builder.reads.implicit, kinds)  # compiled by the driver, afterwards
    if callee not in builder.callees:
        builder.callees.append(callee)
    back = builder.plan.call_with_back(op, "call_pb",
                                       dict(op.attrs, callee=callee, pb_expr=callee.expr))
    g = _cotangent_or_none(builder, op)

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

    if id(op) in builder.effectful:  # its back may write or build objects (objects.py)
        effect_guarded(builder, op, back, g, emit_back)
    elif g.id in builder.maybe_none:
        guarded(builder, g, emit_back)
    else:
        emit_back()


def dynamic_call(builder: AdjointBuilder, op: Op, kind: str) -> None:
    """A call resolved only at run time: `y, back = _zp_call(f, args, kwargs)`."""
    back = builder.plan.call_with_back(op, "dyncall", dict(op.attrs, dyn_kind=kind))
    g = _cotangent_or_none(builder, op)
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

    if id(op) in builder.effectful:  # its back may write or build objects (objects.py)
        effect_guarded(builder, op, back, g, emit_back)
    elif g.id in builder.maybe_none:
        guarded(builder, g, emit_back)
    else:
        emit_back()


def _cotangent_or_none(builder: AdjointBuilder, op: Op):
    """The cotangent of op's result; for an op whose back runs regardless (objects.py)
    and which no cotangent reaches, a None constant."""
    g = builder.bar(op.result)
    if g is None and id(op) in builder.effectful:
        g = builder.const(None)
        builder.maybe_none.add(g.id)
    return g


def reads_parameters(builder: AdjointBuilder, op: Op) -> bool:
    """Whether op runs user code that may read parameters (implicit variants only)."""
    return builder.reads.may_read_parameters(op, builder.arrays)


@adjoint_of("callv")
def adjoint_callv(builder: AdjointBuilder, op: Op) -> None:
    if any(builder.varied_operand(v) for v in op.operands) or reads_parameters(builder, op) \
            or id(op) in builder.effectful:
        dynamic_call(builder, op, kind="callv")


@adjoint_of("method")
def adjoint_method(builder: AdjointBuilder, op: Op) -> None:
    if not any(builder.varied_operand(v) for v in op.operands) \
            and not reads_parameters(builder, op) and id(op) not in builder.effectful:
        return
    name = op.attrs["name"]
    if op.operands[0].id not in builder.arrays:  # not known to be an array: decided by its type
        receiver = known_receiver(builder, op.operands[0])
        if receiver is not _UNKNOWN:
            refuse_underived_of_receiver(builder, receiver, name, op, op.operands, offset=1)
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


_UNKNOWN = object()


def known_receiver(builder: AdjointBuilder, value: Value):
    """The object a method call's receiver is while transforming, where that is certain
    enough to refuse with: a constant, a module's attribute (`stats.t`), a module global
    (`from scipy.stats import t`) or a closure variable, read now.  Only used to refuse an active underived
    argument early; what the call means is still decided while running, from the object."""
    op = value.defining_op
    if op is None:
        return _UNKNOWN
    if op.opcode == "const":
        return op.attrs["value"]
    if op.opcode == "getattr":
        owner = op.operands[0].defining_op
        if owner is not None and owner.opcode == "const" and \
                isinstance(owner.attrs["value"], types.ModuleType):
            return getattr(owner.attrs["value"], op.attrs["name"], _UNKNOWN)
    pyfn = builder.fn.meta.get("pyfn")
    if op.opcode == "global":
        namespace = getattr(pyfn, "__globals__", None) or {}
        return namespace.get(op.attrs["name"], _UNKNOWN)
    if op.opcode == "cell":  # a closure variable (`from scipy.stats import t` in the outer function)
        code, cells = getattr(pyfn, "__code__", None), getattr(pyfn, "__closure__", None) or ()
        if code is not None and op.attrs.get("name") in code.co_freevars:
            try:
                return cells[code.co_freevars.index(op.attrs["name"])].cell_contents
            except (IndexError, ValueError):
                return _UNKNOWN
    return _UNKNOWN


def refuse_underived_of_receiver(builder: AdjointBuilder, receiver, name: str, op: Op,
                                 operands, offset: int = 0) -> None:
    """receiver.name(...) has a method rule for the receiver's type that names underived
    arguments (scipy.stats.t.cdf's df): an active one is refused at the call, from activity
    (the run-time dispatcher applies the rule and cannot tell a constant from an active value).
    `offset` skips the operands that are not arguments (a method op's receiver)."""
    try:
        rule = registry.method_rule(type(receiver), name)
    except TypeError:
        return
    if rule is None or not rule.meta.get("underived"):
        return
    bound = bind_call(rule, op, [None, *operands[offset:]])
    if bound is not None:
        refuse_active_nondiff(builder, rule, op, bound, options=False)


@adjoint_of("getattr")
def adjoint_getattr(builder: AdjointBuilder, op: Op) -> None:
    obj = op.operands[0]
    name = op.attrs["name"]
    if builder.reads.adjoint_read(builder, op):  # module.W in an implicit variant: a root
        return
    array = obj.id in builder.arrays  # otherwise its type decides, at run time
    if array and attribute_is_nondifferentiable(name):
        return
    if not builder.varied_operand(obj):
        if not array and builder.bar(op.result) is not None:
            # an object that came in inactive but was written in this call since: the
            # derivative goes to its ledger slot (ad/reverse/objects.py: object_reads)
            builder.call(dispatch.attribute_cotangent, builder.fetch(obj), builder.const(name),
                         builder.bar(op.result), expr="_zp_attribute_cotangent")
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


def _is_sequence(value: Value, depth: int = 8) -> bool:
    """Statically a list or tuple (a literal, a comprehension, or updates of one; a slice
    of one, `p[::-1]`; a concatenation of two, `p + q`)."""
    op = value.defining_op
    if op is None or depth <= 0:
        return False
    if op.opcode in ("tuple", "list", "append", "extend"):
        return True
    if op.opcode == "call" and len(op.operands) == 2:
        fn, (a, b) = op.attrs.get("fn"), op.operands
        if fn is operator.getitem:
            index = b.defining_op
            sliced = index is not None and index.opcode == "const" and isinstance(index.attrs["value"], slice)
            return sliced and _is_sequence(a, depth - 1)
        if fn is operator.add:
            return _is_sequence(a, depth - 1) and _is_sequence(b, depth - 1)
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
