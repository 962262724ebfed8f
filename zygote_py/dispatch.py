"""Calls that can only be resolved while running: `y, back = call(f, args, kwargs, loc)`.

The compiler resolves most callees when it transforms a function.  When the
callee is a value (a method of an object, a function passed as an argument, a
callable object, a custom rule) the generated code asks this module.  It
picks, in order: a registered rule, a non-differentiable function, a
user-defined adjoint, or a Python function with source (transformed and
cached like any other); anything else with active arguments is a
`NoDerivativeRule` naming the call site.  `back(g)` returns cotangents for
(the callee itself, *args, *kwargs values).
"""

from __future__ import annotations

import types

import numpy as np

from .errors import NoDerivativeRule
from .rules import registry


def _is_active(x) -> bool:
    from .api import is_active

    return is_active(x)


def _rule_pullback(rule, y, args, kwargs, self_obj=None):
    call_args = ((self_obj,) if self_obj is not None else ()) + tuple(args)
    bound = rule.bind(call_args, kwargs)
    names = list(bound)

    def back(g):
        if g is None:
            return (None,) * (1 + len(args) + len(kwargs))
        outs = rule.vjp(g, y, **bound)
        if len(rule.diff) == 1:
            outs = (outs,)
        by_name = dict(zip(rule.diff, outs))
        result = [by_name.get(names[0]) if self_obj is not None else None]
        offset = 1 if self_obj is not None else 0
        for i in range(len(args)):
            result.append(by_name.get(names[offset + i]))
        for k in kwargs:
            result.append(by_name.get(k))
        return tuple(result)

    return y, back


def _zero_back(n):
    def back(g):
        return (None,) * n

    return back


def call(f, args, kwargs, loc):
    n = 1 + len(args) + len(kwargs)
    custom = getattr(f, "_zp_custom_rule", None)
    if custom is not None:
        y, user_back = custom(*args, **kwargs)

        def back(g):
            bars = user_back(g) if g is not None else None
            if bars is None:
                return (None,) * n
            if not isinstance(bars, tuple):
                bars = (bars,)
            return (None, *bars) + (None,) * (n - 1 - len(bars))

        return y, back
    rule = registry.function_rule(f)
    if rule is not None:
        return _rule_pullback(rule, f(*args, **kwargs), args, kwargs)
    if registry.is_nondifferentiable(f):
        return f(*args, **kwargs), _zero_back(n)
    if isinstance(f, types.MethodType) and isinstance(f.__func__, types.FunctionType):
        y, inner = call(f.__func__, (f.__self__, *args), kwargs, loc)
        return y, lambda g: inner(g)[1:]  # the callee's own cotangent is that of self
    if isinstance(f, types.BuiltinMethodType) and isinstance(getattr(f, "__self__", None), (np.ndarray, np.generic)):
        return call_method(f.__self__, f.__name__, args, kwargs, loc)
    if isinstance(f, types.FunctionType):
        return _user_function(f, args, kwargs, n)
    call_method_fn = getattr(type(f), "__call__", None)
    if isinstance(call_method_fn, types.FunctionType) and not isinstance(f, type):
        y, inner = _user_function(call_method_fn, (f, *args), kwargs, n + 1)
        return y, lambda g: inner(g)[1:]
    if not any(_is_active(a) for a in (*args, *kwargs.values())):
        return f(*args, **kwargs), _zero_back(n)
    name = registry.qualified_name(f)
    raise NoDerivativeRule(f"no derivative rule for {name}, which is called here with an active argument",
                           loc, f"register one with @zp.adjoint({getattr(f, '__name__', 'f')}), or wrap the "
                           "argument in zp.stop_gradient(...) if no derivative is wanted through it")


def _user_function(f, args, kwargs, n):
    """Transform f (cached) and call its pullback; back gives (None, *args, *kwargs) cotangents."""
    import inspect

    from .compiler import COMPILER

    params = list(inspect.signature(f).parameters.values())
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        names = None  # the pullback binds *args/**kwargs itself, in the same order
        call_args, call_kwargs = args, kwargs
        active = tuple(_is_active(a) for a in args)
    else:
        bound = inspect.signature(f).bind(*args, **kwargs)
        bound.apply_defaults()
        names = [p.name for p in params]
        call_args, call_kwargs = tuple(bound.arguments[name] for name in names), {}
        active = tuple(_is_active(a) for a in call_args)
    pullback = COMPILER.entry(f, active, "pullback").fn
    y, back_inner = pullback(*call_args, **call_kwargs)

    def back(g):
        if g is None:
            return (None,) * n
        bars = back_inner(g)
        if names is None:
            return (None, *bars[:len(args)], *(None,) * len(kwargs))
        by_name = dict(zip(names, bars))
        return (None, *bars[:len(args)], *(by_name.get(k) for k in kwargs))

    return y, back


def call_method(obj, name, args, kwargs, loc):
    n = 1 + len(args) + len(kwargs)
    if isinstance(obj, (np.ndarray, np.generic)):
        rule = registry.method_rule(type(obj), name) or registry.method_rule(np.ndarray, name)
        if rule is not None:
            y = getattr(obj, name)(*args, **kwargs)
            return _rule_pullback(rule, y, args, kwargs, self_obj=obj)
        if registry.method_is_nondifferentiable(np.ndarray, name):
            return getattr(obj, name)(*args, **kwargs), _zero_back(n)
    attr = getattr(type(obj), name, None)
    if isinstance(attr, types.FunctionType):
        y, inner = _user_function(attr, (obj, *args), kwargs, n + 1)
        return y, lambda g: inner(g)[1:]  # (self, *args): drop the function's own slot
    return call(getattr(obj, name), args, kwargs, loc)
