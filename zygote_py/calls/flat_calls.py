"""How a call resolved while running passes its operands, and pullbacks of rules.

`_Flat` flattens a call's operands (positional, `*args`, `**kwargs`, keywords)
into the arguments the callee really receives and regroups the callee's
cotangents per operand; `_origins` and `_spread` map a signature's parameters
to those arguments.  `_rule_pullback` (any call) and `_positional_rule_pullback`
(the common case of plain positional operands, without binding a signature)
turn a registered rule into `(y, back)`, a complex operand choosing the rule's
complex form.  `carries_derivative` says which operands get a cotangent (ints
too, when the running gradient call differentiates them as reals).
calls/dispatch.py builds on these; standalone modules carry a copy of `_Flat`.
"""

from __future__ import annotations

import inspect
import types

import numpy as np

from .. import context
from ..errors import NoDerivativeRule
from ..kinds import is_active
from ..rules import registry
from ..runtime.built_objects import is_tracked
from ..runtime.complex_guard import complex_error, is_complex
from ..tree import LIST, kind_of, zeros_like


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
        return any(carries_derivative(a) for a in (*self.args, *self.kwargs.values()))


def carries_derivative(value, seen: set | None = None) -> bool:
    """An active value, or a function whose closure holds one (a closure made while
    differentiating, passed on or held by another: a decorator's wrapper, say), or a
    tuple, list or dict holding one of these."""
    if is_active(value):
        return True
    if is_tracked(value):  # built in this call: its attributes may be written with derivatives
        return True
    if _is_integral(value) and ints_are_reals():
        return True  # an explicit int argument is differentiated as a real in this call
    if type(value) in (tuple, list, dict):
        # a *args tuple or **kwargs dict holding such a closure (a decorator's arguments)
        seen = set() if seen is None else seen
        if id(value) in seen:
            return False
        seen.add(id(value))
        items = value.values() if type(value) is dict else value
        return any(carries_derivative(item, seen) for item in items)
    if type(value) is not types.FunctionType or not value.__closure__:
        return False
    seen = set() if seen is None else seen
    if id(value) in seen:
        return False
    seen.add(id(value))
    for cell in value.__closure__:
        try:
            if carries_derivative(cell.cell_contents, seen):
                return True
        except ValueError:
            pass
    return False


def ints_are_reals() -> bool:
    """Whether the gradient call running now differentiates an int argument (context.py);
    standalone modules, which give ints no gradient, replace this with False."""
    return context.current().reals


def _is_integral(value) -> bool:
    """An int (not a bool) or an integer array."""
    t = type(value)
    if t is int or isinstance(value, np.integer):
        return True
    return t is np.ndarray and value.dtype.kind in "iu"


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


def _rule_pullback(rule, fn_call, flat: _Flat, loc, self_obj=None):
    """(y, back) for a registered rule; back gives (self or callee, per-operand) cotangents.
    With a complex operand, the rule's complex form, or NoDerivativeRule if it has none."""
    call_args = ((self_obj,) if self_obj is not None else ()) + tuple(flat.args)
    if any(is_complex(a) for a in call_args) or any(is_complex(v) for v in flat.kwargs.values()):
        complex_rule = registry.for_complex(rule)
        if complex_rule is None:
            raise complex_error(rule.qualname, loc)
        rule = complex_rule
    y = fn_call(*flat.args, **flat.kwargs)
    sig = inspect.Signature(list(rule.params))
    bound = sig.bind(*call_args, **flat.kwargs)
    bound.apply_defaults()
    _refuse_unsupported_options(rule, bound.arguments, call_args, flat, loc)
    if rule.takes_array_likes:  # np.maximum([1.0, x], 0.5): the rule sees what NumPy saw
        for name in rule.diff:
            if type(bound.arguments.get(name)) in (list, tuple):
                bound.arguments[name] = np.asarray(bound.arguments[name])
    shift = _Flat.prefixed((self_obj,) if self_obj is not None else (), flat)
    origins = _origins(sig, shift)

    vjp = rule.vjp
    if rule.meta.get("sequence") and isinstance(y, (list, tuple)):
        # + or * made a list or tuple (concatenation, repetition); `array * list` is
        # NumPy's elementwise product, the numeric rule's
        vjp = rule.meta["sequence"]

    underived = _underived_marks(rule, bound.arguments)

    def back(g):
        if g is None:
            return (None,) * (1 + len(flat.origin))
        outs = vjp(g, y, *bound.args, **bound.kwargs)
        if len(rule.diff) == 1:
            outs = (outs,)
        bars = dict(zip(rule.diff, outs))
        bars.update(underived)
        arg_bars, kw_bars = _spread(origins, bars, shift)
        head = arg_bars[0] if self_obj is not None else None
        arg_bars = arg_bars[1:] if self_obj is not None else arg_bars
        return (head, *flat.regroup(arg_bars, kw_bars))

    return y, back


def _underived_marks(rule, arguments: dict) -> dict:
    """NaN cotangents for the real-valued arguments the rule gives no derivative for
    (np.interp's period, a quantile's q, ...).  The compiler refuses such an argument when it
    is active, but a call decided while running cannot tell an active array from a constant
    one: a constant's NaN is never read, an active one's shows in the gradient instead of a
    silent zero."""
    marks = {}
    for name in rule.meta.get("underived", ()):
        value = arguments.get(name)
        if isinstance(value, (float, complex, np.floating, np.complexfloating)) or (
                isinstance(value, np.ndarray) and value.dtype.kind in "fc"):
            marks[name] = np.full(np.shape(value), np.nan) if isinstance(value, np.ndarray) \
                else float("nan")
    return marks


def _refuse_unsupported_options(rule, arguments: dict, call_args, flat: _Flat, loc) -> None:
    """An option the rule has no derivative for (its `unsupported=`: where= of np.max),
    given in a call that carries a derivative, is refused at the call, as the compiler
    refuses it where it splices the rule (ad/reverse/calls.py: refuse_active_nondiff)."""
    for name in rule.meta.get("unsupported", ()):
        if arguments.get(name) is not None and (
                flat.any_active() or any(map(carries_derivative, call_args))):
            raise NoDerivativeRule(
                f"the rule for {rule.qualname} has no derivative with {name}= given", loc,
                f"write the computation without {name}=, or register a rule with @zp.adjoint")


def _positional_rule(rule, args) -> bool:
    """The call binds args one to one to the rule's leading parameters (the rest take
    their defaults), and the sequence variant of the rule is not the one that applies:
    the common case of an operator or a NumPy function called while running.  Not with a
    complex operand: _rule_pullback chooses the rule's complex form (or refuses)."""
    params = rule.params
    if len(args) > len(params) or any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                                       for p in params[:len(args)]):
        return False
    if (rule.meta.get("sequence") or rule.takes_array_likes) and \
            any(isinstance(a, (list, tuple)) for a in args):
        return False  # (_rule_pullback gives the sequence rule, or NumPy's array)
    if any(p.name in rule.meta.get("unsupported", ()) or p.name in rule.meta.get("underived", ())
           for p in params[:len(args)]):
        return False  # an option given positionally: _rule_pullback refuses (or marks) it
    return not any(map(is_complex, args))


def _positional_rule_pullback(rule, f, args: tuple):
    """_rule_pullback without binding a signature: back(g) gives (None, *per argument)."""
    y = f(*args)
    names = [p.name for p in rule.params[:len(args)]]
    n = len(args)

    def back(g):
        if g is None:
            return (None,) * (1 + n)
        outs = rule.vjp(g, y, *args)
        if len(rule.diff) == 1:
            outs = (outs,)
        bars = dict(zip(rule.diff, outs))
        return (None, *(bars.get(name) for name in names))

    return y, back
