"""Calls that can only be resolved while running.

The compiler resolves most callees when it transforms a function.  When the
callee is a value (a method of an object, a function passed in, a callable
object, a custom rule) or the call passes `*args`/`**kwargs`, the generated
code calls `call(f, operands, spec, loc)`, where `spec[i]` says how operand
i is passed: None (positional), '*' (unpacked), '**' (unpacked mapping) or a
keyword name.  It returns `(y, back)`; `back(g)` returns one cotangent per
operand, preceded by the callee's own (a dict for a callable object, the
`self` of a bound method), so the caller can add them where they belong.

Resolution order: a user-defined adjoint, a registered rule, a function known
to be non-differentiable, a Python function with source (transformed and
cached like any other), a bound method or callable object of such a function.
Anything else called with an active argument is a NoDerivativeRule naming the
call site -- never a silently zero gradient.

The compiler that builds those pullbacks, and whether they are built in their
implicit (Params) variant, come from the current Context (context.py), which
api.py sets around every gradient call; so does the list of observers told
what each call resolved to (aot/record.py records standalone modules so).
"""

from __future__ import annotations

import inspect
import types

import numpy as np

from .. import context
from ..errors import NoDerivativeRule, ZygoteError
from ..kinds import is_active, scalar_kinds
from ..rules import registry
from ..tree import LIST, keyed_cotangent, kind_of, zeros_like
from .library_code import restated_at_call
from .objects import class_property


def _pullback_entry(f, active: tuple, cells: tuple, scalars: tuple):
    """The compiled pullback of f from the current Context's compiler, in the implicit
    variant inside a Params call; the Context's observers are told of it."""
    ctx = context.current()
    if ctx.compiler is None:
        raise ZygoteError("generated code ran outside a gradient call, so it has no compiler for "
                          f"{getattr(f, '__name__', f)!r}",
                          hint="call compiled code through zp.gradient / zp.pullback, or inside "
                               "zygote_py.context.using(compiler=...)")
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


class _Flat:
    """Operands flattened into (args, kwargs), remembering where each came from; prefix
    (e.g. the `self` of a method) goes first in args and has no operand of its own.
    Standalone modules (`zygote-py grad`) carry a copy of this class."""

    def __init__(self, operands, spec, prefix=()):
        self.args: list = [*prefix]
        self.kwargs: dict = {}
        self.origin = []
        for value, how in zip(operands, spec):
            if how is None:
                self.origin.append(("pos", len(self.args)))
                self.args.append(value)
            elif how == "*":
                items = tuple(value)
                self.origin.append(("star", len(self.args), len(items), value))
                self.args.extend(items)
            elif how == "**":
                self.origin.append(("dstar", list(value.keys()), value))
                self.kwargs.update(value)
            else:
                self.origin.append(("kw", how))
                self.kwargs[how] = value

    @classmethod
    def prefixed(cls, prefix: tuple, flat):  # flat: a _Flat (the copy in a module is renamed)
        """prefix + flat's positional arguments, flat's keywords: the call a method or
        callable object really receives (self first)."""
        out = cls((*prefix, *flat.args), [None] * (len(prefix) + len(flat.args)))
        out.kwargs = dict(flat.kwargs)
        return out

    def regroup(self, arg_bars, kw_bars) -> tuple:
        """Cotangents per flattened argument -> cotangents per operand."""
        out = []
        for origin in self.origin:
            kind = origin[0]
            if kind == "pos":
                out.append(arg_bars[origin[1]])
            elif kind == "kw":
                out.append(kw_bars.get(origin[1]))
            elif kind == "star":
                _, start, n, value = origin
                part = list(arg_bars[start:start + n])
                if all(p is None for p in part):
                    out.append(None)
                elif isinstance(value, np.ndarray):
                    out.append(np.stack([zeros_like(value[i]) if p is None else p
                                         for i, p in enumerate(part)]))
                else:  # the internal cotangent of a sequence: a list for a list, else a tuple
                    out.append(list(part) if kind_of(value) == LIST else tuple(part))
            else:
                _, keys, value = origin
                part = {k: kw_bars.get(k) for k in keys}
                out.append(None if all(v is None for v in part.values()) else part)
        return tuple(out)

    def any_active(self) -> bool:
        return any(is_active(a) for a in (*self.args, *self.kwargs.values()))


def _origins(sig: inspect.Signature, flat: _Flat):
    """For each parameter of sig: where its value came from in the flattened call."""
    bound = sig.bind(*range(len(flat.args)), **{k: ("kw", k) for k in flat.kwargs})
    out = {}
    for name, param in sig.parameters.items():
        if name not in bound.arguments:
            continue
        value = bound.arguments[name]
        if param.kind == param.VAR_POSITIONAL:
            out[name] = ("varpos", list(value))
        elif param.kind == param.VAR_KEYWORD:
            out[name] = ("varkw", {k: v[1] for k, v in value.items()})
        elif isinstance(value, tuple):
            out[name] = ("kw", value[1])
        else:
            out[name] = ("pos", value)
    return out


def _spread(origins, bars_by_param: dict, flat: _Flat):
    """Cotangents per parameter -> per flattened argument and keyword."""
    arg_bars = [None] * len(flat.args)
    kw_bars: dict = {}
    for name, origin in origins.items():
        bar = bars_by_param.get(name)
        if bar is None:
            continue
        kind = origin[0]
        if kind == "pos":
            arg_bars[origin[1]] = bar
        elif kind == "kw":
            kw_bars[origin[1]] = bar
        elif kind == "varpos":
            for i, bi in zip(origin[1], bar):
                arg_bars[i] = bi
        else:
            for key, kwname in origin[1].items():
                kw_bars[kwname] = bar.get(key) if isinstance(bar, dict) else None
    return arg_bars, kw_bars


def _rule_pullback(rule, fn_call, flat: _Flat, self_obj=None):
    """(y, back) for a registered rule; back gives (self or callee, per-operand) cotangents."""
    call_args = ((self_obj,) if self_obj is not None else ()) + tuple(flat.args)
    y = fn_call(*flat.args, **flat.kwargs)
    sig = inspect.Signature(list(rule.params))
    bound = sig.bind(*call_args, **flat.kwargs)
    bound.apply_defaults()
    shift = _Flat.prefixed((self_obj,) if self_obj is not None else (), flat)
    origins = _origins(sig, shift)

    vjp = rule.vjp
    if rule.meta.get("sequence") and any(isinstance(a, (list, tuple)) for a in call_args):
        vjp = rule.meta["sequence"]

    def back(g):
        if g is None:
            return (None,) * (1 + len(flat.origin))
        outs = vjp(g, y, *bound.args, **bound.kwargs)
        if len(rule.diff) == 1:
            outs = (outs,)
        arg_bars, kw_bars = _spread(origins, dict(zip(rule.diff, outs)), shift)
        head = arg_bars[0] if self_obj is not None else None
        arg_bars = arg_bars[1:] if self_obj is not None else arg_bars
        return (head, *flat.regroup(arg_bars, kw_bars))

    return y, back


def _function_pullback(f, flat: _Flat, prefix=()):
    """(y, back) for a Python function with source, transformed and cached."""
    # only plain positional operands (a *spread of one item also has one origin per argument,
    # but its cotangent must be regrouped into a sequence)
    plain = all(origin[0] == "pos" for origin in flat.origin)
    if not flat.kwargs and plain and len(flat.origin) == len(flat.args) \
            and _plain_positional(f, len(prefix) + len(flat.args)):
        return _positional_pullback(f, (*prefix, *flat.args))
    sig = inspect.signature(f)
    args = (*prefix, *flat.args)
    bound = sig.bind(*args, **flat.kwargs)
    bound.apply_defaults()
    names = list(sig.parameters)
    values = [bound.arguments.get(n, ()) for n in names]
    active = tuple(is_active(v) for v in values)
    cells = active_cells(f)
    pullback = _pullback_entry(f, active, cells, scalar_kinds(values))
    y, inner = pullback(*args, **flat.kwargs)
    shifted = _Flat.prefixed(prefix, flat)
    origins = _origins(sig, shifted)

    def back(g):
        """(cotangent of the function's captured cells, *prefix, *per operand)."""
        if g is None:
            return (None,) * (1 + len(prefix) + len(flat.origin))
        out = inner(g)
        own = out[-1] if cells else None
        arg_bars, kw_bars = _spread(origins, dict(zip(names, out)), shifted)
        return (own, *arg_bars[:len(prefix)], *flat.regroup(arg_bars[len(prefix):], kw_bars))

    return y, back


def _plain_positional(f, n: int) -> bool:
    """f takes exactly n positional parameters, no *args/**kwargs/keyword-only ones."""
    code = f.__code__
    return code.co_argcount == n and not code.co_kwonlyargcount and not code.co_flags & 0x0C


def _positional_pullback(f, args: tuple):
    """The common case of _function_pullback, without binding a signature: each
    operand is one parameter, in order."""
    cells = active_cells(f)
    active = tuple(is_active(v) for v in args)
    pullback = _pullback_entry(f, active, cells, scalar_kinds(args))
    y, inner = pullback(*args)
    n = len(args)

    def back(g):
        """(cotangent of the function's captured cells, *per operand)."""
        if g is None:
            return (None,) * (1 + n)
        out = inner(g)
        return (out[-1] if cells else None, *out[:n])

    return y, back


def active_cells(f) -> tuple:
    """Names of f's closure cells that hold active values right now."""
    if not f.__closure__:
        return ()
    out = []
    for name, cell in zip(f.__code__.co_freevars, f.__closure__):
        try:
            if is_active(cell.cell_contents):
                out.append(name)
        except ValueError:
            pass
    return tuple(out)


def _zero_back(n):
    return lambda g: (None,) * n


def _no_rule(f, loc):
    name = registry.qualified_name(f)
    return NoDerivativeRule(
        f"no derivative rule for {name}, which is called here with an active argument", loc,
        f"register one with @zp.adjoint({getattr(f, '__name__', 'f')}), or wrap the argument in "
        "zp.stop_gradient(...) if no derivative is wanted through it")


def call(f, operands, spec, loc):
    flat = _Flat(operands, spec)
    n = 1 + len(flat.origin)
    custom = _seen("custom_rule", f, registry.custom_rule(f))
    if custom is not None:
        return _custom(custom, flat)
    rule = _seen("function_rule", f, registry.function_rule(f))
    if rule is not None:
        return _rule_pullback(rule, f, flat)
    if _seen("nondiff", f, registry.is_nondifferentiable(f)):
        return f(*flat.args, **flat.kwargs), _zero_back(n)
    if isinstance(f, types.FunctionType):
        try:
            return _function_pullback(f, flat)
        except ZygoteError as err:  # inside a library function: told at the user's call
            restated = restated_at_call(err, f, registry.qualified_name(f), loc)
            if restated is err:
                raise
            raise restated from None
    if isinstance(f, types.MethodType):
        if isinstance(f.__func__, types.FunctionType):
            y, back = _function_pullback(f.__func__, flat, prefix=(f.__self__,))
            return y, lambda g: back(g)[1:]  # the method's own cotangent is that of self
        return call_method(f.__self__, f.__name__, operands, spec, loc)
    self_obj = getattr(f, "__self__", None)
    if isinstance(f, types.BuiltinMethodType) and self_obj is not None and not isinstance(self_obj, types.ModuleType):
        return call_method(self_obj, f.__name__, operands, spec, loc)
    dunder_call = getattr(type(f), "__call__", None)
    if isinstance(dunder_call, types.FunctionType) and not isinstance(f, type):
        y, back = _function_pullback(dunder_call, flat, prefix=(f,))
        return y, lambda g: back(g)[1:]
    if not flat.any_active():
        return f(*flat.args, **flat.kwargs), _zero_back(n)
    raise _no_rule(f, loc)


def call_method(obj, name, operands, spec, loc):
    """obj.name(*operands): back gives (cotangent of obj, per-operand cotangents)."""
    flat = _Flat(operands, spec)
    n = 1 + len(flat.origin)
    cls = type(obj)
    rule = _seen("method_rule", (cls, name), registry.method_rule(cls, name))
    if rule is None and isinstance(obj, np.generic):
        rule = _seen("method_rule", (np.ndarray, name), registry.method_rule(np.ndarray, name))
    if rule is not None:
        return _rule_pullback(rule, getattr(obj, name), flat, self_obj=obj)
    if _seen("nondiff", (cls, name), registry.method_is_nondifferentiable(cls, name)):
        return getattr(obj, name)(*flat.args, **flat.kwargs), _zero_back(n)
    static = inspect.getattr_static(cls, name, None)
    attrs = getattr(obj, "__dict__", None)
    if attrs is not None and name in attrs and not _is_data_descriptor(static):
        # a callable held by the object (self.activation, a sub-layer): call the value,
        # and its own cotangent is that of the attribute
        y, back = call(attrs[name], operands, spec, loc)

        def attribute_back(g):
            own, *rest = back(g)
            return ({name: own} if own is not None else None, *rest)

        return y, attribute_back
    if isinstance(static, staticmethod):
        y, back = call(static.__func__, operands, spec, loc)
        return y, lambda g: (None, *back(g)[1:])
    if isinstance(static, classmethod):
        y, back = _function_pullback(static.__func__, flat, prefix=(cls,))
        return y, lambda g: (None, *back(g)[2:])
    if isinstance(static, types.FunctionType):
        y, back = _function_pullback(static, flat, prefix=(obj,))
        return y, lambda g: back(g)[1:]
    bound = getattr(obj, name)
    if not is_active(obj) and not flat.any_active():
        return bound(*flat.args, **flat.kwargs), _zero_back(n)
    raise _no_rule(bound, loc)


def _is_data_descriptor(attr) -> bool:
    """A class attribute that takes precedence over the instance's own (a property)."""
    return attr is not None and hasattr(type(attr), "__set__")


def _custom(rule, flat: _Flat):
    y, user_back = rule(*flat.args, **flat.kwargs)

    def back(g):
        if g is None:
            return (None,) * (1 + len(flat.origin))
        bars = user_back(g)
        if not isinstance(bars, tuple):
            bars = (bars,)
        arg_bars = list(bars[:len(flat.args)]) + [None] * (len(flat.args) - len(bars))
        return (None, *flat.regroup(arg_bars, {}))

    return y, back


def attribute_cotangent(obj, name, g):
    """Cotangent of obj from that of obj.name: {name: g}, or through a property's getter."""
    if g is None:
        return None
    prop = class_property(type(obj), name)
    if prop is not None:
        _, back = _function_pullback(prop.fget, _Flat((), ()), prefix=(obj,))
        return back(g)[1]
    return keyed_cotangent(obj, name, g)  # positional for a NamedTuple field

