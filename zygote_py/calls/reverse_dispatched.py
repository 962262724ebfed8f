"""Reverse mode over gradient code: the calls that gradient resolved while running.

Generated gradient code calls `y, back = dispatch.call(f, operands, spec, loc)` (or
`dispatch.call_method(obj, name, operands, spec, loc)`) where the compiler could not decide
what a call means, and later `back(g)`.  Forward mode follows that pair through the
handlers of calls/forward_dispatched.py.  This module makes the same code differentiable
in *reverse* (reverse over reverse: a vjp of a vjp, and the pairing `nested.vjp_pairing`
that third derivatives differentiate), by a custom rule for each of the two helpers.

The rule for `pair = call(f, operands, ...)` returns `(y, back)` where back is a closure
over the call's arguments that runs `apply_dispatched(helper, args, g)`, itself a function
with a rule: reverse mode routes the closure's cotangent to the call's arguments like any
closure's (as nested.py does for zp.pullback's back).  With J the call's Jacobian and
r = back(g) = J^T g, given the cotangent r_bar of r:

- g gets J r_bar: the forward handler's tangent of y along the directions r_bar;
- the operands (and the callee's captured cells) get d/de J(x + e r_bar)^T g, the tangent of
  back(g) along r_bar, because <r_bar, d/dx (J^T g)> = d/dx <g, J r_bar> (second
  derivatives are symmetric).

Both are one call of forward_dispatched's handler, which decides what the call means as
dispatch did and refuses what it does not follow -- so reverse over these calls is exactly
as complete as forward over them, and never silently zero.  A call that builds or writes
objects (their cotangents go to the ledger's slots) is refused.

Third derivatives: forward mode over code that calls these rules needs the tangent of each
rule's back.  For `call`'s rule that is a second derivative (the forward handler's back
tangent).  For `apply_dispatched`'s it is one when the call's operands do not move, and a
third derivative of the callee otherwise, which nested.py supplies (`register_third`).
"""

from __future__ import annotations

import types

from .. import context
from ..errors import NoDerivativeRule
from ..rules.registry import register_custom
from ..runtime.built_objects import is_tracked
from ..tree import accumulate
from . import dispatch
from . import forward_dispatch as fd
from . import forward_dispatched as fdd


class _Helper:
    """Where one dispatch helper keeps its callee and operands among its arguments, and its
    forward handler (targs in the same layout)."""

    def __init__(self, fn, jvp, callee: int, operands: int, nargs: int):
        self.fn, self.jvp = fn, jvp
        self.callee, self.operands, self.nargs = callee, operands, nargs

    def targs(self, callee_dot, operands_dot) -> tuple:
        out = [None] * self.nargs
        out[self.callee], out[self.operands] = callee_dot, operands_dot
        return tuple(out)

    def split(self, bars):
        """(callee's, operands') parts of a tangent or cotangent of the helper's arguments."""
        if bars is None:
            return None, None
        bars = fd._padded(bars, self.nargs)
        return bars[self.callee], bars[self.operands]


_HELPERS = {
    dispatch.call: _Helper(dispatch.call, fdd.call_jvp, 0, 1, 4),
    dispatch.call_method: _Helper(dispatch.call_method, fdd.method_jvp, 0, 2, 5),
}


def apply_dispatched(helper, args, g):
    """back(g) of `y, back = helper(*args)`: dispatch's cotangents (the callee's, then one
    per operand)."""
    return helper(*args)[1](g)


def _dispatched_back(helper, args):
    """The back function the rule hands out: a closure over the call's arguments, so that
    reverse mode routes its cotangent to them."""
    def back(g):
        return apply_dispatched(helper, args, g)

    return back


def _run_without_effects(helper, args):
    """helper(*args), refused when the call built or wrote objects (a write logged in the
    Context's ledger, an object tracked): their cotangents go to the ledger's slots, which
    this rule does not follow.  (A back flagged `_zp_effects` may only be conservatively
    so: generated code flags every back that calls one resolved while running.)"""
    ledger = context.current().objects
    before = (len(ledger.log), len(ledger.tracked)) if ledger is not None else None
    values = [v for a in args for v in (a if type(a) in (tuple, list) else (a,))]
    if any(map(is_tracked, values)):
        raise _effects_refusal(args)
    pair = helper(*args)
    if ledger is not None and (len(ledger.log), len(ledger.tracked)) != before:
        raise _effects_refusal(args)
    return pair


def _effects_refusal(args):
    return NoDerivativeRule(
        "reverse mode over gradient code reaches a call resolved while running that builds or "
        "writes objects; differentiating it again is not supported", _loc_of(args),
        "make the call a plain function of arrays, or use forward mode over it (zp.hessian)")


def _loc_of(args):
    loc = args[-1] if args else None
    return loc if hasattr(loc, "filename") else None


def _direction(callee, bar):
    """A cotangent of the callee (what dispatch's back gives first) as the tangent forward
    mode takes for it: a function's captured cells as CellTangents."""
    if not fd.has_tangent(bar):
        return None
    if isinstance(callee, types.FunctionType) and isinstance(bar, dict):
        return fd.CellTangents(bar)
    return bar


def _plain(bar):
    """A tangent handed out as a cotangent: CellTangents as the dict reverse mode keeps."""
    return dict(bar) if isinstance(bar, fd.CellTangents) else bar


def _call_rule(helper):
    h = _HELPERS[helper]

    def rule(*args):
        y, back = _run_without_effects(helper, args)
        n = len(args)

        def rule_back(bars):
            y_bar, back_bar = bars if bars is not None else (None, None)
            callee_bar, operands_bar = None, None
            if y_bar is not None:
                out = back(y_bar)
                callee_bar, operands_bar = out[0], tuple(out[1:])
            if isinstance(back_bar, dict) and back_bar.get("args") is not None:
                more_callee, more_operands = h.split(back_bar["args"])
                callee_bar = accumulate(callee_bar, more_callee)
                operands_bar = accumulate(operands_bar, more_operands)
            if callee_bar is None and operands_bar is None:
                return (None,) * n
            out = [None] * n
            out[h.callee], out[h.operands] = _plain(callee_bar), operands_bar
            return tuple(out)

        return (y, _dispatched_back(helper, args)), rule_back

    return rule


def _apply_rule(helper, args, g):
    """back(g) = J^T g; given r_bar, g gets J r_bar and the call's arguments get the tangent
    of back(g) along r_bar (see the module docstring)."""
    h = _HELPERS[helper]
    args = tuple(args)
    _, back = _run_without_effects(helper, args)
    r = back(g)

    def rule_back(r_bar):
        if r_bar is None:
            return None, None, None
        r_bar = tuple(r_bar)
        if not any(map(fd.has_tangent, r_bar)):
            return None, None, None
        targs = h.targs(_direction(args[h.callee], r_bar[0]), tuple(r_bar[1:]))
        _, (y_dot, back_dot) = h.jvp(args, {}, targs, {}, _loc_of(args))
        _, r_dot = back_dot.call(back, (g,), {}, (None,), {}, _loc_of(args))
        if r_dot is None:
            return None, None, y_dot
        r_dot = tuple(r_dot)
        return None, h.targs(_plain(r_dot[0]), tuple(r_dot[1:])), y_dot

    return r, rule_back


# -- forward mode over code that calls these ------------------------------------------------


def _apply_jvp(args, kwargs, targs, tkwargs, loc):
    """apply_dispatched(helper, args, g) in forward mode (the closure _dispatched_back run
    by forward mode): back(g) and its tangent along the call's arguments and g."""
    helper, hargs, g = args
    _, hargs_dot, g_dot = fd._padded(targs, 3)
    hargs = tuple(hargs)
    h = _HELPERS[helper]
    _, back = helper(*hargs)
    value = back(g)
    if not fd.has_tangent(hargs_dot):  # back(g) is linear in g
        return value, (back(g_dot) if fd.has_tangent(g_dot) else None)
    callee_dot, operands_dot = h.split(hargs_dot)
    _, (_, back_dot) = h.jvp(hargs, {}, h.targs(callee_dot, operands_dot), {}, loc)
    _, tangent = back_dot.call(back, (g,), {}, (g_dot,), {}, loc)
    return value, tangent


def _refuse_nested_callee(h, args, loc) -> None:
    """The back of a nested derivative (zp.gradient, zp.pullback, ... called in the code that
    made this gradient code) differentiated here is a fourth derivative of its function:
    refused before any of it runs (its pieces would recurse without end in sight)."""
    callee = args[h.callee] if h.fn is dispatch.call else None
    if callee is not None and (fd.custom_forward_for(callee) is not None or
                               fd.handler_for(callee) is not None):
        name = getattr(callee, "__name__", callee)
        raise NoDerivativeRule(
            f"zp.{name} is differentiated to a fourth order here (inside gradient code that "
            "is itself differentiated twice more); zygote_py nests derivatives to the third "
            "order", loc or _loc_of(args), "stop at third derivatives, or see docs/limitations.md")


def _call_back_forward(helper):
    """The forward meaning of `call`'s rule in code differentiated forward again (third
    order): the pair's tangent, and the tangent of the rule's back((y_bar, back_bar)) --
    back(y_bar)'s, by the forward handler, plus the closure's cotangent passed through."""
    h = _HELPERS[helper]

    def maker(args, kwargs, targs, tkwargs, loc):
        args = tuple(args)
        n = len(args)
        targs = fd._padded(targs, n)
        callee_dot, operands_dot = h.split(targs)
        (y, back), (y_dot, back_dot) = h.jvp(args, {}, h.targs(callee_dot, operands_dot), {},
                                             loc)
        closure_dot = fd.closure_tangent(("helper", "args"), None, targs)

        def back_tangent(bars, bars_dot):
            y_bar, _ = bars if bars is not None else (None, None)
            y_bar_dot, back_bar_dot = bars_dot if bars_dot is not None else (None, None)
            callee_out, operands_out = None, None
            if y_bar is not None or fd.has_tangent(y_bar_dot):
                _refuse_nested_callee(h, args, loc)
                _, out = back_dot.call(back, (y_bar,), {}, (y_bar_dot,), {}, loc)
                if out is not None:
                    callee_out, operands_out = out[0], tuple(out[1:])
            if isinstance(back_bar_dot, dict) and back_bar_dot.get("args") is not None:
                more_callee, more_operands = h.split(back_bar_dot["args"])
                callee_out = accumulate(callee_out, more_callee)
                operands_out = accumulate(operands_out, more_operands)
            if callee_out is None and operands_out is None:
                return None
            out = [None] * n
            out[h.callee], out[h.operands] = _plain(callee_out), operands_out
            return tuple(out)

        return (y_dot, closure_dot), back_tangent

    return maker


# the third-order provider nested.py registers: (helper, args, g, r_bar, hargs_dot, g_dot,
# r_bar_dot, loc) -> (g_bar's tangent, the arguments' cotangent's tangent), or None
_THIRD: list = []


def register_third(provider) -> None:
    _THIRD[:] = [provider]


def _apply_back_forward(args, kwargs, targs, tkwargs, loc):
    """The forward meaning of apply_dispatched's rule: back(g)'s tangent, and the tangent of
    the rule's back(r_bar) = (J r_bar for g, D2<g, f>[r_bar] for the call's arguments)
    along the arguments' tangents w, g_dot and r_bar_dot.  With w zero that is
    (J r_bar_dot, D2<g, f>[r_bar_dot] + D2<g_dot, f>[r_bar]), two calls of the forward
    handler; otherwise a third derivative of the callee (nested.py's provider)."""
    helper, hargs, g = args
    hargs = tuple(hargs)
    _, hargs_dot, g_dot = fd._padded(targs, 3)
    h = _HELPERS[helper]
    _, value_dot = _apply_jvp(args, kwargs, targs, tkwargs, loc)

    def directions(r):
        r = tuple(r)
        return h.targs(_direction(hargs[h.callee], r[0]), tuple(r[1:]))

    def second(direction, seed):
        """(J d, D2<seed, f>[d]) for the directions d of the call's arguments."""
        _, (y_dot, back_dot) = h.jvp(hargs, {}, direction, {}, loc)
        _, back = helper(*hargs)
        _, r_dot = back_dot.call(back, (seed,), {}, (None,), {}, loc)
        if r_dot is not None:
            r_dot = tuple(r_dot)
            r_dot = h.targs(_plain(r_dot[0]), tuple(r_dot[1:]))
        return y_dot, r_dot

    def back_tangent(r_bar, r_bar_dot):
        _refuse_nested_callee(h, hargs, loc)
        moving = fd.has_tangent(hargs_dot)
        if moving:
            if not _THIRD:
                raise NoDerivativeRule("a third derivative through a call resolved while "
                                       "running is not supported", loc)
            return _THIRD[0](helper, hargs, g, r_bar, hargs_dot, g_dot, r_bar_dot, loc)
        g_out, args_out = None, None
        if fd.has_tangent(r_bar_dot):
            g_out, args_out = second(directions(r_bar_dot), g)
        if r_bar is not None and fd.has_tangent(g_dot) and any(map(fd.has_tangent, r_bar)):
            _, more = second(directions(r_bar), g_dot)
            args_out = accumulate(args_out, more)
        return None, args_out, g_out

    return value_dot, back_tangent


def _register() -> None:
    for helper in _HELPERS:
        register_custom(helper, _call_rule(helper))
        fd.register_custom_forward(helper, _call_back_forward(helper))
    register_custom(apply_dispatched, _apply_rule)
    fd.register_handler(apply_dispatched, _apply_jvp)
    fd.register_custom_forward(apply_dispatched, _apply_back_forward)


_register()
