"""What a call, a method call or an attribute read means: the one resolver.

The static reverse transform (ad/reverse/calls.py), run-time dispatch
(runtime/dispatch.py) and the dispatcher of standalone modules
(aot/standalone_runtime.py) all ask these functions, so the three cannot
disagree.  A callee resolves, in this order, to

  CUSTOM    a user rule registered with @zp.adjoint;
  RULE      a registered derivative rule;
  NONDIFF   a function whose result carries no derivative;
  FUNCTION  a Python function with source (transformed like any other);
  METHOD    a bound method of a Python function (`function` with `receiver`
            as its first argument);
  RECEIVER  a method of a builtin type bound to an object: resolved as
            `receiver.name(...)` by `resolve_method`, from the object's type;
  CALLABLE  an object whose class defines __call__ in Python;
  UNKNOWN   none of these: a NoDerivativeRule when an argument is active
            (`no_rule_message`), a plain call otherwise.

A method call `obj.name(...)` is decided by the type of the object really
there, never by the name alone: a user class with a method `mean` gets its own
method, an array gets the ndarray rule.  Its outcomes are RULE and NONDIFF
(for the object's type or, for NumPy scalars, ndarray's), ATTRIBUTE (a
callable held in the instance's __dict__, e.g. `self.activation`), STATIC and
CLASS (staticmethod and classmethod), METHOD (a Python method) and UNKNOWN.
An attribute read `obj.name` resolves to RULE, NONDIFF, PROPERTY (a Python
property of the class) or DATA (a plain attribute: its cotangent is `{name: g}`).

Every function takes `rules`, the object answering the registry's questions:
`rules.registry` in process, and in a standalone module a class reading the
tables written when the module was generated.  That is what lets the
standalone builder copy this module's functions verbatim: they read nothing of
zygote_py but their arguments and `qualified_name`.
"""

from __future__ import annotations

import types

import numpy as np

from .errors import NoDerivativeRule
from .rules.registry import qualified_name

CUSTOM, RULE, NONDIFF, FUNCTION, METHOD, RECEIVER, CALLABLE, UNKNOWN = (
    "custom", "rule", "nondiff", "function", "method", "receiver", "callable", "unknown")
ATTRIBUTE, STATIC, CLASS = "attribute", "static", "class"
PROPERTY, DATA = "property", "data"


class Resolution:
    """The meaning of one callee: `kind` (the names above) and what it needs.

    rule      the custom rule or registered Rule (CUSTOM, RULE);
    function  the Python function to transform (FUNCTION, METHOD, CALLABLE,
              STATIC, CLASS), the held callable (ATTRIBUTE), the getter (PROPERTY);
    receiver  the object passed as the function's first argument (METHOD,
              CALLABLE, and the class for CLASS) or whose method is called
              (RECEIVER, and every outcome of resolve_method);
    name      the method's or attribute's name (RECEIVER, resolve_method,
              resolve_attribute).
    """

    __slots__ = ("function", "kind", "name", "receiver", "rule")

    def __init__(self, kind, rule=None, function=None, receiver=None, name=None):
        self.kind = kind
        self.rule = rule
        self.function = function
        self.receiver = receiver
        self.name = name

    def __repr__(self):
        return f"Resolution({self.kind!r})"


def resolve(f, rules) -> Resolution:
    """What calling f means."""
    custom = rules.custom_rule(f)
    if custom is not None:  # @zp.adjoint comes before everything, registered rules included
        return Resolution(CUSTOM, rule=custom)
    rule = rules.function_rule(f)
    if rule is not None:
        return Resolution(RULE, rule=rule)
    if rules.is_nondifferentiable(f):
        return Resolution(NONDIFF)
    if isinstance(f, types.FunctionType):
        return Resolution(FUNCTION, function=f)
    if isinstance(f, types.MethodType):
        if isinstance(f.__func__, types.FunctionType):
            return Resolution(METHOD, function=f.__func__, receiver=f.__self__)
        return Resolution(RECEIVER, receiver=f.__self__, name=f.__name__)
    receiver = getattr(f, "__self__", None)
    if isinstance(f, types.BuiltinMethodType) and receiver is not None \
            and not isinstance(receiver, types.ModuleType):
        return Resolution(RECEIVER, receiver=receiver, name=f.__name__)  # [].append, x.sum
    if not isinstance(f, type):  # calling a class constructs it: no derivative through that
        dunder_call = class_attribute(type(f), "__call__")
        if isinstance(dunder_call, types.FunctionType):
            return Resolution(CALLABLE, function=dunder_call, receiver=f)
    return Resolution(UNKNOWN)


def resolve_method(obj, name: str, rules) -> Resolution:
    """What `obj.name(...)` means, decided by the type of obj."""
    cls = type(obj)
    rule = rules.method_rule(cls, name)
    if rule is None and isinstance(obj, np.generic):  # NumPy scalars behave as 0-d arrays
        rule = rules.method_rule(np.ndarray, name)
    if rule is not None:
        return Resolution(RULE, rule=rule, receiver=obj, name=name)
    if rules.method_is_nondifferentiable(cls, name) or \
            isinstance(obj, np.generic) and rules.method_is_nondifferentiable(np.ndarray, name):
        return Resolution(NONDIFF, receiver=obj, name=name)
    static = class_attribute(cls, name)
    held = getattr(obj, "__dict__", None)
    if held is not None and name in held and not _is_data_descriptor(static):
        # a callable the object holds (self.activation, a sub-layer) shadows the class
        return Resolution(ATTRIBUTE, function=held[name], receiver=obj, name=name)
    if isinstance(static, staticmethod):
        return Resolution(STATIC, function=static.__func__, name=name)
    if isinstance(static, classmethod):
        return Resolution(CLASS, function=static.__func__, receiver=cls, name=name)
    if isinstance(static, types.FunctionType):
        return Resolution(METHOD, function=static, receiver=obj, name=name)
    return Resolution(UNKNOWN, receiver=obj, name=name)


def resolve_attribute(cls: type, name: str, rules) -> Resolution:
    """What reading `obj.name` means for derivatives, for an obj of type cls (it depends
    on the type alone, so callers may keep the answer per type and name)."""
    numpy_scalar = issubclass(cls, np.generic)
    rule = rules.attr_rule(cls, name)
    if rule is None and numpy_scalar:
        rule = rules.attr_rule(np.ndarray, name)
    if rule is not None:
        return Resolution(RULE, rule=rule, name=name)
    if rules.attr_is_nondifferentiable(cls, name) or \
            numpy_scalar and rules.attr_is_nondifferentiable(np.ndarray, name):
        return Resolution(NONDIFF, name=name)
    prop = class_attribute(cls, name)
    if isinstance(prop, property) and isinstance(prop.fget, types.FunctionType):
        return Resolution(PROPERTY, function=prop.fget, name=name)
    return Resolution(DATA, name=name)


def class_attribute(cls: type, name: str):
    """What an instance of cls finds as name on its class, or None: the first class of
    the MRO defining it decides.  The metaclass is not consulted (its attributes
    serve reads on the class, not on its instances), and nothing is cached: a
    class may gain or lose an attribute at any time."""
    for klass in cls.__mro__:
        namespace = vars(klass)
        if name in namespace:
            return namespace[name]
    return None


def _is_data_descriptor(attr) -> bool:
    """A class attribute that takes precedence over the instance's own (a property)."""
    return attr is not None and hasattr(type(attr), "__set__")


def no_rule_message(f) -> tuple[str, str]:
    """(message, hint) for a callee with no derivative called with an active argument."""
    name = qualified_name(f)
    short = getattr(f, "__name__", None) or name.split(".")[-1]
    message = f"no derivative rule for {name}, which is called here with an active argument"
    hint = (f"register one with @zp.adjoint({short}), or wrap the argument in "
            "zp.stop_gradient(...) if no derivative is wanted through it")
    return message, hint


def no_rule(f, loc) -> NoDerivativeRule:
    """The error for calling f, which has no derivative, with an active argument at loc."""
    message, hint = no_rule_message(f)
    return NoDerivativeRule(message, loc, hint)
