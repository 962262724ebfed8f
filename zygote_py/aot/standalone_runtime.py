"""Run-time dispatch for standalone gradient modules (`zygote-py grad`).

This module is never called by zygote_py itself: `aot/builder.py`
copies the functions below, with what they read, into a generated module
that must not import zygote_py.  They play the part of `dispatch.call` and
`dispatch.call_method` for the calls the compiler could only resolve while
running (a method of an argument, a function passed as a value, `*args`),
but instead of transforming functions on demand they look the callee up in
tables that `zygote-py grad` fills ahead of time:

  PULLBACKS       (qualified name, active, active cells, scalar kinds) ->
                  (pullback, None, code) for a module-level function, or
                  (factory, cell names, code) for a closure: the factory is
                  called with the closure's cell contents and returns its
                  pullback.  Keys are names, not objects, so that instances
                  of the user's own classes (from the user's module) find
                  the pullbacks of their methods here; the bytecode of the
                  function called must match that of the copy, or the call
                  is an error rather than a wrong derivative;
  FUNCTION_RULES  callee -> (signature, vjp, diff, sequence vjp or None);
  METHOD_RULES    (type, method name) -> the same;
  CUSTOM_RULES    callee -> the user's custom rule `rule(*args) -> (y, back)`;
  NONDIFF         callees and (type, method name) pairs that carry no derivative.

A call the tables do not cover runs plainly when none of its arguments can
carry a derivative, and otherwise raises an error that says how to
regenerate the module.  Locations are strings ("file.py:12:5").
"""

from __future__ import annotations

import inspect
import types

import numpy as np

from ..api import finalize, is_active, scalar_kinds
from ..runtime.dispatch import _custom as custom_pullback
from ..runtime.dispatch import _Flat as Flat  # copied into the module as _zp_Flat
from ..tree import keyed_cotangent

PULLBACKS: dict = {}
FUNCTION_RULES: dict = {}
METHOD_RULES: dict = {}
CUSTOM_RULES: dict = {}
NONDIFF: set = set()


def bars_by_argument(sig, flat, bars_by_param):
    """Cotangents per parameter of sig -> per flattened argument and keyword of flat."""
    bound = sig.bind(*range(len(flat.args)), **{k: ("kw", k) for k in flat.kwargs})
    arg_bars = [None] * len(flat.args)
    kw_bars = {}
    for name, param in sig.parameters.items():
        bar = bars_by_param.get(name)
        if bar is None or name not in bound.arguments:
            continue
        where = bound.arguments[name]
        if param.kind == param.VAR_POSITIONAL:
            for i, bi in zip(where, bar):
                arg_bars[i] = bi
        elif param.kind == param.VAR_KEYWORD:
            for key, (_, kwname) in where.items():
                kw_bars[kwname] = bar.get(key) if isinstance(bar, dict) else None
        elif isinstance(where, tuple):
            kw_bars[where[1]] = bar
        else:
            arg_bars[where] = bar
    return arg_bars, kw_bars


def rule_pullback(rule, fn_call, flat, n_prefix):
    """(y, back) for a copied rule; back gives the cotangents of the prefix then each operand."""
    sig, vjp, diff, sequence_vjp = rule
    y = fn_call(*flat.args[n_prefix:], **flat.kwargs)
    bound = sig.bind(*flat.args, **flat.kwargs)
    bound.apply_defaults()
    if sequence_vjp is not None and any(isinstance(a, (list, tuple)) for a in flat.args):
        vjp = sequence_vjp

    def back(g):
        if g is None:
            return (None,) * (n_prefix + len(flat.origin))
        outs = vjp(g, y, *bound.args, **bound.kwargs)
        if len(diff) == 1:
            outs = (outs,)
        arg_bars, kw_bars = bars_by_argument(sig, flat, dict(zip(diff, outs)))
        return (*arg_bars[:n_prefix], *flat.regroup(arg_bars, kw_bars))

    return y, back


def function_pullback(f, flat, n_prefix, loc):
    """(y, back) for a Python function, from its pullback generated ahead of time."""
    sig = inspect.signature(f, follow_wrapped=False)
    bound = sig.bind(*flat.args, **flat.kwargs)
    bound.apply_defaults()
    names = list(sig.parameters)
    values = [bound.arguments.get(n, ()) for n in names]
    cells = dict(zip(f.__code__.co_freevars, f.__closure__ or ()))
    active_cells = tuple(name for name, cell in cells.items() if is_active(cell.cell_contents))
    key = (f.__qualname__, tuple(is_active(v) for v in values), active_cells, scalar_kinds(values))
    found = PULLBACKS.get(key)
    if found is None:
        raise TypeError(f"{loc}: this standalone module has no pullback of {f.__qualname__} for "
                        "arguments of these kinds; regenerate it with `zygote-py grad --args ...` "
                        "describing a call like this one")
    pullback, cell_names, code = found
    if f.__code__.co_code != code.co_code:
        raise TypeError(f"{loc}: {f.__qualname__} is not the function this module was generated "
                        "from (its code differs); regenerate the module")
    if cell_names is not None:
        pullback = pullback(*[cells[name].cell_contents for name in cell_names])
    y, inner = pullback(*flat.args, **flat.kwargs)

    def back(g):
        """(cotangent of the function's captured cells, *prefix, *per operand)."""
        if g is None:
            return (None,) * (1 + n_prefix + len(flat.origin))
        out = inner(g)
        own = out[-1] if active_cells else None
        arg_bars, kw_bars = bars_by_argument(sig, flat, dict(zip(names, out)))
        return (own, *arg_bars[:n_prefix], *flat.regroup(arg_bars, kw_bars))

    return y, back


def zero_back(n):
    return lambda g: (None,) * n


def no_rule(f, loc):
    name = getattr(f, "__qualname__", None) or type(f).__name__
    return TypeError(f"{loc}: no derivative rule for {name}, which is called here with an active "
                     "argument (the standalone module knows only the callees zygote-py saw)")


def call(f, operands, spec, loc):
    """f(*operands) -> (y, back); back(g) gives (cotangent of f, *one per operand)."""
    flat = Flat(operands, spec)
    n = 1 + len(flat.origin)
    custom = CUSTOM_RULES.get(f) if _hashable(f) else None
    if custom is not None:
        return custom_pullback(custom, flat)
    rule = FUNCTION_RULES.get(f) if _hashable(f) else None
    if rule is not None:
        y, back = rule_pullback(rule, f, flat, 0)
        return y, lambda g: (None, *back(g))
    if _hashable(f) and f in NONDIFF:
        return f(*flat.args, **flat.kwargs), zero_back(n)
    if isinstance(f, types.FunctionType):
        return function_pullback(f, flat, 0, loc)
    if isinstance(f, types.MethodType) and isinstance(f.__func__, types.FunctionType):
        y, back = function_pullback(f.__func__, Flat(operands, spec, (f.__self__,)), 1, loc)
        return y, lambda g: back(g)[1:]  # the method's own cotangent is that of self
    self_obj = getattr(f, "__self__", None)
    if isinstance(f, types.BuiltinMethodType) and self_obj is not None and not isinstance(self_obj, types.ModuleType):
        return call_method(self_obj, f.__name__, operands, spec, loc)
    dunder_call = next((vars(c)["__call__"] for c in type(f).__mro__ if "__call__" in vars(c)), None)
    if isinstance(dunder_call, types.FunctionType) and not isinstance(f, type):
        y, back = function_pullback(dunder_call, Flat(operands, spec, (f,)), 1, loc)
        return y, lambda g: back(g)[1:]
    if not flat.any_active():
        return f(*flat.args, **flat.kwargs), zero_back(n)
    raise no_rule(f, loc)


def call_method(obj, name, operands, spec, loc):
    """obj.name(*operands) -> (y, back); back(g) gives (cotangent of obj, *one per operand)."""
    flat = Flat(operands, spec, (obj,))
    cls = type(obj)
    rule = METHOD_RULES.get((cls, name))
    if rule is None and isinstance(obj, np.generic):
        rule = METHOD_RULES.get((np.ndarray, name))
    if rule is not None:
        return rule_pullback(rule, getattr(obj, name), flat, 1)
    if (cls, name) in NONDIFF:
        return getattr(obj, name)(*flat.args[1:], **flat.kwargs), zero_back(len(flat.origin) + 1)
    static = inspect.getattr_static(cls, name, None)
    if isinstance(static, staticmethod):
        y, back = call(static.__func__, operands, spec, loc)
        return y, lambda g: (None, *back(g)[1:])
    if isinstance(static, classmethod):
        y, back = function_pullback(static.__func__, Flat(operands, spec, (cls,)), 1, loc)
        return y, lambda g: (None, *back(g)[2:])
    if isinstance(static, types.FunctionType):
        y, back = function_pullback(static, flat, 1, loc)
        return y, lambda g: back(g)[1:]
    if not is_active(obj) and not flat.any_active():
        return getattr(obj, name)(*flat.args[1:], **flat.kwargs), zero_back(len(flat.origin) + 1)
    raise no_rule(getattr(obj, name), loc)


def attribute_cotangent(obj, name, g):
    """Cotangent of obj from that of obj.name: {name: g}, or through a property's getter."""
    if g is None:
        return None
    prop = inspect.getattr_static(type(obj), name, None)
    if isinstance(prop, property) and isinstance(prop.fget, types.FunctionType):
        _, back = function_pullback(prop.fget, Flat((), (), (obj,)), 1, f"property {name}")
        return back(g)[1]
    return keyed_cotangent(obj, name, g)


def _hashable(f):
    try:
        hash(f)
    except TypeError:
        return False
    return True


def check_scalar(y, loc):
    """The seed cotangent 1.0 for a real scalar output; a ValueError otherwise."""
    if type(y) is float:
        return 1.0
    if isinstance(y, (np.floating, np.integer, int)) and not isinstance(y, bool):
        return 1.0
    if isinstance(y, np.ndarray) and y.shape == () and y.dtype.kind in "fiu":
        return 1.0
    shape = getattr(y, "shape", None)
    what = f"an array of shape {shape}" if shape is not None else f"a {type(y).__name__}"
    raise ValueError(f"{loc}: the gradient needs a real scalar output, but the function returned "
                     f"{what}; generate the module with --mode pullback for vector outputs")


def finalize_all(bars, args):
    """The cotangents of a call's arguments in the form of the arguments (see api.finalize)."""
    return tuple(finalize(b, a) for b, a in zip(bars, args))
