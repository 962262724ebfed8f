"""Forward mode over gradient code: the calls that gradient resolved while running.

Generated gradient code (a pullback program, the gradient zp.hessian differentiates,
the inner function of a nested zp.pullback) calls `y, back = dispatch.call(f, operands,
spec, loc)` (or `dispatch.call_method(obj, name, ...)`) where the compiler could not
decide what f means.  Forward mode over that code (forward over reverse: Hessians and
every nested derivative) needs the tangent of the pair: y's, and back's -- what it takes
to differentiate `back(g)` along the operands' tangents and g's own.

This module is the forward dispatcher's handler for those two helpers.  It decides what
the call means exactly as dispatch.py does -- the same resolver on the same objects, the
same way of binding operands to parameters -- and for each outcome gives:

- a registered rule: y's tangent by the rule's forward rule; back's tangent runs the
  rule's vjp body by forward mode (its body is Python; or, when only g moves, the vjp of
  g's tangent, a vjp being linear in g);
- a Python function (any signature: defaults, *args, **kwargs, keyword arguments), a
  bound method, a callable object, a callable held in an attribute, a functools.partial,
  an lru_cache wrapper, a class of the user's built: the function's compiled pullback --
  the program dispatch would run, same active arguments and cells -- run *instead of*
  dispatch, once, by forward mode, and the pair handed to the gradient code built from
  that run; back's tangent runs that program's back once by forward mode, its outputs
  placed per operand as dispatch's back places them (a linear, structural map, so the
  same map places the tangents).  Running nothing twice is what lets forward mode follow
  a function that writes or builds objects: its writes, and its back's undoing of them,
  happen once, recorded in the book of attribute tangents (forward_objects.py);
- a non-differentiable function, a NamedTuple: back is linear in g alone.

What it refuses (NoDerivativeRule at the user's line, never a silent zero): complex
values (forward mode is real), objects whose own operator methods or NumPy hand-offs
decide a call (and write objects), dataclasses with __post_init__ built there, custom rules (@zp.adjoint:
their backward function is not code forward mode follows), and the nested zp.gradient,
zp.pullback, zp.jvp, ... themselves -- forward mode over a nested derivative's gradient
code is a third derivative (see docs/how-it-works.md section 8).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import types

import numpy as np

from .. import context
from ..errors import InternalError, NoDerivativeRule
from ..kinds import scalar_kinds
from ..resolve import (
    ATTRIBUTE,
    CALLABLE,
    CLASS,
    CONSTRUCT,
    CUSTOM,
    FUNCTION,
    METHOD,
    NONDIFF,
    OPERATOR_METHODS,
    PROPERTY,
    RECEIVER,
    RECORD,
    RULE,
    STATIC,
    getattr_hook,
    is_plain_operand,
    numpy_handoff,
    operator_candidates,
    resolve,
    resolve_attribute,
    resolve_method,
)
from ..rules import registry
from ..runtime import built_objects
from ..runtime.built_objects import is_tracked
from ..runtime.helpers import make_closure
from ..tree import keyed_cotangent
from . import dispatch, forward_objects
from . import forward_dispatch as fd
from .flat_calls import _Flat, _origins, _spread, carries_derivative
from .protocols import refuse_numpy_object_operands


class _Arrangeable(fd.CallTangent):
    """A back tangent whose placed tangents dispatch's wrapper may rearrange (then())."""

    __slots__ = ()

    def then(self, arrange):
        return _Then(self, arrange)


class LinearInG(fd.CallTangent):
    """The tangent of a pullback whose call had no moving operand: `back(g)` then moves
    only with g, and a pullback is linear in g, so its tangent is `back(g_dot)`."""

    __slots__ = ()

    def call(self, fn, args, kwargs, targs, tkwargs, loc):
        g_dot = targs[0] if targs else None
        return fn(*args, **kwargs), (fn(g_dot) if fd.has_tangent(g_dot) else None)


LINEAR_IN_G = LinearInG()


class WritesObjects(fd.CallTangent):
    """The tangent of a pullback whose call wrote or built objects and had no moving
    operand: its back undoes those writes, so it cannot run a second time for g's tangent."""

    __slots__ = ()

    def call(self, fn, args, kwargs, targs, tkwargs, loc):
        g_dot = targs[0] if targs else None
        if fd.has_tangent(g_dot):
            raise _writes_refusal(loc)
        return fn(*args, **kwargs), None


WRITES_OBJECTS = WritesObjects()


def _ledger_mark(ledger):
    """How far the call's ledger has come: its writes and the objects it tracks."""
    return None if ledger is None else (len(ledger.log), len(ledger.tracked))


def call_jvp(args, kwargs, targs, tkwargs, loc):
    """The handler of `dispatch.call(f, operands, spec, loc)`: the pair and its tangent."""
    targs = fd._padded(targs, 4)
    callee, operands, spec, call_loc = args
    if _runs_program(callee):
        # dispatch would run f's compiled pullback: it runs once, here, by forward mode
        operands = tuple(operands)
        f_dot, operand_dots = _written_operands(callee, targs[0], operands, targs[1], spec)
        y_dot, back_dot = _call(callee, f_dot, operands, operand_dots, spec, call_loc or loc,
                                None)
        return _once(y_dot, back_dot, call_loc or loc)
    ledger = context.current().objects
    mark = _ledger_mark(ledger)
    pair = dispatch.call(*args, **kwargs)
    wrote = _ledger_mark(ledger) != mark  # (following it would run it a second time)
    if not fd.has_tangent(targs[0]) and not fd.has_tangent(targs[1]):
        # nothing moves but, later, perhaps g
        return pair, (None, WRITES_OBJECTS if wrote else LINEAR_IN_G)
    if wrote:
        raise _writes_refusal(call_loc or loc)
    operands = tuple(operands)
    operand_dots = _operand_dots(operands, targs[1])
    y_dot, back_dot = _call(callee, targs[0], operands, operand_dots, spec, call_loc or loc,
                            pair[0])
    return pair, (y_dot, back_dot)


def method_jvp(args, kwargs, targs, tkwargs, loc):
    """The handler of `dispatch.call_method(obj, name, operands, spec, loc)`."""
    targs = fd._padded(targs, 5)
    obj, name, operands, spec, call_loc = args
    if _method_runs_program(obj, name):
        operands = tuple(operands)
        obj_dot, operand_dots = _written_operands(obj, targs[0], operands, targs[2], spec,
                                                  receiver=True)
        y_dot, back_dot = _method(obj, obj_dot, name, operands, operand_dots, spec,
                                  call_loc or loc, None)
        return _once(y_dot, back_dot, call_loc or loc)
    ledger = context.current().objects
    mark = _ledger_mark(ledger)
    pair = dispatch.call_method(*args, **kwargs)
    wrote = _ledger_mark(ledger) != mark
    if not fd.has_tangent(targs[0]) and not fd.has_tangent(targs[2]):
        return pair, (None, WRITES_OBJECTS if wrote else LINEAR_IN_G)
    if wrote:
        raise _writes_refusal(call_loc or loc)
    operands = tuple(operands)
    operand_dots = _operand_dots(operands, targs[2])
    y_dot, back_dot = _method(obj, targs[0], name, operands, operand_dots, spec,
                              call_loc or loc, pair[0])
    return pair, (y_dot, back_dot)


# -- calls of Python functions: the compiled pullback run once, by forward mode -------------
# dispatch runs a Python function's compiled pullback (_function_pullback) and hands out its
# back wrapped.  Forward mode over that call must not run it a second time beside dispatch's
# run: a function that writes attributes (`self.s = self.s + ...`) would write them twice,
# and its back, which undoes those writes, would undo them twice.  So for these calls the
# pullback runs only here, by forward mode, which follows its writes in the book of
# attribute tangents (forward_objects.py); the pair handed to the gradient code is built
# from that one run, its back placing the program's cotangents as dispatch's back does, and
# back's tangent (ProgramBack) runs that same back once, by forward mode, for both.


def _runs_program(f) -> bool:
    """Whether dispatch.call(f, ...) runs a compiled pullback of a Python function (f itself,
    a bound method's, a callable object's, a partial's, an lru_cache wrapper's, a method
    reached by name), decided in _call's order."""
    how = resolve(f, registry)
    kind = how.kind
    if kind == FUNCTION:
        return True
    if kind in (CUSTOM, RULE, NONDIFF):
        return False
    if type(f) is dispatch.LRU_WRAPPER:
        return _runs_program(f.__wrapped__)
    if isinstance(f, functools.partial) and isinstance(f.func, types.FunctionType):
        return True
    if kind in (METHOD, CALLABLE):
        return True
    if kind == CONSTRUCT:  # (followed where the forward-mode call keeps a book: _construct)
        return context.current().object_tangents is not None
    return kind == RECEIVER and _method_runs_program(how.receiver, how.name)


def _method_runs_program(obj, name) -> bool:
    """Whether dispatch.call_method(obj, name, ...) runs a method's compiled pullback."""
    if type(obj) is super:
        return False
    how = resolve_method(obj, name, registry)
    if how.kind in (METHOD, CLASS):
        return True
    return how.kind in (STATIC, ATTRIBUTE) and _runs_program(how.function)


def _written_operands(head, head_dot, operands, operand_dots, spec, receiver=False):
    """The tangents of the callee (or receiver) and the operands, with Written() for an
    object whose attributes forward-mode code wrote (their tangents are in the book): the
    program must read those, so it runs transformed even where nothing else moves."""
    operand_dots = _operand_dots(operands, operand_dots)
    book = context.current().object_tangents
    if book is None or not book.fields:
        return head_dot, operand_dots
    operand_dots = forward_objects._with_written(book, operands, operand_dots, spec)
    if not receiver:
        head_dot = forward_objects._callee_written(book, head, head_dot)
    return _written(head, head_dot), operand_dots


def _written(obj, obj_dot):
    """obj_dot, or Written() for an object (a receiver, a callable object) whose attributes
    forward-mode code wrote and that carries no tangent of its own."""
    if fd.has_tangent(obj_dot):
        return obj_dot
    book = context.current().object_tangents
    if book is not None and id(obj) in book.fields:
        return forward_objects.Written()
    return obj_dot


def _once(y_dot, back_dot, loc):
    """(the pair dispatch would have made, its tangent) from the one forward run."""
    if not isinstance(back_dot, (ProgramBack, ConstructBack)):  # (_runs_program, _call disagree)
        raise InternalError("a call resolved while the gradient ran was expected to run a "
                            "compiled pullback", loc,
                            "this is a defect of zygote_py; please report it")
    y = back_dot.y
    if type(back_dot) is ProgramBack and back_dot.back_dot is None and y_dot is None and \
            not back_dot.effects:
        fob_check_plain(y, loc)
    return (y, back_dot.pair_back()), (y_dot, back_dot)


def fob_check_plain(y, loc):
    """A program that ran plainly (nothing it was given moves) after an attribute was
    written with a tangent: refused when its result could carry a derivative (it may read
    that attribute through a global), as forward_objects refuses such a call."""
    forward_objects._check_plain(context.current().object_tangents, y,
                                 "a call resolved while the gradient ran", loc)


def _operand_dots(operands, dots):
    return tuple(dots) if dots is not None else (None,) * len(operands)


# -- what the call means: dispatch.call's decisions, in the same order ---------------------


def _call(f, f_dot, operands, operand_dots, spec, loc, y):
    """(y's tangent, back's tangent) for dispatch.call(f, operands, spec)."""
    flat = _Flat(operands, spec)
    _, _, targs, tkwargs = fd._spread(operands, operand_dots, spec)
    how = resolve(f, registry)
    kind = how.kind
    if kind == CUSTOM:
        return _custom(f, f_dot, flat, targs, tkwargs, loc)
    if kind == RULE:
        _refuse_object_operands(f, flat, loc)
        return _rule(how.rule, flat, targs, tkwargs, y, None, None, loc)
    if kind == NONDIFF:
        if f in OPERATOR_METHODS:
            _refuse_object_operands(f, flat, loc)
        return None, LINEAR_IN_G
    if kind == FUNCTION:
        return _function(f, _cells_dot(f, f_dot, loc), flat, targs, tkwargs, (), (), loc)
    if fd.has_tangent(f_dot) and not isinstance(f_dot, fd.CellTangents) and \
            kind not in (METHOD, CALLABLE, RECEIVER):
        raise _refusal(registry.qualified_name(f), "a callee that carries a tangent", loc)
    if type(f) is dispatch.LRU_WRAPPER:  # the cache returns what the function computes
        return _call(f.__wrapped__, None, operands, operand_dots, spec, loc, y)
    if isinstance(f, functools.partial) and isinstance(f.func, types.FunctionType):
        return _partial(f, flat, targs, tkwargs, loc)
    if kind == METHOD or kind == CALLABLE:
        receiver_dot = f_dot if kind == METHOD or not isinstance(f_dot, fd.CellTangents) else None
        _no_own_cells(how.function, loc)
        y_dot, back_dot = _function(how.function, None, flat, targs, tkwargs,
                                    (how.receiver,), (receiver_dot,), loc)
        return y_dot, back_dot.then(_drop(1))  # the callee's own cotangent: its receiver's
    if kind == RECEIVER:
        return _method(how.receiver, f_dot, how.name, operands, operand_dots, spec, loc, y)
    if kind == RECORD:  # a NamedTuple: its back only regroups g
        return f(*fd._padded(targs, len(flat.args)),
                 **{k: tkwargs.get(k) for k in flat.kwargs}), LINEAR_IN_G
    if kind == CONSTRUCT:
        return _construct(f, flat, targs, tkwargs, loc)
    raise _refusal(registry.qualified_name(f), "a class built or an object written there", loc)


def _method(obj, obj_dot, name, operands, operand_dots, spec, loc, y):
    """(y's tangent, back's tangent) for dispatch.call_method(obj, name, operands, spec)."""
    if type(obj) is super:
        raise _refusal(f"super().{name}", "a method reached through super()", loc)
    flat = _Flat(operands, spec)
    _, _, targs, tkwargs = fd._spread(operands, operand_dots, spec)
    how = resolve_method(obj, name, registry)
    kind = how.kind
    if kind == RULE:
        _refuse_object_operands(getattr(obj, name), flat, loc)  # np.add.reduce([obj, obj])
        return _rule(how.rule, flat, targs, tkwargs, y, obj, obj_dot, loc)
    if kind == NONDIFF:
        return None, LINEAR_IN_G
    if kind == STATIC:
        y_dot, back_dot = _call(how.function, None, operands, operand_dots, spec, loc, y)
        return y_dot, _then(back_dot, lambda out: (None, *out[1:]))
    if kind == ATTRIBUTE and _runs_program(how.function):
        return _attribute_held(obj, obj_dot, name, how.function, operands, operand_dots, spec,
                               loc)
    if kind == CLASS:
        _no_own_cells(how.function, loc)
        y_dot, back_dot = _function(how.function, None, flat, targs, tkwargs,
                                    (how.receiver,), (None,), loc)
        return y_dot, back_dot.then(lambda out: (None, *out[2:]))
    if kind == METHOD:
        _no_own_cells(how.function, loc)
        y_dot, back_dot = _function(how.function, None, flat, targs, tkwargs, (obj,), (obj_dot,),
                                    loc)
        return y_dot, back_dot.then(_drop(1))
    raise _refusal(f"the method {name!r}", "a method held in an attribute, or one without a "
                   "derivative", loc)


def _attribute_held(obj, obj_dot, name, held, operands, operand_dots, spec, loc):
    """obj.name(...) where obj.name holds a callable (Recur's `self.cell(...)`), as dispatch's
    ATTRIBUTE: the held callable's call, its own cotangent given to obj as that of the
    attribute -- into the ledger's slot for an object built or written in the call, and
    then its tangent into the book's slot."""
    held_dot = _written(held, forward_objects.attribute_read(obj, obj_dot, name, loc)[1])
    y_dot, back_dot = _call(held, held_dot, operands, operand_dots, spec, loc, None)

    def own(out):
        return (dispatch.attribute_cotangent_of(obj, name, out[0]), *out[1:])

    def own_dot(out):
        if out[0] is None or not forward_objects.deposit_tangent(obj, name, out[0]):
            return (keyed_cotangent(obj, name, out[0]), *out[1:])
        return (None, *out[1:])

    return y_dot, back_dot.then(own, own_dot)


def _refuse_object_operands(f, flat: _Flat, loc) -> None:
    """dispatch._object_operands, as a question: an operand whose own methods decide what
    the call means (Python's operator protocol on an object, np.sum(obj) handing the work
    to obj.sum) is refused; otherwise the registered rule applies, as it does there."""
    args = tuple(flat.args)
    if type(f) is types.BuiltinFunctionType and f in OPERATOR_METHODS:
        if operator_candidates(f, args) is not None:
            raise _refusal(registry.qualified_name(f), "an object's own operator method", loc)
        return
    if all(map(is_plain_operand, args)) and all(map(is_plain_operand, flat.kwargs.values())):
        return
    if numpy_handoff(f, args, flat.kwargs) is not None:
        raise _refusal(registry.qualified_name(f), "a NumPy function handing the work to an "
                       "object's method", loc)
    refuse_numpy_object_operands(f, args, flat.kwargs,  # np.sum([obj, obj])
                                 lambda message, hint: NoDerivativeRule(message, loc, hint))


def _no_own_cells(fn, loc) -> None:
    """A method's function that captures values carrying a derivative: their tangents are
    not known here (the callee's tangent is its receiver's), so it is refused."""
    if dispatch.active_cells(fn):
        raise _refusal(registry.qualified_name(fn), "a method whose function captures values "
                       "that carry a derivative", loc)


def _cells_dot(fn, f_dot, loc):
    """f's tangent as the tangents of the cells dispatch passes as inputs (refused where one
    would be lost)."""
    if not fd.has_tangent(f_dot):
        return None
    cells = dispatch.active_cells(fn)
    if not isinstance(f_dot, fd.CellTangents) or \
            any(fd.has_tangent(v) and k not in cells for k, v in f_dot.items()):
        raise _refusal(registry.qualified_name(fn), "a function whose captured values carry a "
                       "tangent it cannot follow", loc)
    return fd.CellTangents({k: v for k, v in f_dot.items() if k in cells})


# -- custom rules ----------------------------------------------------------------------


def _custom(f, f_dot, flat: _Flat, targs, tkwargs, loc):
    """dispatch._custom differentiated forward, for the custom rules whose backward function
    has a forward meaning registered (the nested zp.gradient, zp.pullback, ...: nested.py);
    any other custom rule is refused."""
    maker = fd.custom_forward_for(f)
    if maker is None or fd.has_tangent(f_dot) or any(map(is_tracked, flat.args)):
        raise _custom_refusal(f, loc)
    n = len(flat.args)
    y_dot, back_tangent = maker(tuple(flat.args), dict(flat.kwargs), fd._padded(targs, n),
                                tkwargs, loc)

    def placed(bars):  # as dispatch._custom places the rule's cotangents
        bars = tuple(bars) if isinstance(bars, tuple) else (bars,)
        bars = bars[:n] + (None,) * (n - len(bars))
        return (None, *flat.regroup(list(bars), {}))

    return y_dot, CustomBack(back_tangent, placed)


class CustomBack(_Arrangeable):
    """The tangent of the back dispatch made for a custom rule with a registered forward
    meaning: back_tangent(g, g_dot) is the tangent of the rule's own back(g)."""

    __slots__ = ("arrange", "back_tangent")

    def __init__(self, back_tangent, arrange):
        self.back_tangent, self.arrange = back_tangent, arrange

    def call(self, fn, args, kwargs, targs, tkwargs, loc):
        value = fn(*args, **kwargs)
        g = args[0]
        g_dot = targs[0] if targs else None
        if g is None and not fd.has_tangent(g_dot):
            return value, None
        tangent = self.back_tangent(g, g_dot)
        return value, (self.arrange(tangent) if tangent is not None else None)


# -- registered rules ----------------------------------------------------------------------


def _rule(rule, flat: _Flat, targs, tkwargs, y, self_obj, self_dot, loc):
    """flat_calls._rule_pullback differentiated forward: y's tangent by the rule's jvp,
    back's by its vjp body run forward."""
    prefix = (self_obj,) if self_obj is not None else ()
    call_args = prefix + tuple(flat.args)
    call_targs = ((self_dot,) if self_obj is not None else ()) + fd._padded(targs, len(flat.args))
    back_rule = rule
    if fd.is_complex_anywhere((*call_args, *flat.kwargs.values())):
        # its body for complex values (rules/complex_rules.py), or refused
        back_rule = registry.for_complex(rule)
        if back_rule is None:
            raise _refusal(rule.qualname, "complex values (its rule is declared for real values "
                           "only)", loc)
    y_dot = fd._rule_jvp(rule, call_args, flat.kwargs, call_targs, tkwargs, y, loc)
    sig = inspect.Signature(list(rule.params))
    bound = sig.bind(*call_args, **flat.kwargs)
    bound.apply_defaults()
    tbound = sig.bind_partial(*call_targs, **tkwargs).arguments
    t_arguments = {}
    for pname, value in bound.arguments.items():
        t = tbound.get(pname)
        kind = sig.parameters[pname].kind
        if kind is inspect.Parameter.VAR_POSITIONAL:
            t = tuple(t) if t is not None else (None,) * len(value)
        elif kind is inspect.Parameter.VAR_KEYWORD:
            t = dict(t) if t is not None else {}
        t_arguments[pname] = t
    tangents = inspect.BoundArguments(sig, t_arguments)
    vjp = back_rule.vjp
    if rule.meta.get("sequence") and isinstance(y, (list, tuple)):
        vjp = rule.meta["sequence"]  # + or * made a list or tuple, as in _rule_pullback
    shift = _Flat.prefixed(prefix, flat)
    return y_dot, RuleBack(back_rule, vjp, (bound.args, bound.kwargs), (tangents.args, tangents.kwargs),
                           y, y_dot, _origins(sig, shift), shift, flat, self_obj is not None)


class RuleBack(_Arrangeable):
    """The tangent of the back run-time dispatch made for a registered rule: calling it runs
    the rule's vjp forward (its body is Python) and places the outputs as that back does."""

    __slots__ = ("arguments", "flat", "origins", "rule", "shift", "tangents", "vjp",
                 "with_self", "y", "y_dot")

    def __init__(self, rule, vjp, arguments, tangents, y, y_dot, origins, shift, flat, with_self):
        self.rule, self.vjp = rule, vjp
        self.arguments = arguments  # (args, kwargs) the vjp is called with
        self.tangents = tangents  # their tangents, in the same shape
        self.y, self.y_dot = y, y_dot
        self.origins, self.shift, self.flat, self.with_self = origins, shift, flat, with_self

    def call(self, fn, args, kwargs, targs, tkwargs, loc):
        value = fn(*args, **kwargs)
        g = args[0]
        g_dot = targs[0] if targs else None
        if g is None and not fd.has_tangent(g_dot):
            return value, None
        rargs, rkwargs = self.arguments
        targs_, tkwargs_ = self.tangents
        if getattr(self.rule.jvp, "linear", False) or g is None or \
                not fd.has_tangent(self.y_dot) and not any(map(fd.has_tangent, targs_)) and \
                not any(map(fd.has_tangent, tkwargs_.values())):
            # only g moves (a linear rule's vjp does not depend on the arguments' values), and
            # the vjp is linear in g: its tangent is the vjp of g's tangent.  So too where g
            # is zero (None; a rule's body is not written for it): what the arguments' motion
            # adds is linear in g as well, and vanishes there
            outs_dot = self.vjp(g_dot, self.y, *rargs, **rkwargs) if g_dot is not None else None
        else:
            _, outs_dot = fd._python(self.vjp, None, (g, self.y, *rargs), rkwargs,
                                     (g_dot, self.y_dot, *targs_), tkwargs_, loc)
        if len(self.rule.diff) == 1:
            outs_dot = (outs_dot,)
        elif outs_dot is None:
            outs_dot = (None,) * len(self.rule.diff)
        return value, self.placed(outs_dot)

    def placed(self, outs):
        """The vjp's outputs per operand, as flat_calls._rule_pullback's back places them."""
        arg_bars, kw_bars = _spread(self.origins, dict(zip(self.rule.diff, outs)), self.shift)
        head = arg_bars[0] if self.with_self else None
        arg_bars = arg_bars[1:] if self.with_self else arg_bars
        return (head, *self.flat.regroup(arg_bars, kw_bars))


# -- Python functions ----------------------------------------------------------------------


def _function(fn, cells_dot, flat: _Flat, targs, tkwargs, prefix, prefix_dots, loc):
    """dispatch._function_pullback differentiated forward: fn's compiled pullback (the
    program dispatch ran: same binding, active arguments and cells) run by forward mode.
    Returns (y's tangent, back's tangent) in dispatch's layout (the cells' cotangent, one
    per prefix value, one per operand)."""
    if dispatch.is_dataclass_init(fn):
        raise _refusal(registry.qualified_name(fn), "a dataclass built there", loc)
    args = (*prefix, *flat.args)
    sig = inspect.signature(fn, follow_wrapped=False)  # fn's own parameters, as dispatch binds
    bound = sig.bind(*args, **flat.kwargs)
    bound.apply_defaults()
    names = list(sig.parameters)
    values = [bound.arguments.get(n, ()) for n in names]
    active = tuple(carries_derivative(v) for v in values)
    cells = dispatch.active_cells(fn)
    program = dispatch._pullback_entry(fn, active, cells, scalar_kinds(values))
    all_targs = (*prefix_dots, *fd._padded(targs, len(flat.args)))
    (y, inner_back), pair_dot = fd._python(program, cells_dot, args, flat.kwargs, all_targs,
                                           tkwargs, loc)
    y_dot, inner_back_dot = pair_dot if pair_dot is not None else (None, None)  # None: all zero
    shifted = _Flat.prefixed(prefix, flat)
    origins = _origins(sig, shifted)
    n_prefix = len(prefix)

    def placed(out):
        """The program's back outputs (one per parameter, then the cells' dict) per operand."""
        out = tuple(out)
        own = out[-1] if cells else None
        arg_bars, kw_bars = _spread(origins, dict(zip(names, out)), shifted)
        return (own, *arg_bars[:n_prefix], *flat.regroup(arg_bars[n_prefix:], kw_bars))

    return y_dot, ProgramBack(inner_back, inner_back_dot, placed, y,
                              len(names) + (1 if cells else 0))


def _construct(cls, flat: _Flat, targs, tkwargs, loc):
    """built_objects.construct (a class of the user's called, resolved while the gradient
    ran: `Layer(w)` in a method) differentiated forward: the object made with
    object.__new__, tracked by the ledger and entered in the book (its tangent: Written()),
    its __init__'s compiled pullback run once by forward mode (_function)."""
    init = built_objects._class_attribute(cls, "__init__")
    dataclass = built_objects.is_dataclass_init(init)
    if dataclass and built_objects._class_attribute(cls, "__post_init__") is not None:
        raise _refusal(registry.qualified_name(cls), "a dataclass with __post_init__ built "
                       "there", loc)
    book = forward_objects._book(loc)
    obj = object.__new__(cls)
    ledger = built_objects.track(obj, loc)
    book.enter(obj)
    if dataclass:
        inner = _DataclassInit(cls, init, obj, flat, targs, tkwargs, loc)
    elif init is object.__init__:
        init(obj, *flat.args, **flat.kwargs)  # Python's own error for unexpected arguments
        inner = None
    else:
        _, inner = _function(init, None, flat, targs, tkwargs, (obj,), (forward_objects.Written(),),
                             loc)
    ledger.built[id(obj)] = ledger.versions[id(obj)]
    return forward_objects.Written(), ConstructBack(obj, inner, len(flat.origin), loc)


class _DataclassInit:
    """A dataclass's generated __init__ (no source), replayed as built_objects.dataclass_init
    replays it -- each field from its argument, default or default_factory -- with each
    write's tangent recorded in the book; its back (take_attribute per field, in reverse)
    runs once, forward, in call().  The same two methods as a ProgramBack (ConstructBack
    holds either)."""

    def __init__(self, cls, init, obj, flat: _Flat, targs, tkwargs, loc):
        owner = next(k for k in cls.__mro__ if vars(k).get("__init__") is init)
        sig = inspect.signature(init)
        given = sig.bind(obj, *flat.args, **flat.kwargs).arguments
        tbound = sig.bind_partial(None, *fd._padded(targs, len(flat.args)), **tkwargs).arguments
        self.obj, self.flat, self.loc = obj, flat, loc
        self.shifted = _Flat.prefixed((obj,), flat)
        self.origins = _origins(sig, self.shifted)
        self.written = []  # (field, old value, value written, old value's tangent)
        for field in owner.__dataclass_fields__.values():
            if getattr(field, "_field_type", None) is not dataclasses._FIELD:
                continue  # a ClassVar (an InitVar needs __post_init__: refused)
            value = built_objects.dataclass_field_value(field, given)
            if value is built_objects.NO_FIELD_VALUE:
                continue
            tangent = tbound.get(field.name) if field.init else None
            old, old_dot = forward_objects.attribute_write(
                obj, None, field.name, value, tangent, loc, built_objects.object_set_attribute)
            self.written.append((field.name, old, value, old_dot))

    def _placed(self, by_name):
        arg_bars, kw_bars = _spread(self.origins, by_name, self.shifted)
        return (None, arg_bars[0], *self.flat.regroup(arg_bars[1:], kw_bars))

    def pair_back(self):
        def back(g):  # (as built_objects.dataclass_init's back: each write taken back)
            return self._placed({name: built_objects.take_attribute(self.obj, name, old, new)
                                 for name, old, new, _ in reversed(self.written)})

        return back

    def call(self, fn, args, kwargs, targs, tkwargs, loc):
        bars, bars_dot = {}, {}
        for name, old, new, old_dot in reversed(self.written):
            bars[name], bars_dot[name] = forward_objects.take_attribute_jvp(self.obj, name, old,
                                                                           new, old_dot)
        tangent = self._placed(bars_dot) if any(map(fd.has_tangent, bars_dot.values())) else None
        return self._placed(bars), tangent


class ConstructBack(fd.CallTangent):
    """The tangent of the back of an object's construction (built_objects.construct's back:
    the object's whole cotangent settled into its slots, its __init__'s back run, what is
    left in its slots -- class attributes' -- handed on), from the one forward run of its
    __init__'s pullback (inner, a ProgramBack; None for object.__init__)."""

    __slots__ = ("inner", "loc", "n", "y")

    effects = True

    def __init__(self, obj, inner, n, loc):
        self.y, self.inner, self.n, self.loc = obj, inner, n, loc

    def pair_back(self):
        obj, loc, n = self.y, self.loc, self.n
        init_back = self.inner.pair_back() if self.inner is not None else None

        def back(g):
            built_objects.settle(obj, g, loc)
            out = init_back(None) if init_back is not None else (None,) * (2 + n)
            built_objects.class_attribute_cotangents(obj)
            return (None, *out[2:])  # past the cells' and self's cotangents

        back._zp_effects = True
        return back

    def call(self, fn, args, kwargs, targs, tkwargs, loc):
        g = args[0]
        g_dot = targs[0] if targs else None
        if fd.has_tangent(g_dot):  # (its reads deposit into its slots; whole, it is refused)
            raise _refusal(type(self.y).__qualname__, "a derivative reaching an object built "
                           "there whole, not through its attributes", self.loc)
        built_objects.settle(self.y, g, self.loc)
        if self.inner is None:
            value, tangent = (None,) * (2 + self.n), None
        else:
            value, tangent = self.inner.call(None, (None,), {}, (None,), {}, loc)
        built_objects.class_attribute_cotangents(self.y)
        # what is left in its tangent slots belongs to class attributes: constants here
        # (forward mode over a gradient has no Params collector)
        left = context.current().object_tangents.slots.pop(id(self.y), None)
        if context.current().collector is not None and fd.has_tangent(left):
            raise _refusal(type(self.y).__qualname__, "class attributes of an object built "
                           "there, read in a zp.params call", self.loc)
        return (None, *value[2:]), (None, *tangent[2:]) if tangent is not None else None


def _partial(p: functools.partial, flat: _Flat, targs, tkwargs, loc):
    """dispatch._partial_pullback differentiated forward (its bound values carry no
    derivative: dispatch refuses them)."""
    merged = _Flat((), ())
    merged.args, merged.origin = flat.args, flat.origin
    merged.kwargs = {**p.keywords, **flat.kwargs}
    y_dot, back_dot = _function(p.func, None, merged, targs, tkwargs, p.args,
                                (None,) * len(p.args), loc)
    skip = 1 + len(p.args)
    return y_dot, back_dot.then(lambda out: (None, *out[skip:]))


class ProgramBack(_Arrangeable):
    """The tangent of the back of a call of a Python function, from the one forward run of
    its compiled pullback (y, and back: the program's own back function; back_dot: its
    tangent, from that run).  Calling it runs back once -- by forward mode where anything it
    captured moves, or it has effects (it undoes attribute writes) -- and places the
    program's cotangents, and their tangents, as dispatch's back places them (arrange)."""

    __slots__ = ("arrange", "arrange_dot", "back", "back_dot", "n_out", "y")

    def __init__(self, back, back_dot, arrange, y=None, n_out=0, arrange_dot=None):
        self.back, self.back_dot, self.arrange = back, back_dot, arrange
        # the tangents' placement, where it differs from the cotangents' (a cotangent that
        # goes to the ledger's slot has its tangent go to the book's: _attribute_held)
        self.arrange_dot = arrange if arrange_dot is None else arrange_dot
        self.y, self.n_out = y, n_out

    @property
    def effects(self) -> bool:
        return getattr(self.back, "_zp_effects", False)

    def then(self, arrange, arrange_dot=None):
        inner, inner_dot = self.arrange, self.arrange_dot
        arrange_dot = arrange if arrange_dot is None else arrange_dot
        return ProgramBack(self.back, self.back_dot, lambda out: arrange(inner(out)), self.y,
                           self.n_out, lambda out: arrange_dot(inner_dot(out)))

    def pair_back(self):
        """The back dispatch would have handed out: the program's back, placed."""
        inner, arrange, effects = self.back, self.arrange, self.effects
        nones = (None,) * self.n_out

        def back(g):
            if g is None and not effects:
                return arrange(nones)
            return arrange(tuple(inner(g)))

        if effects:
            back._zp_effects = True
        return back

    def call(self, fn, args, kwargs, targs, tkwargs, loc):
        g = args[0]
        g_dot = targs[0] if targs else None
        effects = self.effects
        if not effects and not fd.has_tangent(self.back_dot):
            # nothing the back captured moves and it writes nothing: it is linear in g
            value = self.arrange((None,) * self.n_out if g is None else tuple(self.back(g)))
            if not fd.has_tangent(g_dot):
                return value, None
            return value, self.arrange_dot(tuple(self.back(g_dot)))
        if g is None and not fd.has_tangent(g_dot) and not effects:
            return self.arrange((None,) * self.n_out), None
        back_dot = self.back_dot
        if not fd.has_tangent(back_dot):
            # (it ran plainly) the objects it holds that the ledger tracks count as moving:
            # its take_attribute's then take the tangents the book's slots gathered for them
            back_dot = _tracked_cells(self.back)
        outs, outs_dot = fd.apply(self.back, back_dot, (g,), {}, (g_dot,), {}, loc)
        value = self.arrange(tuple(outs))
        if outs_dot is None:
            return value, None
        return value, self.arrange_dot(tuple(outs_dot))


def _tracked_cells(fn):
    """CellTangents with Written() for fn's closure cells holding objects the reverse ledger
    tracks (built or written in the call), or None."""
    if not isinstance(fn, types.FunctionType) or not fn.__closure__ or \
            context.current().object_tangents is None:
        return None
    out = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if is_tracked(value):
            out[name] = forward_objects.Written()
    return fd.CellTangents(out) if out else None


class _Then(_Arrangeable):
    """A back tangent whose placed tangents dispatch's wrapper then rearranges (a method's
    back drops the function's own cotangent, a partial's its bound arguments')."""

    __slots__ = ("arrange", "inner")

    def __init__(self, inner, arrange):
        self.inner, self.arrange = inner, arrange

    def call(self, fn, args, kwargs, targs, tkwargs, loc):
        value = fn(*args, **kwargs)
        _, tangent = self.inner.call(lambda *a, **k: None, args, kwargs, targs, tkwargs, loc)
        return value, (self.arrange(tangent) if tangent is not None else None)


def _then(back_dot, arrange):
    if back_dot is LINEAR_IN_G:
        return LINEAR_IN_G  # a rearrangement of a back linear in g is linear in g
    return back_dot.then(arrange)


def _drop(n):
    return lambda out: tuple(out[n:])


# -- refusals ------------------------------------------------------------------------------


def _writes_refusal(loc) -> NoDerivativeRule:
    """A call that wrote or built objects (the call's ledger moved): following it forward
    would run the function, or its back, a second time, writing (or undoing) the objects'
    attributes twice."""
    return NoDerivativeRule(
        "forward mode over a gradient (zp.hessian) does not follow a call, resolved "
        "while the gradient runs, of a function that writes or builds objects", loc,
        "call a function by name that writes them (`step(m, x)`: followed), write them in "
        "the function differentiated itself, or use finite differences of zp.gradient")


def _refusal(name: str, what: str, loc) -> NoDerivativeRule:
    return NoDerivativeRule(
        f"forward mode over a gradient reaches {name}, a call the gradient resolved while "
        f"running, through {what}; differentiating that again is not supported yet", loc,
        "make the call's meaning known to the compiler (a plain function of arrays), or use "
        "finite differences of zp.gradient")


def _custom_refusal(f, loc) -> NoDerivativeRule:
    name = registry.qualified_name(f)
    if fd.handler_for(f) is not None:  # zp.gradient, zp.pullback, zp.jvp, ...
        return NoDerivativeRule(
            f"forward mode over gradient code that calls {name}: zygote_py does not nest this "
            "call to a third (or higher) order", loc,
            "nest it to order two, or see docs/limitations.md for what third derivatives "
            "follow")
    return NoDerivativeRule(
        f"forward mode over a gradient reaches {name}, which has a custom rule (@zp.adjoint): "
        "differentiating its backward function again is not supported", loc,
        "give the function a forward-mode rule (zygote_py.rules.registry.jvp), or avoid "
        "second derivatives through it")


# -- closures that generated code makes ------------------------------------------------------


def make_closure_jvp(args, kwargs, targs, tkwargs, loc):
    """`_zp_make_closure(code, globals, captured, defaults, kwdefaults)`, which generated code
    calls for a nested def, differentiated forward (generated code differentiated again):
    the closure's tangent holds the tangents of what it captured, as for a def in user code."""
    fn = make_closure(*args, **kwargs)
    targs = fd._padded(targs, 5)
    if fd.has_tangent(targs[3]) or fd.has_tangent(targs[4]):
        raise NoDerivativeRule("forward mode does not follow a derivative through a nested "
                               "function's default argument", loc,
                               "pass the value as an argument instead")
    captured_dot = targs[2]
    if not fd.has_tangent(captured_dot):
        return fn, None
    return fn, fd.closure_tangent(args[0].co_freevars, *captured_dot)


# -- the cotangent of an object from that of its attribute -------------------------------------


def attribute_cotangent_jvp(args, kwargs, targs, tkwargs, loc):
    """`_zp_attribute_cotangent(obj, name, g)` in gradient code differentiated forward.  It
    is linear in g; for a plain attribute ({name: g}), a bound method's read (g) and an
    attribute whose rule is linear (.T) obj only gives its structure, so the tangent is the
    same map applied to g's tangent.  A property's getter or a non-linear attribute rule
    whose object moves, and an object built or written in the call (its cotangent goes to
    the call's ledger), are refused."""
    obj, name, g = args
    obj_dot, _, g_dot = fd._padded(targs, 3)
    if is_tracked(obj):  # its cotangent goes to the ledger's slot, its tangent to the book's
        return forward_objects.attribute_cotangent_jvp(obj, obj_dot, name, g, g_dot, loc)
    value = dispatch.attribute_cotangent(obj, name, g)
    if fd.has_tangent(obj_dot):
        if type(obj) is super:
            raise _refusal(f"super().{name}", "an attribute reached through super()", loc)
        how = resolve_attribute(type(obj), name, registry)
        if how.kind == PROPERTY or how.kind == RULE and not getattr(how.rule.jvp, "linear", False) \
                or getattr_hook(obj, name) is not None:
            raise _refusal(f"the attribute {name!r}", "a property or an attribute rule of an "
                           "object that carries a tangent", loc)
    if not fd.has_tangent(g_dot):
        return value, None
    return value, dispatch.attribute_cotangent(obj, name, g_dot)


fd.register_handler(dispatch.attribute_cotangent, attribute_cotangent_jvp)
fd.register_handler(dispatch.call, call_jvp)
fd.register_handler(dispatch.call_method, method_jvp)
fd.register_handler(make_closure, make_closure_jvp)
