"""Forward mode while running: calls whose meaning is decided from the objects there.

Code made by the forward transform (ad/forward/) computes each value and,
beside it, its *tangent*: the directional derivative along the tangents given
to `zp.jvp`.  A tangent mirrors its value's structure: an array's is an array
of its shape, a float's a float, a list's a list of the items' tangents, a
dict's a dict, an object's an object (or dict) holding its attributes'
tangents.  `None` is the zero tangent, at any level.

Calls the transform cannot place statically go through `jvp_call`,
`jvp_method` and `jvp_attr`, which return `(value, tangent)`.  What a callee
means is asked of the one resolver (resolve.py), as reverse mode's dispatcher
does: a registered rule applies its forward rule (`rule.jvp`, signature
`(dx..., y, *primal_params) -> dy`), a Python function is transformed in turn
(the compiler of the running `zp.jvp` call, from the Context), a bound method
or callable object passes its receiver's tangent, a NamedTuple class builds
the tangent record, a non-differentiable function gives a zero tangent, and
anything else called with a nonzero tangent is a NoDerivativeRule at the
user's line -- never a silently zero derivative.

The small helpers at the end give the tangents of container operations (the
items a loop iterates, unpacking, appends).
"""

from __future__ import annotations

import inspect
import itertools
import types
from collections.abc import ItemsView, KeysView, ValuesView

import numpy as np

from .. import context
from ..errors import InternalError, NoDerivativeRule, ZygoteError
from ..kinds import scalar_kinds
from ..resolve import (
    ATTRIBUTE,
    CALLABLE,
    CLASS,
    CUSTOM,
    FUNCTION,
    METHOD,
    NONDIFF,
    NUMPY_HANDOFF,
    OPERATOR_METHODS,
    PROPERTY,
    RECEIVER,
    RECORD,
    RULE,
    STATIC,
    getattr_hook,
    is_plain_operand,
    no_rule,
    numpy_handoff,
    operator_candidates,
    resolve,
    resolve_attribute,
    resolve_method,
)
from ..rules import registry
from ..rules.registry import forward_rule
from ..runtime.helpers import flag_function  # noqa: F401  (the forward transform emits it)
from ..runtime.iterators import Items, Pass
from ..runtime.tangent_checks import CellTangents, has_tangent, refuse_object_iteration  # noqa: F401
from . import dispatch
from .protocols import refuse_numpy_object_operands

# Functions whose forward-mode meaning is given by a handler rather than their source: the
# API's own differentiation functions (forward_api.py registers zp.gradient's).  Filled once,
# at import; a handler is (args, kwargs, targs, tkwargs, loc) -> (value, tangent).
_HANDLERS: dict = {}


def register_handler(fn, handler) -> None:
    _HANDLERS[fn] = handler


def handler_for(fn):
    try:
        return _HANDLERS.get(fn)
    except TypeError:  # an unhashable callee
        return None


# Functions with a custom reverse rule whose backward function forward mode can follow: the
# nested zp.gradient, zp.pullback, zp.jvp, ... (nested.py).  Gradient code that calls one
# (`y, back = _zp_call(zp.gradient, ...)`) differentiated forward asks
# `maker(args, kwargs, targs, tkwargs, loc) -> (y_dot, back_tangent)`, back_tangent(g, g_dot)
# giving the tangent of the rule's own back(g): a third derivative.  Filled once, at import.
_CUSTOM_FORWARD: dict = {}


def register_custom_forward(fn, maker) -> None:
    _CUSTOM_FORWARD[fn] = maker


def custom_forward_for(fn):
    try:
        return _CUSTOM_FORWARD.get(fn)
    except TypeError:  # an unhashable callee
        return None


class CallTangent:
    """The tangent of a function value whose call forward mode differentiates by the
    tangent's own `call(fn, args, kwargs, targs, tkwargs, loc) -> (value, tangent)`: the
    back function of a nested zp.pullback (nested.py)."""

    __slots__ = ()

    def call(self, fn, args, kwargs, targs, tkwargs, loc):
        raise NotImplementedError




# -- calls -----------------------------------------------------------------------------


def augmented_tangent(y, new_dot, loc=None):
    """The tangent of `y op= v` (runtime/writes.py: augmented_write) given new = `y op v`'s:
    a number rebinds, so its tangent is new's.  An ndarray is written in place, which forward
    mode does not follow: refused at the user's line."""
    if isinstance(y, np.ndarray):
        raise not_followed("writes into arrays (`y op= v` on an ndarray)", loc)
    return new_dot


def writeback_tangent(m, t, m_dot, loc=None):
    """The tangent of another name m after a write into t (runtime/writes.view_writeback):
    unchanged where m is not an array sharing t's memory (a number a `y op= v` rebound)."""
    if isinstance(m, np.ndarray) and isinstance(t, np.ndarray):
        raise not_followed("writes into arrays", loc)
    return m_dot


def not_followed(what: str, loc) -> NoDerivativeRule:
    """The refusal of forward mode (zp.jvp, zp.jacobian(mode="forward"), zp.hessian) for
    the mutation it does not follow yet."""
    return NoDerivativeRule(
        f"forward mode (zp.jvp, zp.hessian, a forward zp.jacobian) does not follow {what} yet",
        loc, "use reverse mode (zp.gradient, zp.pullback, zp.jacobian(..., mode='reverse')), "
        "or write the computation without the write")


def jvp_call(f, f_dot, args: tuple, tangents: tuple, spec: tuple, loc):
    """`f(*args)` with spec saying how each operand is passed (None positional, '*',
    '**' or a keyword name); returns (value, tangent)."""
    if f_dot is None:
        plain = _plain_rule(f, args, tangents, spec)
        if plain is not None:  # what apply() decides for these operands, without its questions
            rule, positions = plain
            y = f(*args)
            dxs = [tangents[i] if i < len(tangents) else None for i in positions]
            if all(d is None for d in dxs):
                return y, None
            try:  # (the forward rule right for complex values too: rules/jvp_complex.py)
                return y, forward_rule(rule)(*dxs, y, *args)
            except ZygoteError as err:
                if err.loc is None and loc is not None:
                    raise type(err)(err.message, loc, err.hint) from None
                raise
    pargs, kwargs, targs, tkwargs = _spread(args, tangents, spec)
    return apply(f, f_dot, pargs, kwargs, targs, tkwargs, loc)


_PLAIN_TYPES = frozenset({float, int, np.float64, np.float32, np.ndarray})
# callee -> (its rule, the positions of its differentiable parameters, the number of its
# positional parameters), or () for a callee without such a rule.  A cache that never
# changes a result: an entry is derived from the registry and rebuilt when the callee's
# rule is re-registered (a new Rule object); two threads filling it store equal entries.
_PLAIN_RULES: dict = {}


def _plain_rule(f, args, tangents, spec):
    """(rule, positions of rule.diff's parameters) when f has a registered rule and is called
    by position, its differentiable arguments plain floats and arrays (their tangents None
    or the same) and the others plain constants, with no custom rule or handler: then what
    `apply` decides is this rule's forward rule, and the question is answered here in a
    few lookups.  (Gradient code differentiated forward -- zp.hessian -- calls operators
    and helpers on values popped from its tapes, which the transform cannot type.)"""
    try:
        entry = _PLAIN_RULES.get(f)
    except TypeError:  # an unhashable callee
        return None
    if entry is None or (entry and registry.function_rule(f) is not entry[0]):
        entry = _PLAIN_RULES[f] = _plain_entry(f)  # first seen, or its rule re-registered
    if not entry or any(s is not None for s in spec) or len(args) > entry[2]:
        return None
    rule, positions, _ = entry
    if registry.custom_rule(f) is not None or \
            f in _HANDLERS or (f in NUMPY_HANDOFF and (not args or type(args[0]) is not np.ndarray)):
        return None
    for i, (a, t) in enumerate(zip(args, tangents)):
        if i in positions:
            if type(a) not in _PLAIN_TYPES or (t is not None and type(t) not in _PLAIN_TYPES):
                return None
        elif not is_plain_operand(a):
            return None
    return rule, positions


def _plain_entry(f):
    if f is dispatch.call or f is dispatch.call_method:
        return ()
    rule = registry.function_rule(f)
    if rule is None or rule.jvp is None or rule.meta.get("unsupported") or \
            rule.meta.get("underived"):
        return ()
    names = []
    for p in rule.params:
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            break
        names.append(p.name)
    if any(name not in names for name in rule.diff):
        return ()
    return rule, tuple(names.index(name) for name in rule.diff), len(names)


def jvp_method(obj, obj_dot, name: str, args: tuple, tangents: tuple, spec: tuple, loc):
    """`obj.name(*args)`, decided by obj's type; returns (value, tangent)."""
    pargs, kwargs, targs, tkwargs = _spread(args, tangents, spec)
    return apply_method(obj, obj_dot, name, pargs, kwargs, targs, tkwargs, loc)


def jvp_attr(obj, obj_dot, name: str, loc):
    """`obj.name` and its tangent."""
    y = getattr(obj, name)
    if not has_tangent(obj_dot):
        return y, None
    res = resolve_attribute(type(obj), name, registry)
    if res.kind == RULE:
        return y, _rule_jvp(res.rule, (obj,), {}, (obj_dot,), {}, y, loc)
    if res.kind == NONDIFF:
        return y, None
    if res.kind == PROPERTY:
        return _python(res.function, None, (obj,), {}, (obj_dot,), {}, loc)
    hook = getattr_hook(obj, name)
    if hook is not None:  # obj.name computed by the class's __getattr__(obj, name)
        return _python(hook, None, (obj, name), {}, (obj_dot, None), {}, loc)
    if isinstance(y, types.MethodType) and y.__self__ is obj:
        return y, obj_dot  # a bound method's tangent is its receiver's
    if isinstance(obj, (Items, Pass)):
        # their tangent is the list of the items' tangents (of the iterator a Pass reads)
        return y, (obj_dot if name in ("items", "source") else None)
    fields = getattr(type(obj), "_fields", None)
    if isinstance(obj, tuple) and isinstance(fields, tuple) and name in fields \
            and type(obj_dot) in (tuple, list):
        # a NamedTuple's tangent built as a plain tuple (a rule's, by position)
        return y, obj_dot[fields.index(name)]
    return y, tangent_attr(obj_dot, name)


def tangent_attr(obj_dot, name: str):
    """The tangent of attribute name inside an object's tangent."""
    if obj_dot is None:
        return None
    if isinstance(obj_dot, dict):
        return obj_dot.get(name)
    if type(obj_dot) in (tuple, list) and has_tangent(obj_dot):
        # a tangent without names: reading .name from it would be a silent zero
        raise ZygoteError(f"forward mode cannot tell which entry of a {type(obj_dot).__name__} "
                          f"tangent is the attribute .{name}",
                          hint="use reverse mode here, or read the value by position")
    return _instance_tangent(obj_dot, name)


def _instance_tangent(obj_dot, name: str):
    """Attribute name of a tangent that is an object (a NamedTuple or a user object of
    tangents): what the instance holds.  A plain value found on its class (a NamedTuple's
    `_fields`, a class constant `SCALE = 2.0`) is the same for every instance, so it has no
    tangent; reading it from the tangent object would pass the constant off as one."""
    for klass in type(obj_dot).__mro__:
        attr = klass.__dict__.get(name, _MISSING)
        if attr is _MISSING:
            continue
        if hasattr(type(attr), "__get__"):  # a field, slot or property: the instance's value
            break
        instance = getattr(obj_dot, "__dict__", None)
        return instance.get(name) if isinstance(instance, dict) else None
    return getattr(obj_dot, name, None)


_MISSING = object()


def apply(f, f_dot, args, kwargs, targs, tkwargs, loc):
    if isinstance(f_dot, CallTangent):
        return f_dot.call(f, args, kwargs, targs, tkwargs, loc)
    if f_dot is None and _is_runtime_pullback(f):
        # a pullback whose operands do not move: back(g) is linear in g
        g_dot = targs[0] if targs else None
        if has_tangent(g_dot) and getattr(f, "_zp_effects", False):
            # unless it undoes attribute writes (and moves their cotangents): running it a
            # second time for g's tangent would undo them twice
            raise NoDerivativeRule(
                "forward mode over a gradient reaches the back of a call that writes or builds "
                "objects without knowing how that call was run (its pair lost its tangent)",
                loc, "call the function by name, or use finite differences of zp.gradient")
        return f(*args, **kwargs), (f(g_dot) if has_tangent(g_dot) else None)
    handler = handler_for(f)
    if handler is not None:
        return handler(args, kwargs, _padded(targs, len(args)), tkwargs, loc)
    if not has_tangent(f_dot) and not any(map(has_tangent, targs)) \
            and not any(map(has_tangent, tkwargs.values())):
        return f(*args, **kwargs), None
    try:
        operator_fn = f in OPERATOR_METHODS
    except TypeError:
        operator_fn = False
    if operator_fn:  # Python's protocol: an object's own operator methods first
        candidates = operator_candidates(f, args)
        if candidates is not None:
            return _operator_protocol(f, candidates, args, targs, loc)
    handoff = numpy_handoff(f, args, kwargs)
    if handoff is not None:  # np.sum(obj) calls obj.sum(...)
        name, passed = handoff
        return apply_method(args[0], targs[0] if targs else None, name, (), passed, (), {}, loc)
    res = resolve(f, registry)
    kind = res.kind
    if kind == RULE:
        refuse_numpy_object_operands(f, args, kwargs, _failure(loc))  # np.sum([obj, obj])
        y = f(*args, **kwargs)
        return y, _rule_jvp(res.rule, args, kwargs, targs, tkwargs, y, loc)
    if kind == NONDIFF:
        return f(*args, **kwargs), None
    if kind == FUNCTION:
        return _python(f, f_dot, args, kwargs, targs, tkwargs, loc)
    if kind == METHOD or kind == CALLABLE:
        receiver_dot = f_dot if kind == METHOD or not isinstance(f_dot, CellTangents) else None
        return _python(res.function, None, (res.receiver, *args), kwargs,
                       (receiver_dot, *_padded(targs, len(args))), tkwargs, loc)
    if kind == RECEIVER:
        return apply_method(res.receiver, f_dot, res.name, args, kwargs, targs, tkwargs, loc)
    if kind == RECORD:
        y = f(*args, **kwargs)
        return y, f(*_padded(targs, len(args)), **{k: tkwargs.get(k) for k in kwargs})
    if kind == CUSTOM:
        raise NoDerivativeRule(
            f"{registry.qualified_name(f)} has a reverse-mode rule (@zp.adjoint) but no "
            "forward-mode rule, and forward mode (zp.jvp) reaches it with a nonzero tangent", loc,
            "use reverse mode (zp.gradient / zp.jacobian(mode='reverse')) for this function")
    raise no_rule(f, loc)


def apply_method(obj, obj_dot, name, args, kwargs, targs, tkwargs, loc):
    if not has_tangent(obj_dot) and not any(map(has_tangent, targs)) \
            and not any(map(has_tangent, tkwargs.values())):
        return getattr(obj, name)(*args, **kwargs), None
    res = resolve_method(obj, name, registry)
    kind = res.kind
    if kind == RULE:
        refuse_numpy_object_operands(getattr(obj, name), args, kwargs,
                                     _failure(loc))  # np.add.reduce([obj, obj])
        y = getattr(obj, name)(*args, **kwargs)
        return y, _rule_jvp(res.rule, (obj, *args), kwargs, (obj_dot, *_padded(targs, len(args))),
                            tkwargs, y, loc)
    if kind == NONDIFF:
        return getattr(obj, name)(*args, **kwargs), None
    if kind == ATTRIBUTE:
        return apply(res.function, tangent_attr(obj_dot, name), args, kwargs, targs, tkwargs, loc)
    if kind == STATIC:
        return apply(res.function, None, args, kwargs, targs, tkwargs, loc)
    if kind == CLASS:
        return _python(res.function, None, (res.receiver, *args), kwargs,
                       (None, *_padded(targs, len(args))), tkwargs, loc)
    if kind == METHOD:
        return _python(res.function, None, (obj, *args), kwargs,
                       (obj_dot, *_padded(targs, len(args))), tkwargs, loc)
    method = getattr(obj, name)
    raise no_rule(method, loc)


def _operator_protocol(f, candidates, args, targs, loc):
    targs = _padded(targs, len(args))
    for method, receiver, others, positions in candidates:
        if isinstance(method, types.FunctionType):
            receiver_pos = next(i for i in range(len(args)) if i not in positions)
            receiver_dot = targs[receiver_pos]
            y, dy = _python(method, None, (receiver, *others), {},
                            (receiver_dot, *(targs[i] for i in positions)), {}, loc)
        else:  # a builtin type's method: the registered rule, on the operands' own order
            y = method(receiver, *others)
            if y is NotImplemented:
                continue
            rule = registry.function_rule(f)
            dy = _rule_jvp(rule, args, {}, targs, {}, y, loc) if rule is not None else None
            if rule is None and any(map(has_tangent, targs)):
                raise no_rule(f, loc)
        if y is not NotImplemented:
            return y, dy
    raise TypeError(f"unsupported operand type(s) for {getattr(f, '__name__', f)}: "
                    + ", ".join(repr(type(a).__name__) for a in args))


def _rule_jvp(rule, args, kwargs, targs, tkwargs, y, loc):
    """The tangent of y = primal(*args, **kwargs) by the rule's forward rule."""
    sig, positional = _rule_signature(rule)
    if not tkwargs and len(targs) <= len(positional):  # the common case, without binding
        tbound = dict(zip(positional, targs))
    else:
        try:
            tbound = sig.bind_partial(*targs, **tkwargs).arguments
        except TypeError:
            tbound = {}
    for name in rule.meta.get("unsupported", ()):
        given = sig.bind(*args, **kwargs).arguments.get(name)
        if given is not None and name in rule.diff or given is not None and \
                any(has_tangent(tbound.get(n)) for n in rule.diff):
            raise NoDerivativeRule(f"the rule for {rule.qualname} has no derivative with {name}= "
                                   "given", loc, f"write the computation without {name}=")
    for name in rule.meta.get("underived", ()):
        if has_tangent(tbound.get(name)):
            raise NoDerivativeRule(
                f"the rule for {rule.qualname} has no derivative with respect to its argument "
                f"{name!r}, which depends on the inputs here", loc,
                "wrap that argument in zp.stop_gradient(...) if no derivative is wanted through it")
    dxs = [tbound.get(name) for name in rule.diff]
    if not any(map(has_tangent, dxs)):
        return None
    if rule.jvp is None:
        raise NoDerivativeRule(f"the rule for {rule.qualname} has no forward-mode (jvp) rule", loc,
                               "use reverse mode for this function, or attach one with "
                               "zygote_py.rules.registry.jvp")
    try:  # the forward rule right for complex values too (rules/jvp_complex.py)
        return forward_rule(rule)(*dxs, y, *args, **kwargs)
    except ZygoteError as err:
        if err.loc is None and loc is not None:  # raised inside a rule: told at the user's call
            raise type(err)(err.message, loc, err.hint) from None
        raise


_SIGNATURES: dict = {}


def _rule_signature(rule):
    """(the rule's primal signature, the names of its leading positional parameters)."""
    sig = _SIGNATURES.get(id(rule))
    if sig is None or sig[0] is not rule:
        positional = []
        for p in rule.params:
            if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                break
            positional.append(p.name)
        sig = (rule, inspect.Signature(list(rule.params)), tuple(positional))
        _SIGNATURES[id(rule)] = sig
    return sig[1], sig[2]


def python_jvp(fn, cells_dot, args, kwargs, targs, tkwargs, loc):
    """(value, tangent) of the Python function fn by its forward-mode transform; cells_dot,
    a CellTangents, gives the tangents of its closure cells."""
    return _python(fn, cells_dot, args, kwargs, targs, tkwargs, loc)


def _python(fn, cells_dot, args, kwargs, targs, tkwargs, loc):
    """A Python function's value and tangent through its own forward-mode transform."""
    compiler = context.current().compiler
    jvp_entry = getattr(compiler, "jvp_entry", None)
    if jvp_entry is None:
        raise ZygoteError("forward-mode code ran outside zp.jvp, so it has no compiler for "
                          f"{getattr(fn, '__name__', fn)!r}", loc,
                          "call generated forward code through zp.jvp")
    if not kwargs and not tkwargs and len(targs) <= len(args) and _all_positional(fn, len(args)):
        # every parameter given by position: the arguments are the values, no binding
        values = args
        tangents = tuple(targs) + (None,) * (len(args) - len(targs))
    else:
        values, tangents = _bind(fn, args, kwargs, targs, tkwargs)
    active = tuple(has_tangent(t) for t in tangents)
    cells = ()
    if isinstance(cells_dot, CellTangents):
        cells = tuple(sorted(k for k, v in cells_dot.items() if has_tangent(v)))
        unknown = [k for k in cells if k not in getattr(fn, "__code__", _NO_CODE).co_freevars]
        if unknown:  # a tangent the transform would never read: a defect, not a zero
            raise InternalError(f"forward mode has tangents for {', '.join(unknown)}, which "
                                f"{getattr(fn, '__qualname__', fn)!r} does not capture", loc,
                                "this is a defect of zygote_py; please report it")
    if not any(active) and not cells:
        return fn(*args, **kwargs), None
    compiled = jvp_entry(fn, active, cells, scalar_kinds(values))
    extra = [t for t, a in zip(tangents, active) if a]
    if cells:
        extra.append(cells_dot)
    try:
        return compiled(*values, *extra)
    except NameError as err:
        unbound = _unbound_cell(err, fn)
        if unbound is None:
            raise
        # the transformed code reads each captured variable once, at entry; Python reads it
        # where it is used, which a branch may skip (gradient code's `_zp_back`, bound on
        # one branch of its forward pass, read on the same branch of its back)
        raise NoDerivativeRule(
            f"forward mode reads the captured variable {unbound!r} of "
            f"{getattr(fn, '__qualname__', fn)!r} when the function starts, and it is not "
            "assigned yet there (it is assigned on a branch that was not taken)", loc,
            "assign the variable on every path before the function that captures it runs") \
            from None


def _unbound_cell(err: NameError, fn):
    """The name of fn's free variable that err says is unbound, or None."""
    name = getattr(err, "name", None)
    code = getattr(fn, "__code__", None)
    if name is None or code is None or name not in code.co_freevars:
        return None
    return name if "free variable" in str(err) else None


_NO_CODE = (lambda: None).__code__  # a code object capturing nothing
_CO_VARIADIC = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS


def _all_positional(fn, nargs: int) -> bool:
    """Whether calling the plain function fn with nargs positional arguments (and no
    keywords) binds them to its parameters in order and leaves none to a default: then
    the compiled forward function takes exactly those arguments."""
    if type(fn) is not types.FunctionType:
        return False
    code = fn.__code__
    attrs = fn.__dict__  # inspect.signature follows __wrapped__ and obeys __signature__
    return code.co_argcount == nargs and not code.co_flags & _CO_VARIADIC and \
        not code.co_kwonlyargcount and "__wrapped__" not in attrs and "__signature__" not in attrs


def _bind(fn, args, kwargs, targs, tkwargs):
    """(the values of fn's parameters, their tangents) for fn(*args, **kwargs), defaults
    filled in, a *args parameter as its tuple and **kwargs as its dict."""
    sig = inspect.signature(fn, follow_wrapped=False)  # the parameters of fn's own code
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as err:
        raise TypeError(f"{fn.__name__}(): {err}") from None
    bound.apply_defaults()
    values = list(bound.arguments.values())
    tbound = sig.bind_partial(*targs, **tkwargs).arguments
    tangents = []
    for name, param in sig.parameters.items():
        t = tbound.get(name)
        if param.kind is param.VAR_POSITIONAL:
            t = tuple(t) if t is not None else None
        tangents.append(t)
    return values, tangents


def _spread(args, tangents, spec):
    pargs, kwargs, targs, tkwargs = [], {}, [], {}
    for value, t, how in zip(args, tangents, spec):
        if how is None:
            pargs.append(value)
            targs.append(t)
        elif how == "*":
            items = list(value)
            pargs.extend(items)
            targs.extend(list(t) if t is not None else [None] * len(items))
        elif how == "**":
            kwargs.update(value)
            if t is not None:
                tkwargs.update(t)
        else:
            kwargs[how] = value
            tkwargs[how] = t
    return tuple(pargs), kwargs, tuple(targs), tkwargs


def _padded(targs, n):
    targs = tuple(targs)
    return targs + (None,) * (n - len(targs))


# -- forward over reverse: the pullbacks run-time dispatch made ------------------------------
# (calls/forward_dispatched.py follows the calls themselves, `_zp_call(f, ...)` in
# gradient code, and registers itself as the handler of dispatch.call and call_method)


_RUNTIME_PULLBACK_MODULES = ("zygote_py.calls.dispatch", "zygote_py.calls.flat_calls",
                             "zygote_py.calls.forward_dispatched")


def _is_runtime_pullback(f) -> bool:
    """A pullback made by run-time dispatch (a closure `back(g)` of dispatch.py or
    flat_calls.py): its source is not for transforming, and it is linear in g."""
    return isinstance(f, types.FunctionType) and f.__module__ in _RUNTIME_PULLBACK_MODULES \
        and "<locals>" in f.__qualname__


def is_complex_anywhere(values) -> bool:
    return any(np.iscomplexobj(v) for v in values
               if isinstance(v, (np.ndarray, np.generic, complex)))


# -- containers ------------------------------------------------------------------------


def tangent_items(iterable, t, reverse: bool = False):
    """An iterator over the tangents of the items a loop takes from iterable, in step."""
    if not has_tangent(t) or isinstance(iterable, (dict, str, bytes, range, set, frozenset)):
        return itertools.repeat(None)
    if type(iterable) is Pass or isinstance(iterable, Items):  # an iterator: from its cursor on
        start = iterable.start if type(iterable) is Pass else iterable.cursor
        items = list(t)[start:]
        return reversed(items) if reverse else iter(items)
    if type(t) is list and not isinstance(iterable, np.ndarray) and \
            isinstance(iterable, (KeysView, ValuesView, ItemsView)):
        return reversed(t) if reverse else iter(t)  # a dict view's tangent lists its items'
    if isinstance(iterable, (np.ndarray, list, tuple)) and isinstance(t, (np.ndarray, list, tuple)):
        if isinstance(t, np.ndarray) and np.ndim(t) != np.ndim(iterable):
            t = np.broadcast_to(t, np.shape(iterable))
        return reversed(t) if reverse else iter(t)
    refuse_object_iteration(iterable, t)
    raise ZygoteError(f"forward mode cannot follow a tangent through iteration over a "
                      f"{type(iterable).__name__}",
                      hint="iterate over a list, tuple or array, or use reverse mode")


def next_tangent(items):
    return next(items)


def unpack_tangent(source, t, n: int, star):
    """The tangents of `a, *b, c = source`: a tuple of n (the starred one a list)."""
    if not has_tangent(t) or isinstance(source, (dict, str, bytes, set, frozenset, range)):
        return (None,) * n
    refuse_object_iteration(source, t)
    items = list(t) if not isinstance(t, np.ndarray) else list(np.broadcast_to(t, np.shape(source)))
    if star is None:
        return tuple(items)
    k = len(items) - (n - 1)
    return (*items[:star], list(items[star:star + k]), *items[star + k:])


def append_tangent(result, c_dot, item_dot):
    """The tangent of result = c + [item] (result is the list after the append)."""
    if not has_tangent(c_dot) and not has_tangent(item_dot):
        return None
    base = list(c_dot) if c_dot is not None else [None] * (len(result) - 1)
    return base + [item_dot]


def extend_tangent(result, before: int, c_dot, items_dot):
    """The tangent of result = [*c, *items], c having had `before` items."""
    if not has_tangent(c_dot) and not has_tangent(items_dot):
        return None
    base = list(c_dot) if c_dot is not None else [None] * before
    added = len(result) - before
    more = list(items_dot) if items_dot is not None else [None] * added
    return base + more


def setitem_tangent(c_dot, key, value_dot):
    """The tangent of {**c, key: value}."""
    if not has_tangent(c_dot) and not has_tangent(value_dot):
        return None
    out = dict(c_dot) if c_dot is not None else {}
    out[key] = value_dot
    return out


def cell_tangent(cells_dot, name: str):
    return cells_dot.get(name) if cells_dot is not None else None


def closure_tangent(names: tuple, *tangents):
    """The tangent of a closure over names: a CellTangents of the nonzero ones."""
    out = CellTangents({n: t for n, t in zip(names, tangents) if has_tangent(t)})
    return out if out else None


def _failure(loc):
    return lambda message, hint: NoDerivativeRule(message, loc, hint)
