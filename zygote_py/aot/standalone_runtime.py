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
"""

from __future__ import annotations

import inspect
import numbers
import types

import numpy as np

from ..api import finalize, is_active, scalar_kinds
from ..runtime.dispatch import _custom as custom_pullback
from ..resolve import NONDIFF as NO_DERIVATIVE  # NONDIFF here is the table
from ..resolve import (ATTRIBUTE, CALLABLE, CLASS, CUSTOM, FUNCTION, METHOD, OPERATOR_METHODS,
                       PROPERTY, RECEIVER, RULE, STATIC, is_plain_operand, no_rule_message,
                       numpy_handoff, reads_bound_method, resolve, resolve_attribute,
                       resolve_method)
from ..runtime.protocols import call_operator, refuse_object_operands
from ..runtime.dispatch import _Flat as Flat  # copied into the module as _zp_Flat
from ..tree import keyed_cotangent

PULLBACKS: dict = {}
FUNCTION_RULES: dict = {}
METHOD_RULES: dict = {}
CUSTOM_RULES: dict = {}
NONDIFF: set = set()
ATTR_RULES: dict = {}
NONDIFF_ATTRS: set = set()


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


def rule_pullback(rule, fn_call, flat, n_prefix, loc):
    """(y, back) for a copied rule; back gives the cotangents of the prefix then each operand.

    Refuses what zygote_py refuses in process (runtime/flat_calls.py: _rule_pullback): a
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


def is_complex_value(x) -> bool:
    """A complex number or array, or a list/tuple holding one (runtime/complex_guard.py)."""
    if isinstance(x, (list, tuple)):
        return any(map(is_complex_value, x))
    dtype = getattr(x, "dtype", None)
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
        return y, lambda g: back(g)[1:]  # the callee's own cotangent is that of its receiver
    if kind == RECEIVER:
        return call_method(how.receiver, how.name, operands, spec, loc)
    if not flat.any_active():
        return f(*flat.args, **flat.kwargs), zero_back(n)
    raise no_rule(f, loc)


def object_operands(f, flat, loc):
    """dispatch._object_operands: Python's operator protocol and NumPy's hand-off to an
    object's method, with this module's pullbacks (runtime/protocols.py)."""
    if type(f) is types.BuiltinFunctionType and f in OPERATOR_METHODS:
        found = call_operator(f, tuple(flat.args), method_pullback(loc), is_active, failure(loc))
        if found is None:
            return None
        y, back = found
        return y, lambda g: (None, *flat.regroup(back(g), {}))
    if all(map(is_plain_operand, flat.args)) and all(map(is_plain_operand, flat.kwargs.values())):
        return None
    handoff = numpy_handoff(f, tuple(flat.args), flat.kwargs)
    if handoff is not None:
        name, keywords = handoff
        y, back = call_method(flat.args[0], name, tuple(keywords.values()), tuple(keywords), loc)
        rest = [None] * (len(flat.args) - 1)
        return y, lambda g: (None, *flat.regroup([back(g)[0], *rest], {}))
    if isinstance(f, np.ufunc) or (getattr(f, "__module__", None) or "").startswith("numpy"):
        refuse_object_operands(f, tuple(flat.args), flat.kwargs, failure(loc))
    return None


def method_pullback(loc):
    def pullback(method, receiver, others):
        y, back = function_pullback(method, Flat(others, [None] * len(others), (receiver,)), 1,
                                    loc)
        return y, lambda g: back(g)[1:]

    return pullback


def failure(loc):
    return lambda message, hint: TypeError(f"{loc}: {message}")


def call_method(obj, name, operands, spec, loc):
    """obj.name(*operands) -> (y, back); back(g) gives (cotangent of obj, *one per operand)."""
    flat = Flat(operands, spec, (obj,))
    n = 1 + len(flat.origin)
    how = resolve_method(obj, name, TableRules)
    kind = how.kind
    if kind == RULE:
        return rule_pullback(how.rule, getattr(obj, name), flat, 1, loc)
    if kind == NO_DERIVATIVE:
        return getattr(obj, name)(*flat.args[1:], **flat.kwargs), zero_back(n)
    if kind == ATTRIBUTE:
        # the held callable's own cotangent is that of the attribute
        y, back = call(how.function, operands, spec, loc)

        def attribute_back(g):
            own, *rest = back(g)
            return ({name: own} if own is not None else None, *rest)

        return y, attribute_back
    if kind == STATIC:
        y, back = call(how.function, operands, spec, loc)
        return y, lambda g: (None, *back(g)[1:])
    if kind == CLASS:
        y, back = function_pullback(how.function, Flat(operands, spec, (how.receiver,)), 1, loc)
        return y, lambda g: (None, *back(g)[2:])
    if kind == METHOD:
        y, back = function_pullback(how.function, flat, 1, loc)
        return y, lambda g: back(g)[1:]
    if not is_active(obj) and not flat.any_active():
        return getattr(obj, name)(*flat.args[1:], **flat.kwargs), zero_back(n)
    raise no_rule(getattr(obj, name), loc)


def attribute_cotangent(obj, name, g):
    """Cotangent of obj from that of obj.name: through the attribute's rule, none for a
    non-differentiable attribute, through a property's getter, g itself for a bound
    method, or {name: g}."""
    if g is None:
        return None
    how = resolve_attribute(type(obj), name, TableRules)
    if how.kind == RULE:
        vjp = how.rule[1] if not is_complex_value(obj) or how.rule[4] is None else how.rule[4]
        return vjp(g, getattr(obj, name), obj)
    if how.kind == NO_DERIVATIVE:
        return None
    if how.kind == PROPERTY:
        _, back = function_pullback(how.function, Flat((), (), (obj,)), 1, f"property {name}")
        return back(g)[1]
    if reads_bound_method(obj, name):
        return g  # a bound method's cotangent is its receiver's
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


def ints_are_reals() -> bool:
    """A standalone module gives int arguments no gradient (dispatch.ints_are_reals)."""
    return False


def is_tracked(obj) -> bool:
    """No object is built by transformed code in a standalone module (built_objects.is_tracked)."""
    return False


def deposit_whole(obj, g, loc=None) -> None:
    """Never reached: no object is tracked here (built_objects.deposit_whole)."""


def set_attribute(obj, name, value, loc):
    """Writes into objects are not supported by standalone modules (built_objects.set_attribute)."""
    raise ValueError(f"{loc}: assigning to .{name} inside differentiated code is not supported "
                     "in a standalone module; compute the gradient with zygote_py")


def check_outside_read(value, name, loc=None) -> None:
    """No list or dict is claimed in a standalone module (outside_containers.check_outside_read)."""


def take_attribute(obj, name, old, new):
    """Never reached: no attribute is written here (built_objects.take_attribute)."""
    raise ValueError("attribute writes are not supported in a standalone module")


def released_cotangent(obj):
    """No object from outside is written here (built_objects.released_cotangent): None."""


def check_underived_argument(value, rule, name, loc):
    """No object from outside is written here, so the value carries no derivative
    (built_objects.check_underived_argument)."""


def check_underived_result(y, what, loc):
    """No object from outside is written here, so nothing can be missed
    (built_objects.check_underived_result)."""
    return y
