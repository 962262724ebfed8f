"""Calls that can only be resolved while running.

The compiler resolves most callees when it transforms a function.  When the
callee is a value (a method of an object, a function passed in, a callable
object, a custom rule) or the call passes `*args`/`**kwargs`, the generated
code calls `call(f, operands, spec, loc)`, where `spec[i]` says how operand
i is passed: None (positional), '*' (unpacked), '**' (unpacked mapping) or a
keyword name.  It returns `(y, back)`; `back(g)` returns one cotangent per
operand, preceded by the callee's own (a dict for a callable object, the
`self` of a bound method), so the caller can add them where they belong.

What a callee means is decided by `zygote_py.resolve` (the resolver the static
transform and standalone modules use too); this module turns each kind of
resolution into `(y, back)`.  Anything the resolver cannot place that is
called with an active argument is a NoDerivativeRule naming the call site --
never a silently zero gradient.

The compiler that builds those pullbacks, and whether they are built in their
implicit (Params) variant, come from the current Context (context.py), which
api.py sets around every gradient call; so does the list of observers told
what each call resolved to (aot/record.py records standalone modules so): the
resolver asks the registry through `_ObservedRegistry`, which reports every
lookup that finds something.
"""

from __future__ import annotations

import functools
import inspect
import types

import numpy as np

from .. import context
from ..errors import NoDerivativeRule, ZygoteError
from ..kinds import scalar_kinds
from ..resolve import (ATTRIBUTE, CALLABLE, CLASS, CONSTRUCT, CUSTOM, FUNCTION, METHOD, NONDIFF,
                       OPERATOR_METHODS, PROPERTY, RECEIVER, RECORD, RULE, STATIC,
                       getattr_hook, is_plain_operand, no_rule, numpy_handoff,
                       reads_bound_method, resolve, resolve_attribute, resolve_method)
from ..rules import registry
from ..runtime.built_objects import (construct, dataclass_init, deposit, deposit_whole,
                                     is_dataclass_init, is_tracked, with_effects)
from ..runtime.complex_guard import VARY_ON_COMPLEX, complex_error, is_complex
from ..runtime.containers import refuse_container_update
from ..runtime.library_code import restated_at_call
from ..tree import child_cotangent, keyed_cotangent
from .flat_calls import (_Flat, _origins, _positional_rule, _positional_rule_pullback,
                         _rule_pullback, _spread, carries_derivative)
from .flat_calls import ints_are_reals  # noqa: F401  (standalone modules replace it: aot/builder.py)
from .protocols import call_operator, refuse_numpy_object_operands


def _pullback_entry(f, active: tuple, cells: tuple, scalars: tuple):
    """The compiled pullback of f from the current Context's compiler, in the implicit
    variant inside a Params call; the Context's observers are told of it."""
    ctx = context.current()
    if ctx.compiler is None:
        raise ZygoteError("generated code ran outside a gradient call, so it has no compiler for "
                          f"{getattr(f, '__name__', f)!r}",
                          hint="call compiled code through zp.gradient / zp.pullback, or inside "
                               "zygote_py.context.using(compiler=...)")
    refuse = getattr(ctx.compiler, "refuse_argument_writes", None)
    if refuse is not None:
        refuse(f, scalars)
    if refuse is not None:
        pullback = ctx.compiler.entry(f, active, "pullback", cells, scalars, ctx.implicit,
                                      called=True).fn
    else:
        pullback = ctx.compiler.entry(f, active, "pullback", cells, scalars, ctx.implicit).fn
    for observer in ctx.observers:
        observer.dispatched_pullback(f, active, cells, scalars, pullback)
    return pullback


def _seen(kind: str, key, found):
    """found, after telling the Context's observers what a registry lookup found."""
    if found:
        for observer in context.current().observers:
            observer.dispatched_rule(kind, key, found)
    return found


class _ObservedRegistry:
    """The registry's answers to the resolver's questions, each lookup that finds
    something reported to the Context's observers (`_seen`): what a standalone
    module's tables must hold.  The compiler's own lookups go to the registry
    directly, since their results are already in the generated code."""

    @staticmethod
    def custom_rule(f):
        return _seen("custom_rule", f, registry.custom_rule(f))

    @staticmethod
    def function_rule(f):
        return _seen("function_rule", f, registry.function_rule(f))

    @staticmethod
    def is_nondifferentiable(f):
        return _seen("nondiff", f, registry.is_nondifferentiable(f))

    @staticmethod
    def method_rule(cls, name):
        return _seen("method_rule", (cls, name), registry.method_rule(cls, name))

    @staticmethod
    def method_is_nondifferentiable(cls, name):
        return _seen("nondiff", (cls, name), registry.method_is_nondifferentiable(cls, name))

    @staticmethod
    def attr_rule(cls, name):
        return _seen("attr_rule", (cls, name), registry.attr_rule(cls, name))

    @staticmethod
    def attr_is_nondifferentiable(cls, name):
        return _seen("nondiff_attr", (cls, name), registry.attr_is_nondifferentiable(cls, name))


def _function_pullback(f, flat: _Flat, prefix=()):
    """(y, back) for a Python function with source, transformed and cached."""
    if is_dataclass_init(f):  # a dataclass's generated __init__ has no source: replayed
        return dataclass_init(f, flat, prefix, None, _function_pullback, _origins, _spread)
    # only plain positional operands (a *spread of one item also has one origin per argument,
    # but its cotangent must be regrouped into a sequence)
    plain = all(origin[0] == "pos" for origin in flat.origin)
    if not flat.kwargs and plain and len(flat.origin) == len(flat.args) \
            and _plain_positional(f, len(prefix) + len(flat.args)):
        return _positional_pullback(f, (*prefix, *flat.args))
    sig = inspect.signature(f, follow_wrapped=False)  # f's own parameters (a wrapper's, not the wrapped's)
    args = (*prefix, *flat.args)
    bound = sig.bind(*args, **flat.kwargs)
    bound.apply_defaults()
    names = list(sig.parameters)
    values = [bound.arguments.get(n, ()) for n in names]
    active = tuple(carries_derivative(v) for v in values)
    cells = active_cells(f)
    pullback = _pullback_entry(f, active, cells, scalar_kinds(values))
    y, inner = pullback(*args, **flat.kwargs)
    shifted = _Flat.prefixed(prefix, flat)
    origins = _origins(sig, shifted)

    def back(g):
        """(cotangent of the function's captured cells, *prefix, *per operand)."""
        if g is None and not effects:
            return (None,) * (1 + len(prefix) + len(flat.origin))
        out = inner(g)
        own = out[-1] if cells else None
        arg_bars, kw_bars = _spread(origins, dict(zip(names, out)), shifted)
        return (own, *arg_bars[:len(prefix)], *flat.regroup(arg_bars[len(prefix):], kw_bars))

    effects = getattr(inner, "_zp_effects", False)  # it writes or builds objects (built_objects.py)
    return y, with_effects(back, inner)


def _plain_positional(f, n: int) -> bool:
    """f takes exactly n positional parameters, no *args/**kwargs/keyword-only ones."""
    code = f.__code__
    return code.co_argcount == n and not code.co_kwonlyargcount and not code.co_flags & 0x0C


def _positional_pullback(f, args: tuple):
    """The common case of _function_pullback, without binding a signature: each
    operand is one parameter, in order."""
    cells = active_cells(f)
    active = tuple(carries_derivative(v) for v in args)
    pullback = _pullback_entry(f, active, cells, scalar_kinds(args))
    y, inner = pullback(*args)
    n = len(args)

    def back(g):
        """(cotangent of the function's captured cells, *per operand)."""
        if g is None and not effects:
            return (None,) * (1 + n)
        out = inner(g)
        return (out[-1] if cells else None, *out[:n])

    effects = getattr(inner, "_zp_effects", False)
    return y, with_effects(back, inner)


def active_cells(f) -> tuple:
    """Names of f's closure cells that hold active values right now."""
    if not f.__closure__:
        return ()
    out = []
    for name, cell in zip(f.__code__.co_freevars, f.__closure__):
        try:
            if carries_derivative(cell.cell_contents):
                out.append(name)
        except ValueError:
            pass
    return tuple(out)


LRU_WRAPPER = type(functools.lru_cache(maxsize=None)(lambda: None))


def _zero_back(n):
    return lambda g: (None,) * n


def call(f, operands, spec, loc):
    if all(how is None for how in spec) and all(map(is_plain_operand, operands)):
        # the common case (an operator or a NumPy function on arrays the compiler could
        # not prove to be arrays): no object can take the call over, the rule applies
        how = resolve(f, _ObservedRegistry)
        if how.kind == RULE and _positional_rule(how.rule, operands):
            return _positional_rule_pullback(how.rule, f, tuple(operands))
    flat = _Flat(operands, spec)
    n = 1 + len(flat.origin)
    how = resolve(f, _ObservedRegistry)
    kind = how.kind
    if kind == CUSTOM:
        return _custom(how.rule, flat)
    if kind == RULE:
        decided = _object_operands(f, flat, loc)
        if decided is not None:
            return decided
        if not flat.kwargs and len(flat.args) == n - 1 and _positional_rule(how.rule, flat.args):
            return _positional_rule_pullback(how.rule, f, flat.args)
        return _rule_pullback(how.rule, f, flat, loc)
    if kind == NONDIFF:
        decided = _object_operands(f, flat, loc) if f in OPERATOR_METHODS else None
        if decided is not None:  # `obj // 2`: the object's own method, which may vary
            return decided
        if f in VARY_ON_COMPLEX and flat.any_active() and any(is_complex(a) for a in flat.args):
            raise complex_error(registry.qualified_name(f), loc)
        return f(*flat.args, **flat.kwargs), _zero_back(n)
    if kind == FUNCTION:
        try:
            return _function_pullback(f, flat)
        except ZygoteError as err:  # inside a library function: told at the user's call
            restated = restated_at_call(err, f, registry.qualified_name(f), loc)
            if restated is err:
                raise
            raise restated from None
    if type(f) is LRU_WRAPPER:  # the cache returns what the function computes
        return call(f.__wrapped__, operands, spec, loc)
    if isinstance(f, functools.partial) and isinstance(f.func, types.FunctionType):
        return _partial_pullback(f, flat, loc)
    if kind == METHOD or kind == CALLABLE:
        y, back = _function_pullback(how.function, flat, prefix=(how.receiver,))
        # the callee's own cotangent is that of its receiver
        return y, with_effects(lambda g: back(g)[1:], back)
    if kind == RECEIVER:
        return call_method(how.receiver, how.name, operands, spec, loc)
    if kind == RECORD:
        return _record_pullback(f, flat)
    if kind == CONSTRUCT:
        try:
            return construct(f, flat, loc, _function_pullback, _origins, _spread)
        except ZygoteError as err:  # inside a library class: told at the user's call
            restated = restated_at_call(err, f, registry.qualified_name(f), loc)
            if restated is err:
                raise
            raise restated from None
    if not flat.any_active():
        return f(*flat.args, **flat.kwargs), _zero_back(n)
    raise no_rule(f, loc)


def _partial_pullback(p: functools.partial, flat: _Flat, loc):
    """(y, back) for a call of a functools.partial of a Python function: its bound
    arguments first, its keywords merged.  The partial itself gets no cotangent, so
    bound values that carry a derivative are refused rather than dropped."""
    if any(carries_derivative(v) for v in (p.func, *p.args, *p.keywords.values())):
        raise NoDerivativeRule(
            f"{registry.qualified_name(p.func)} is called through a functools.partial whose "
            "bound arguments carry a derivative", loc,
            "pass those values in the call itself, or use a nested def or lambda")
    flat.kwargs = {**p.keywords, **flat.kwargs}
    y, back = _function_pullback(p.func, flat, prefix=p.args)
    skip = 1 + len(p.args)
    return y, lambda g: (None, *back(g)[skip:])


def _record_pullback(cls, flat: _Flat):
    """(y, back) for constructing a NamedTuple: each field's cotangent goes to the argument
    that filled it."""
    y = cls(*flat.args, **flat.kwargs)
    sig = inspect.signature(cls.__new__)
    shifted = _Flat.prefixed((cls,), flat)
    origins = _origins(sig, shifted)

    def back(g):
        if g is None:
            return (None,) * (1 + len(flat.origin))
        by_field = {name: child_cotangent(g, y, name, i) for i, name in enumerate(cls._fields)}
        arg_bars, kw_bars = _spread(origins, by_field, shifted)
        return (None, *flat.regroup(arg_bars[1:], kw_bars))

    return y, back


def _object_operands(f, flat: _Flat, loc):
    """(y, back) of f(...) when an operand is an object whose own methods decide what the
    call means (calls/protocols.py): Python's operator protocol, NumPy handing a
    reduction to the object's method; None when f's registered rule applies."""
    if type(f) is types.BuiltinFunctionType and f in OPERATOR_METHODS:
        found = call_operator(f, tuple(flat.args), _method_pullback, carries_derivative,
                              _failure(loc))
        if found is None:
            return None
        y, back = found  # a method that builds or writes objects must keep its mark
        return y, with_effects(lambda g: (None, *flat.regroup(back(g), {})), back)
    if all(map(is_plain_operand, flat.args)) and all(map(is_plain_operand, flat.kwargs.values())):
        return None
    handoff = numpy_handoff(f, tuple(flat.args), flat.kwargs)
    if handoff is not None:
        name, keywords = handoff
        y, back = call_method(flat.args[0], name, tuple(keywords.values()), tuple(keywords), loc)
        rest = [None] * (len(flat.args) - 1)
        return y, lambda g: (None, *flat.regroup([back(g)[0], *rest], {}))
    refuse_numpy_object_operands(f, tuple(flat.args), flat.kwargs, _failure(loc))
    return None


def _method_pullback(method, receiver, others: tuple):
    """(y, back) of method(receiver, *others); back gives the receiver's cotangent, the others'."""
    y, back = _function_pullback(method, _Flat(others, [None] * len(others)), prefix=(receiver,))
    return y, with_effects(lambda g: back(g)[1:], back)


def _failure(loc):
    return lambda message, hint: ZygoteError(message, loc, hint)


def call_method(obj, name, operands, spec, loc):
    """obj.name(*operands): back gives (cotangent of obj, per-operand cotangents)."""
    if type(obj) is super:  # super().name(...): what the MRO after the class gives, bound
        return call(getattr(obj, name), operands, spec, loc)  # its own cotangent: self's
    flat = _Flat(operands, spec)
    n = 1 + len(flat.origin)
    how = resolve_method(obj, name, _ObservedRegistry)
    kind = how.kind
    if kind == RULE:
        refuse_numpy_object_operands(getattr(obj, name), tuple(flat.args), flat.kwargs,
                                     _failure(loc))  # np.add.reduce([obj, obj])
        return _rule_pullback(how.rule, getattr(obj, name), flat, loc, self_obj=obj)
    if kind == NONDIFF:
        return getattr(obj, name)(*flat.args, **flat.kwargs), _zero_back(n)
    if kind == ATTRIBUTE:
        # the held callable's own cotangent is that of the attribute
        y, back = call(how.function, operands, spec, loc)

        def attribute_back(g):
            own, *rest = back(g)
            return (attribute_cotangent_of(obj, name, own), *rest)

        return y, with_effects(attribute_back, back)
    if kind == STATIC:
        y, back = call(how.function, operands, spec, loc)
        return y, with_effects(lambda g: (None, *back(g)[1:]), back)
    if kind == CLASS:
        y, back = _function_pullback(how.function, flat, prefix=(how.receiver,))
        return y, with_effects(lambda g: (None, *back(g)[2:]), back)
    if kind == METHOD:
        y, back = _function_pullback(how.function, flat, prefix=(obj,))
        return y, with_effects(lambda g: back(g)[1:], back)
    bound = getattr(obj, name)
    if not carries_derivative(obj) and not flat.any_active():
        return bound(*flat.args, **flat.kwargs), _zero_back(n)
    refuse_container_update(obj, name, loc)  # self.items.append(v): a MutationError
    raise no_rule(bound, loc)


def _custom(rule, flat: _Flat):
    y, user_back = rule(*flat.args, **flat.kwargs)

    def back(g):
        if g is None:
            return (None,) * (1 + len(flat.origin))
        bars = user_back(g)
        if not isinstance(bars, tuple):
            bars = (bars,)
        arg_bars = list(bars[:len(flat.args)]) + [None] * (len(flat.args) - len(bars))
        for i, arg in enumerate(flat.args):  # an object built in this call: into its slots now
            if arg_bars[i] is not None and is_tracked(arg):
                deposit_whole(arg, arg_bars[i])
                arg_bars[i] = None
        return (None, *flat.regroup(arg_bars, {}))

    return y, back


def attribute_cotangent(obj, name, g):
    """Cotangent of obj from that of obj.name: through the attribute's rule, none for a
    non-differentiable attribute, through a property's getter, g itself for a bound
    method, or {name: g}."""
    if g is None:
        return None
    if type(obj) is super:
        return _super_attribute_cotangent(obj, name, g)
    # uncached: observers (aot/record.py) see every lookup, and a class may change
    how = resolve_attribute(type(obj), name, _ObservedRegistry)
    kind = how.kind
    if kind == RULE:
        return how.rule.vjp(g, getattr(obj, name), obj)
    if kind == NONDIFF:
        return None
    if kind == PROPERTY:
        _, back = _function_pullback(how.function, _Flat((), ()), prefix=(obj,))
        return back(g)[1]
    hook = getattr_hook(obj, name)
    if hook is not None:  # obj.name computed by the class's __getattr__(obj, name)
        _, back = _function_pullback(hook, _Flat((name,), (None,)), prefix=(obj,))
        return back(g)[1]
    if reads_bound_method(obj, name):  # `layer.step` passed on or called as a value
        return g  # a bound method's cotangent is its receiver's (see call: METHOD)
    return attribute_cotangent_of(obj, name, g)


def _super_attribute_cotangent(proxy, name, g):
    """Cotangent of `super()` (that is, of its self) from that of `super().name`: what
    the classes after the method's class in self's MRO define decides, as it does for
    the read.  A property's getter is differentiated, a method's cotangent is its self's,
    a class attribute is a constant."""
    receiver = proxy.__self__
    mro = type(receiver).__mro__
    for klass in mro[mro.index(proxy.__thisclass__) + 1:]:
        if name in vars(klass):
            attr = vars(klass)[name]
            if isinstance(attr, property) and isinstance(attr.fget, types.FunctionType):
                _, back = _function_pullback(attr.fget, _Flat((), ()), prefix=(receiver,))
                return back(g)[1]
            return g if isinstance(attr, types.FunctionType) else None
    return None


def attribute_cotangent_of(obj, name, g):
    """{name: g} as obj's cotangent (positional for a NamedTuple field); for an object
    built in this call, g goes to its ledger slot instead (built_objects.py) and None back."""
    if g is None or deposit(obj, name, g):
        return None
    return keyed_cotangent(obj, name, g)

