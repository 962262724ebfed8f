"""What a call, a method call or an attribute read means: the one resolver.

The static reverse transform (ad/reverse/calls.py), run-time dispatch
(calls/dispatch.py) and the dispatcher of standalone modules
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
  RECORD    a NamedTuple class (collections.namedtuple's own __new__): constructing
            one gathers its arguments into fields;
  CONSTRUCT a user class made by object.__new__ and its own Python __init__ (or a
            dataclass's): built by transformed code (runtime/built_objects.py);
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

import operator
import types

import numpy as np

from .errors import NoDerivativeRule
from .qualnames import qualified_name

CUSTOM, RULE, NONDIFF, FUNCTION, METHOD, RECEIVER, CALLABLE, UNKNOWN = (
    "custom", "rule", "nondiff", "function", "method", "receiver", "callable", "unknown")
RECORD = "record"
CONSTRUCT = "construct"
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
        if rules.method_rule(type(f.__self__), f.__name__) is not None:
            # a rule for the receiver's type (`pdf = scipy.stats.norm.pdf`): as receiver.name(...)
            return Resolution(RECEIVER, receiver=f.__self__, name=f.__name__)
        if isinstance(f.__func__, types.FunctionType):
            return Resolution(METHOD, function=f.__func__, receiver=f.__self__)
        return Resolution(RECEIVER, receiver=f.__self__, name=f.__name__)
    receiver = getattr(f, "__self__", None)
    if isinstance(f, types.BuiltinMethodType) and receiver is not None \
            and not isinstance(receiver, types.ModuleType):
        return Resolution(RECEIVER, receiver=receiver, name=f.__name__)  # [].append, x.sum
    if isinstance(f, type) and is_record_class(f):
        return Resolution(RECORD, function=f)
    if isinstance(f, type) and is_constructible_class(f):
        return Resolution(CONSTRUCT, function=f)
    if not isinstance(f, type):  # calling another class: no derivative through its __init__
        dunder_call = class_attribute(type(f), "__call__")
        if isinstance(dunder_call, types.FunctionType):
            return Resolution(CALLABLE, function=dunder_call, receiver=f)
    return Resolution(UNKNOWN)


def is_record_class(cls: type) -> bool:
    """cls is a NamedTuple whose instances are made by the __new__ collections.namedtuple
    generated (a subclass defining its own __new__ is not)."""
    if not issubclass(cls, tuple):
        return False
    for klass in cls.__mro__:
        if "__new__" in vars(klass):
            return "_make" in vars(klass) and "_field_defaults" in vars(klass)
    return False


_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement


def is_constructible_class(cls: type) -> bool:
    """Calling cls is `object.__new__(cls)` then its `__init__`, a Python function (or
    object's own, or a dataclass's generated one): a class statement's class with no
    metaclass __call__, no __new__ and no builtin base but object."""
    if type(cls).__call__ is not type.__call__ or cls.__new__ is not object.__new__:
        return False
    if not all(k is object or k.__flags__ & _HEAP_TYPE or k.__module__ == "typing"
               for k in cls.__mro__):
        return False
    init = class_attribute(cls, "__init__")
    return init is object.__init__ or isinstance(init, types.FunctionType)


def resolve_method(obj, name: str, rules) -> Resolution:
    """What `obj.name(...)` means, decided by the type of obj."""
    if isinstance(obj, type):
        on_class = _resolve_on_class(obj, name)
        if on_class is not None:
            return on_class
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


def _resolve_on_class(klass: type, name: str):
    """`klass.name(...)` for a class defining name in Python (`cls.square(t)` in a
    classmethod, `Base.method(self, t)`), or None: a static method and a plain function
    take the arguments as written (STATIC), a class method gets klass first (CLASS)."""
    attr = class_attribute(klass, name)
    if isinstance(attr, staticmethod) and isinstance(attr.__func__, types.FunctionType):
        return Resolution(STATIC, function=attr.__func__, name=name)
    if isinstance(attr, classmethod) and isinstance(attr.__func__, types.FunctionType):
        return Resolution(CLASS, function=attr.__func__, receiver=klass, name=name)
    if isinstance(attr, types.FunctionType):
        return Resolution(STATIC, function=attr, name=name)
    return None


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


def reads_bound_method(obj, name: str) -> bool:
    """Whether `obj.name` gives a method bound to obj: a function on its class that the
    instance does not shadow.  The cotangent of such a bound method (what calling it
    hands back for the callee itself) is the cotangent of obj, its receiver."""
    held = getattr(obj, "__dict__", None)
    if held is not None and name in held:
        return False
    return isinstance(class_attribute(type(obj), name), types.FunctionType)


def getattr_hook(obj, name: str):
    """type(obj).__getattr__, a Python function, when it is what computes obj.name (Python's
    normal lookup, the instance and its class, does not find the name); None otherwise.
    Such a read is user code like a property's getter, and is differentiated as one."""
    hook = class_attribute(type(obj), "__getattr__")
    if not isinstance(hook, types.FunctionType):
        return None
    try:
        object.__getattribute__(obj, name)
    except AttributeError:
        pass
    else:
        return None
    if isinstance(obj, dict) and name in obj:  # SciPy's results: `res.x` is `res["x"]`
        try:
            if hook(obj, name) is dict.__getitem__(obj, name):
                return None  # the item itself: its cotangent is keyed by the name
        except (LookupError, TypeError, ValueError):  # (the user's hook: not that item)
            pass
    return hook


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
    if name.startswith("numpy.random."):  # a draw that moves with its parameters
        hint = ("draw standard values and transform them (mu + sigma * "
                "rng.standard_normal(size), low + (high - low) * rng.random(size)), whose "
                "derivative is followed; or wrap the argument in zp.stop_gradient(...)")
    return message, hint


def no_rule(f, loc) -> NoDerivativeRule:
    """The error for calling f, which has no derivative, with an active argument at loc."""
    message, hint = no_rule_message(f)
    return NoDerivativeRule(message, loc, hint)


# -- Python's operator protocol and NumPy's hand-off to objects ---------------------

# operator -> (its method, the reflected method tried on the right operand, or None)
OPERATOR_METHODS = {
    operator.add: ("__add__", "__radd__"), operator.sub: ("__sub__", "__rsub__"),
    operator.mul: ("__mul__", "__rmul__"), operator.truediv: ("__truediv__", "__rtruediv__"),
    operator.floordiv: ("__floordiv__", "__rfloordiv__"), operator.mod: ("__mod__", "__rmod__"),
    operator.pow: ("__pow__", "__rpow__"), operator.matmul: ("__matmul__", "__rmatmul__"),
    operator.neg: ("__neg__", None), operator.pos: ("__pos__", None),
    operator.abs: ("__abs__", None), abs: ("__abs__", None),
    operator.getitem: ("__getitem__", None),
    # no derivative between numbers and arrays, but a user's method may well carry one
    operator.and_: ("__and__", "__rand__"), operator.or_: ("__or__", "__ror__"),
    operator.xor: ("__xor__", "__rxor__"), operator.lshift: ("__lshift__", "__rlshift__"),
    operator.rshift: ("__rshift__", "__rrshift__"), operator.invert: ("__invert__", None),
    operator.inv: ("__invert__", None),
}
# what NumPy calls on an object that is not an ndarray (fromnumeric's _wrapreduction,
# _wrapfunc and the mean/std/var wrappers): function -> (method, keywords always
# passed, keywords passed when not None, keywords passed when given)
NUMPY_HANDOFF = {
    np.sum: ("sum", ("axis", "out"), ("dtype",), ("keepdims", "initial", "where")),
    np.prod: ("prod", ("axis", "out"), ("dtype",), ("keepdims", "initial", "where")),
    np.max: ("max", ("axis", "out"), (), ("keepdims", "initial", "where")),
    np.min: ("min", ("axis", "out"), (), ("keepdims", "initial", "where")),
    np.amax: ("max", ("axis", "out"), (), ("keepdims", "initial", "where")),
    np.amin: ("min", ("axis", "out"), (), ("keepdims", "initial", "where")),
    np.mean: ("mean", ("axis", "dtype", "out"), (), ("keepdims", "where")),
    np.std: ("std", ("axis", "dtype", "out", "ddof"), (), ("keepdims", "where", "mean", "correction")),
    np.var: ("var", ("axis", "dtype", "out", "ddof"), (), ("keepdims", "where", "mean", "correction")),
    np.cumsum: ("cumsum", ("axis", "dtype", "out"), (), ()),
    np.cumprod: ("cumprod", ("axis", "dtype", "out"), (), ()),
    np.round: ("round", ("decimals", "out"), (), ()),
    np.around: ("round", ("decimals", "out"), (), ()),
}
_PLAIN_TYPES = (np.ndarray, float, int, bool, complex, tuple, list, dict, str, bytes, slice,
                range)  # a tuple of named types: standalone modules copy it


def is_array_or_number(x) -> bool:
    """x is an ndarray, a NumPy scalar or a Python number, of exactly that type."""
    return type(x) in _ARRAY_OR_NUMBER or isinstance(x, np.generic)


_ARRAY_OR_NUMBER = (np.ndarray, float, int, bool, complex)  # a tuple: standalone modules copy it


def is_plain_operand(x) -> bool:
    """x is an ndarray, a NumPy scalar, a number or a builtin container or constant, of
    exactly that type: what the registered rules are written for.  A subclass (a
    NamedTuple, an ndarray subclass) is not: its own methods may decide what an
    operator or a NumPy function does with it (np.sum(obj) calls obj.sum()).  A list or
    tuple is plain when its items are arrays, numbers and containers of them: NumPy makes
    an object array of a list of other objects (np.sum([obj, obj]) calls obj.__add__)."""
    kind = type(x)
    if kind is list or kind is tuple:
        return all(map(_plain_item, x))
    return kind in _PLAIN_TYPES or x is None or x is ... or isinstance(x, np.generic)


def _plain_item(x) -> bool:
    kind = type(x)
    if kind is np.ndarray or kind is float or kind is int or isinstance(x, np.generic):
        return True
    if isinstance(x, (list, tuple)):  # a NamedTuple item is read as the sequence it is
        return all(map(_plain_item, x))
    return _operates_as_builtin(x) or callable(x)


# NumPy's index-trick objects (np.r_, np.c_, np.s_, np.index_exp): their __getitem__ is
# Python code, but operator.getitem's rule covers them exactly (rules/index_tricks.py)
_INDEX_TRICKS = (type(np.r_), type(np.c_), type(np.s_))
_BUILTIN_BASES = (np.ndarray, np.generic, int, float, complex, list, tuple, dict, str, bytes)


def _operates_as_builtin(x) -> bool:
    """x is plain, or of a subclass of a builtin or NumPy type that keeps NumPy's
    protocols: with no Python method of its own involved, an operator treats it as its
    base type (a NamedTuple indexed, an ndarray subclass added)."""
    if is_plain_operand(x):
        return True
    if not isinstance(x, _BUILTIN_BASES):
        return False
    cls = type(x)
    return not isinstance(x, np.ndarray) or (
        cls.__array_ufunc__ is np.ndarray.__array_ufunc__
        and cls.__array_function__ is np.ndarray.__array_function__)


def operator_candidates(fn, operands):
    """Python's protocol for fn(*operands), fn an operator of OPERATOR_METHODS: None when
    the registered rule applies (no Python method of an operand is involved and every
    operand is plain); otherwise the methods to try, in Python's order, each
    (method found on the class, operand it is called on, the other operands, their
    positions in operands).  A method returning NotImplemented passes the turn on."""
    name, reflected = OPERATOR_METHODS[fn]
    first = operands[0]
    method = class_attribute(type(first), name)
    if reflected is None or len(operands) != 2:
        # x[i]: x's type alone decides (its __getitem__ makes what it likes of the index)
        deciding = operands[:1] if fn is operator.getitem else operands
        if fn is operator.getitem and type(first) in _INDEX_TRICKS:
            return None
        if not isinstance(method, types.FunctionType) and all(map(_operates_as_builtin, deciding)):
            return None
        rest = tuple(range(1, len(operands)))
        return [(method, first, operands[1:], rest)] if method is not None else []
    second = operands[1]
    left, right = type(first), type(second)
    mirrored = class_attribute(right, reflected) if right is not left else None
    if not isinstance(method, types.FunctionType) and not isinstance(mirrored, types.FunctionType) \
            and _operates_as_builtin(first) and _operates_as_builtin(second):
        return None
    order = [(method, first, (second,), (1,)), (mirrored, second, (first,), (0,))]
    if mirrored is not None and issubclass(right, left) and \
            mirrored is not class_attribute(left, reflected):
        order.reverse()  # a subclass that overrides the reflected method goes first
    return [candidate for candidate in order if candidate[0] is not None]


def numpy_handoff(fn, args: tuple, kwargs: dict):
    """(method name, keywords) NumPy calls on args[0] when fn is one of NUMPY_HANDOFF
    and args[0] is not an ndarray, or None when NumPy does not hand it over."""
    try:
        entry = NUMPY_HANDOFF.get(fn)
    except TypeError:  # an unhashable callee
        return None
    if entry is None or not args or type(args[0]) is np.ndarray:
        return None
    name, always, unless_none, when_given = entry
    if not hasattr(args[0], name):  # NumPy's own getattr: the instance, its class, __getattr__
        return None
    import inspect  # only for this rare path

    bound = inspect.signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()
    given = bound.arguments
    passed = {k: given[k] for k in always if k in given}
    passed.update({k: given[k] for k in unless_none if given.get(k) is not None})
    passed.update({k: given[k] for k in when_given
                   if k in given and given[k] is not np._NoValue})
    passed.update(given.get("kwargs", {}))
    return name, passed
