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
  FUNCTION_RULES  callee -> (signature, vjp, diff, sequence vjp or None, the vjp for
                  complex values or None (refused), options without a derivative,
                  qualified name);
  METHOD_RULES    (type, method name) -> the same;
  CUSTOM_RULES    callee -> the user's custom rule `rule(*args) -> (y, back)`;
  NONDIFF         callees and (type, method name) pairs that carry no derivative;
  ATTR_RULES      (type, attribute name) -> the same, for attribute reads;
  NONDIFF_ATTRS   (type, attribute name) pairs that carry no derivative.

What a callee means is decided by `zygote_py.resolve`, whose functions are
copied into the module with the rest and read these tables through
`TableRules`: the module resolves calls exactly as zygote_py does.

A call the tables do not cover runs plainly when none of its arguments can
carry a derivative, and otherwise raises an error that says how to
regenerate the module.  Locations are strings ("file.py:12:5").

Objects built or written in the call, and lists and dicts from outside updated
in place, are followed as in zygote_py: runtime/built_objects.py (the object
ledger, construction, attribute writes and their adjoints) is copied into the
module as it is, reading the call's state through `CallContext` (a stand-in
for zygote_py.context: a context variable holding the ledger) and raising the
plain error classes below.  A class called here is constructed by the copied
`construct`, with the pullback of its `__init__` from PULLBACKS; a back that
writes or builds objects runs even without a cotangent (`_zp_effects`).  The
entry points of such a module run its gradient through `value_and_gradients`
or `value_and_pullback`, which hold a ledger per call as api.py does.
"""

from __future__ import annotations

import contextvars
import gc
import inspect
import numbers
import sys
import types

import numpy as np

from ..api import finalize, is_active, scalar_kinds
from ..callables import structure_at_call
from ..kinds import found_attribute
from ..runtime.built_objects import (ObjectLedger, construct, dataclass_init, gathered_cotangents,
                                     is_dataclass_init, is_tracked, settle_seed, with_effects)
from ..runtime.containers import refuse_container_update
from ..calls.dispatch import _custom as custom_pullback
from ..calls.dispatch import _record_pullback as record_pullback
from ..calls.dispatch import attribute_cotangent_of
from ..calls.dispatch import active_cells as cells_holding_derivatives
from ..calls.flat_calls import _origins as origins_of
from ..calls.flat_calls import _spread as spread
from ..calls.flat_calls import carries_derivative
from ..resolve import NONDIFF as NO_DERIVATIVE  # NONDIFF here is the table
from ..resolve import (ATTRIBUTE, CALLABLE, CLASS, CONSTRUCT, CUSTOM, FUNCTION, METHOD,
                       OPERATOR_METHODS, PROPERTY, RECEIVER, RECORD, RULE, STATIC, getattr_hook,
                       is_plain_operand, no_rule_message, numpy_handoff, reads_bound_method,
                       resolve, resolve_attribute, resolve_method)
from ..runtime.outside_containers import _only_the_holder as references_when_held_once
from ..runtime.outside_containers import settle_claim
from ..calls.protocols import call_operator, refuse_numpy_object_operands
from ..calls.dispatch import _Flat as Flat  # copied into the module as _zp_Flat

PULLBACKS: dict = {}
FUNCTION_RULES: dict = {}
METHOD_RULES: dict = {}
CUSTOM_RULES: dict = {}
NONDIFF: set = set()
ATTR_RULES: dict = {}
NONDIFF_ATTRS: set = set()


def bars_by_argument(sig, flat, bars_by_param):
    """Cotangents per parameter of sig -> per flattened argument and keyword of flat (a
    Flat, or the pair (number of positional arguments, keywords))."""
    n, kwargs = (len(flat.args), flat.kwargs) if not isinstance(flat, tuple) else flat
    bound = sig.bind(*range(n), **{k: ("kw", k) for k in kwargs})
    arg_bars = [None] * n
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


def rule_pullback(rule, fn_call, flat, n_prefix, loc):
    """(y, back) for a copied rule; back gives the cotangents of the prefix then each operand.

    Refuses what zygote_py refuses in process (calls/flat_calls.py: _rule_pullback): a
    complex operand of a rule declared for real values only, and an option the rule has
    no derivative for (`where=` of np.max) in a call that carries a derivative."""
    sig, vjp, diff, sequence_vjp, complex_vjp, unsupported, qualname = rule
    if any(map(is_complex_value, flat.args)) or any(map(is_complex_value, flat.kwargs.values())):
        if complex_vjp is None:
            raise TypeError(f"{loc}: the derivative rule of {qualname} is for real values, and it "
                            "is called here with a complex one (refused, as zygote_py refuses it)")
        vjp = complex_vjp
    y = fn_call(*flat.args[n_prefix:], **flat.kwargs)
    bound = sig.bind(*flat.args, **flat.kwargs)
    bound.apply_defaults()
    for option in unsupported:
        if bound.arguments.get(option) is not None and any(map(is_active, flat.args)):
            raise TypeError(f"{loc}: the rule for {qualname} has no derivative with {option}= "
                            "given (refused, as zygote_py refuses it)")
    if sequence_vjp is not None and isinstance(y, (list, tuple)):  # concatenation, repetition
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
    """(y, back) for a Python function, from its pullback generated ahead of time; flat
    holds the n_prefix prefix arguments (self) first."""
    if is_dataclass_init(f):  # `Base.__init__(self, ...)` of a dataclass: replayed
        return dataclass_init(f, without_prefix(flat, n_prefix), tuple(flat.args[:n_prefix]), loc,
                              prefixed_pullback, origins_of, spread)
    y, inner = compiled_pullback(f, flat.args, flat.kwargs, loc)

    def back(g):
        """(cotangent of the function's captured cells, *prefix, *per operand)."""
        if g is None and not effects:
            return (None,) * (1 + n_prefix + len(flat.origin))
        own, arg_bars, kw_bars = inner(g)
        return (own, *arg_bars[:n_prefix], *flat.regroup(arg_bars, kw_bars))

    effects = getattr(inner, "_zp_effects", False)  # it writes or builds objects
    return y, with_effects(back, inner)


def without_prefix(flat, n_prefix):
    """flat without its first n_prefix arguments (those a Flat made with a prefix holds)."""
    if not n_prefix:
        return flat
    out = Flat((), ())
    out.args, out.kwargs = list(flat.args[n_prefix:]), flat.kwargs
    out.origin = [(kind, where - n_prefix, *rest) if kind in ("pos", "star")
                  else (kind, where, *rest) for kind, where, *rest in flat.origin]
    return out


def prefixed_pullback(f, flat, prefix=()):
    """What calls/dispatch.py's _function_pullback gives, for the copies of
    runtime/built_objects.py (construct, dataclass_init): (y, back) of f(*prefix, *flat),
    back(g) -> (cotangent of f's cells, *one per prefix argument, *one per operand)."""
    if is_dataclass_init(f):  # a dataclass's generated __init__ has no source: replayed
        return dataclass_init(f, flat, prefix, None, prefixed_pullback, origins_of, spread)
    y, inner = compiled_pullback(f, (*prefix, *flat.args), flat.kwargs, f"{f.__qualname__}")

    def back(g):
        if g is None and not effects:
            return (None,) * (1 + len(prefix) + len(flat.origin))
        own, arg_bars, kw_bars = inner(g)
        return (own, *arg_bars[:len(prefix)], *flat.regroup(arg_bars[len(prefix):], kw_bars))

    effects = getattr(inner, "_zp_effects", False)
    return y, with_effects(back, inner)


def compiled_pullback(f, args, kwargs, loc):
    """(y, back) of f(*args, **kwargs) from the pullback generated ahead of time for
    arguments of these kinds; back(g) -> (cotangent of the cells, per argument, per
    keyword).  Which arguments and cells carry a derivative is decided as run-time
    dispatch decides it (dispatch.py: carries_derivative, active_cells), since that is
    what the tables were recorded under."""
    sig = inspect.signature(f, follow_wrapped=False)
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    names = list(sig.parameters)
    values = [bound.arguments.get(n, ()) for n in names]
    active_cells = cells_holding_derivatives(f)
    key = (f.__qualname__, tuple(carries_derivative(v) for v in values), active_cells,
           scalar_kinds(values))
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
        cells = dict(zip(f.__code__.co_freevars, f.__closure__ or ()))
        pullback = pullback(*[cells[name].cell_contents for name in cell_names])
    y, inner = pullback(*args, **kwargs)
    counts = (len(args), kwargs)

    def back(g):
        out = inner(g)
        own = out[-1] if active_cells else None
        arg_bars, kw_bars = bars_by_argument(sig, counts, dict(zip(names, out)))
        return own, arg_bars, kw_bars

    return y, with_effects(back, inner)


def is_complex_value(x) -> bool:
    """A complex number or array, or a list/tuple holding one (runtime/complex_guard.py)."""
    if isinstance(x, (list, tuple)):
        return any(map(is_complex_value, x))
    dtype = found_attribute(x, "dtype")  # (never the class's own __getattr__: user code)
    return isinstance(x, complex) or (dtype is not None and getattr(dtype, "kind", "") == "c")


# NumPy functions with no derivative for real values that do vary for complex ones
# (runtime/complex_guard.py: VARY_ON_COMPLEX), by name: plain data the module can copy
VARY_ON_COMPLEX_NAMES = ("sign", "round", "around", "rint", "fix", "unique", "sort_complex")


def varies_on_complex(f) -> bool:
    name = getattr(f, "__name__", None)
    return name in VARY_ON_COMPLEX_NAMES and getattr(np, name, None) is f


def zero_back(n):
    return lambda g: (None,) * n


class TableRules:
    """The registry's questions, answered from the tables above: what `resolve` reads
    here, in place of `zygote_py.rules.registry`."""

    @staticmethod
    def custom_rule(f):
        return CUSTOM_RULES.get(f) if _hashable(f) else None

    @staticmethod
    def function_rule(f):
        return FUNCTION_RULES.get(f) if _hashable(f) else None

    @staticmethod
    def is_nondifferentiable(f):
        return _hashable(f) and f in NONDIFF

    @staticmethod
    def method_rule(klass, name):
        found = [METHOD_RULES[(c, name)] for c in klass.__mro__ if (c, name) in METHOD_RULES]
        return found[0] if found else None

    @staticmethod
    def method_is_nondifferentiable(klass, name):
        return any((c, name) in NONDIFF for c in klass.__mro__)

    @staticmethod
    def attr_rule(klass, name):
        found = [ATTR_RULES[(c, name)] for c in klass.__mro__ if (c, name) in ATTR_RULES]
        return found[0] if found else None

    @staticmethod
    def attr_is_nondifferentiable(klass, name):
        return any((c, name) in NONDIFF_ATTRS for c in klass.__mro__)


def check_assumed_arrays(args, checked):
    """Refuse an argument that a module generated without example arguments cannot take.

    Such a module was compiled taking the parameters in checked ((position,
    name) pairs) to be NumPy arrays or numbers: given another object, its
    `p.mean()` or `p.T` would be differentiated as NumPy's, a wrong gradient.
    """
    for position, name in checked:
        if position < len(args):
            value = args[position]
            if not isinstance(value, (np.ndarray, np.generic, numbers.Number)):
                raise TypeError(
                    f"argument {name!r} is a {type(value).__name__}, but this module was "
                    "generated without example arguments, taking it to be a NumPy array or a "
                    "number; regenerate it with `zygote-py grad --args ...` describing a call "
                    "like this one")


def no_rule(f, loc):
    message, _ = no_rule_message(f)  # the hint names @zp.adjoint, which a module cannot use
    return TypeError(f"{loc}: {message} (the standalone module knows only the callees "
                     "zygote-py saw)")


def call(f, operands, spec, loc):
    """f(*operands) -> (y, back); back(g) gives (cotangent of f, *one per operand)."""
    flat = Flat(operands, spec)
    n = 1 + len(flat.origin)
    how = resolve(f, TableRules)
    kind = how.kind
    if kind == CUSTOM:
        return custom_pullback(how.rule, flat)
    if kind == RULE:
        decided = object_operands(f, flat, loc)
        if decided is not None:
            return decided
        y, back = rule_pullback(how.rule, f, flat, 0, loc)
        return y, lambda g: (None, *back(g))
    if kind == NO_DERIVATIVE:
        decided = object_operands(f, flat, loc) if f in OPERATOR_METHODS else None
        if decided is not None:  # `obj // 2`: the object's own method, which may vary
            return decided
        if varies_on_complex(f) and any(map(is_active, flat.args)) and \
                any(map(is_complex_value, flat.args)):
            raise TypeError(f"{loc}: {getattr(f, '__name__', f)} of a complex value carries a "
                            "derivative that zygote_py does not implement (refused, as in process)")
        return f(*flat.args, **flat.kwargs), zero_back(n)
    if kind == FUNCTION:
        return function_pullback(f, flat, 0, loc)
    if kind == METHOD or kind == CALLABLE:
        y, back = function_pullback(how.function, Flat(operands, spec, (how.receiver,)), 1, loc)
        # the callee's own cotangent is that of its receiver
        return y, with_effects(lambda g: back(g)[1:], back)
    if kind == RECEIVER:
        return call_method(how.receiver, how.name, operands, spec, loc)
    if kind == RECORD:  # a NamedTuple: each field's cotangent goes to its argument
        return record_pullback(f, flat)
    if kind == CONSTRUCT:  # a class of the user's: built as in process (built_objects.py)
        return construct(f, flat, loc, prefixed_pullback, origins_of, spread)
    if not flat.any_active():
        return f(*flat.args, **flat.kwargs), zero_back(n)
    raise no_rule(f, loc)


def object_operands(f, flat, loc):
    """dispatch._object_operands: Python's operator protocol and NumPy's hand-off to an
    object's method, with this module's pullbacks (calls/protocols.py)."""
    if type(f) is types.BuiltinFunctionType and f in OPERATOR_METHODS:
        found = call_operator(f, tuple(flat.args), method_pullback(loc), carries_derivative,
                              failure(loc))
        if found is None:
            return None
        y, back = found  # a method that builds or writes objects keeps its mark
        return y, with_effects(lambda g: (None, *flat.regroup(back(g), {})), back)
    if all(map(is_plain_operand, flat.args)) and all(map(is_plain_operand, flat.kwargs.values())):
        return None
    handoff = numpy_handoff(f, tuple(flat.args), flat.kwargs)
    if handoff is not None:
        name, keywords = handoff
        y, back = call_method(flat.args[0], name, tuple(keywords.values()), tuple(keywords), loc)
        rest = [None] * (len(flat.args) - 1)
        return y, lambda g: (None, *flat.regroup([back(g)[0], *rest], {}))
    refuse_numpy_object_operands(f, tuple(flat.args), flat.kwargs, failure(loc))
    return None


def method_pullback(loc):
    def pullback(method, receiver, others):
        y, back = function_pullback(method, Flat(others, [None] * len(others), (receiver,)), 1,
                                    loc)
        return y, with_effects(lambda g: back(g)[1:], back)

    return pullback


def failure(loc):
    return lambda message, hint: TypeError(f"{loc}: {message}")


def call_method(obj, name, operands, spec, loc):
    """obj.name(*operands) -> (y, back); back(g) gives (cotangent of obj, *one per operand)."""
    if type(obj) is super:  # super().name(...): what the MRO after the class gives, bound
        return call(getattr(obj, name), operands, spec, loc)  # its own cotangent: self's
    flat = Flat(operands, spec, (obj,))
    n = 1 + len(flat.origin)
    how = resolve_method(obj, name, TableRules)
    kind = how.kind
    if kind == RULE:
        refuse_numpy_object_operands(getattr(obj, name), tuple(flat.args), flat.kwargs,
                                     failure(loc))  # np.add.reduce([obj, obj])
        return rule_pullback(how.rule, getattr(obj, name), flat, 1, loc)
    if kind == NO_DERIVATIVE:
        return getattr(obj, name)(*flat.args[1:], **flat.kwargs), zero_back(n)
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
        y, back = function_pullback(how.function, Flat(operands, spec, (how.receiver,)), 1, loc)
        return y, with_effects(lambda g: (None, *back(g)[2:]), back)
    if kind == METHOD:
        y, back = function_pullback(how.function, flat, 1, loc)
        return y, with_effects(lambda g: back(g)[1:], back)
    if not carries_derivative(obj) and not flat.any_active():
        return getattr(obj, name)(*flat.args[1:], **flat.kwargs), zero_back(n)
    refuse_container_update(obj, name, loc)  # self.items.append(v): a MutationError
    raise no_rule(getattr(obj, name), loc)


def attribute_cotangent(obj, name, g):
    """Cotangent of obj from that of obj.name: through the attribute's rule, none for a
    non-differentiable attribute, through a property's getter, g itself for a bound
    method, or {name: g}."""
    if g is None:
        return None
    if type(obj) is super:
        return super_attribute_cotangent(obj, name, g)
    how = resolve_attribute(type(obj), name, TableRules)
    if how.kind == RULE:
        vjp = how.rule[1] if not is_complex_value(obj) or how.rule[4] is None else how.rule[4]
        return vjp(g, getattr(obj, name), obj)
    if how.kind == NO_DERIVATIVE:
        return None
    if how.kind == PROPERTY:
        _, back = function_pullback(how.function, Flat((), (), (obj,)), 1, f"property {name}")
        return back(g)[1]
    if getattr_hook(obj, name) is not None:  # computed by the class's __getattr__
        raise ZygoteError(f"the attribute {name!r} of a {type(obj).__name__} is computed by its "
                          "class's __getattr__, which a standalone module does not differentiate",
                          hint="use zp.gradient in-process, or store the value as an attribute")
    if reads_bound_method(obj, name):
        return g  # a bound method's cotangent is its receiver's
    return attribute_cotangent_of(obj, name, g)  # an object tracked in this call: its slot


def super_attribute_cotangent(proxy, name, g):
    """dispatch._super_attribute_cotangent: the cotangent of `super()` (its self) from that
    of `super().name`, decided by the classes after the method's class in self's MRO."""
    receiver = proxy.__self__
    mro = type(receiver).__mro__
    for klass in mro[mro.index(proxy.__thisclass__) + 1:]:
        if name in vars(klass):
            attr = vars(klass)[name]
            if isinstance(attr, property) and isinstance(attr.fget, types.FunctionType):
                _, back = prefixed_pullback(attr.fget, Flat((), ()), (receiver,))
                return back(g)[1]
            return g if isinstance(attr, types.FunctionType) else None
    return None


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


def ints_are_reals() -> bool:
    """A standalone module gives int arguments no gradient (dispatch.ints_are_reals)."""
    return False


def super_of(cls, obj):
    """`super()` in a method of cls called on obj (built_objects.super_of).  cls is the
    module's copy of the user's class; obj may be an instance of the original (passed in
    by the caller), whose class of that qualified name in its MRO is meant then -- the
    name the dispatch tables find its methods by."""
    if not (isinstance(obj, cls) or isinstance(obj, type) and issubclass(obj, cls)):
        mro = obj.__mro__ if isinstance(obj, type) else type(obj).__mro__
        cls = next((k for k in mro if k.__qualname__ == cls.__qualname__), cls)
    return super(cls, obj)


# -- objects built or written in the call: runtime/built_objects.py, copied whole --------------
# The builder copies built_objects' functions and its ObjectLedger into the module as they
# are; what they read of zygote_py is replaced: `context` by CallContext (below), whose
# current() gives the state of the gradient call running now, and the error classes by
# the plain ones below.


class ZygoteError(Exception):
    """zygote_py's errors in a standalone module: the message at its location (a string,
    "file.py:12:5"), and a hint."""

    def __init__(self, message, loc=None, hint=None):
        self.message, self.loc, self.hint = message, loc, hint
        text = f"{loc}: {message}" if loc is not None else message
        super().__init__(text + (f"\nhint: {hint}" if hint else ""))


class MutationError(ZygoteError):
    """A write zygote_py does not differentiate (errors.MutationError)."""


class NoDerivativeRule(ZygoteError):
    """A call with no derivative where one is needed (errors.NoDerivativeRule)."""


class SourceUnavailable(ZygoteError):
    """A function without source (errors.SourceUnavailable)."""


class UnsupportedSyntax(ZygoteError):
    """A construct zygote_py does not differentiate (errors.UnsupportedSyntax)."""


class CallState:
    """What context.current() gives the copied code: the ObjectLedger of the gradient call
    running now (None outside one); no Params are collected and ints are not reals."""

    __slots__ = ("objects",)
    collector = None
    reals = False
    observers = ()

    def __init__(self, objects=None):
        self.objects = objects


class CallContext:
    """Stands for zygote_py.context in the module: the state of the gradient call running
    now, kept in a context variable (one per thread and asyncio task, as in zygote_py)."""

    state = contextvars.ContextVar("zygote_py_standalone_call", default=None)
    # the places of the iterators computing their items ahead now (runtime/iterators.py)
    ahead = contextvars.ContextVar("zygote_py_standalone_items_ahead", default=())

    @staticmethod
    def current():
        return CallContext.state.get() or CallState()  # outside a gradient call: no ledger

    @staticmethod
    def items_ahead():
        return CallContext.ahead.get()

    @staticmethod
    def set_items_ahead(places):
        CallContext.ahead.set(places)


def object_ledger():
    """Stands for runtime/built_objects.py where runtime/writes.py looks it up among the
    loaded modules (writes._object_ledger: an array held by an object built or written in
    the call, written in place): the module's own copies, which read its ledger."""
    return types.SimpleNamespace(is_tracked=is_tracked, gathered_cotangents=gathered_cotangents)


def value_and_gradients(grad, args):
    """(y, one gradient per argument) of grad(*args), the compiled gradient, as
    zp.withgradient computes them (api.py): the objects it builds or writes are entered
    in a ledger of this call, and are as the forward pass left them afterwards; the
    gradients follow the arguments' structure at the call (callables.py: a list the call
    appends to gets a gradient for the items it had)."""
    at_call = tuple(structure_at_call(a) for a in args)
    ledger = ObjectLedger()
    token = CallContext.state.set(CallState(ledger))
    try:
        y, bars = grad(*args)
    finally:
        ledger.replay()
        CallContext.state.reset(token)
    return y, finalize_all(bars, at_call)


def value_and_pullback(pullback, args):
    """(y, back) of pullback(*args), the compiled pullback, as zp.pullback makes them
    (api.py): back(dy) gives one cotangent per argument, and runs with a ledger of its own
    over the forward's objects, as often as it is called."""
    at_call = tuple(structure_at_call(a) for a in args)
    forward = ObjectLedger()
    token = CallContext.state.set(CallState(forward))
    try:
        y, inner = pullback(*args)
    finally:
        CallContext.state.reset(token)

    def back(dy):
        if dy is None:
            return (None,) * len(args)
        ledger = forward.for_backward()  # cotangent slots of this run's own
        token = CallContext.state.set(CallState(ledger))
        try:
            bars = inner(settle_seed(y, dy))
        finally:
            ledger.replay()
            CallContext.state.reset(token)
        return finalize_all(bars, at_call)

    return y, back


# -- module-level lists and dicts updated in place: runtime/outside_containers.py ------------
# The module's copy of the user's function and its gradient read the module's own copy of
# the global (written out with the items it held before the example run); the gradient
# claims it at its entry as in zygote_py, with the same checks, copied from there
# (settle_claim, check_binding, check_outside_read).  Only the reference count is taken
# here: what "nothing else holds it" counts is measured by the Python running the module.


def claim_outside(value, name, loc=None) -> None:
    """outside_containers.claim_outside in the module: value (read from the module's global
    where it is passed) claimed for this gradient call."""
    refs = sys.getrefcount(value)
    alone = references_when_held_once()  # (as claim_outside's first line counts them)
    if refs > alone:  # garbage not yet collected may hold it: counted again without it
        gc.collect()
        refs = sys.getrefcount(value)
    settle_claim(value, name, loc, refs > alone, CallContext.current().objects)
