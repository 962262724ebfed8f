"""The kinds of structure, the classes users register, and the walks over children.

Each type falls in one kind, decided once per type (`_classify`) and cached.
The registry lives in `_Registry`'s class attributes (not module-level dicts)
because standalone modules (`zygote-py grad`) copy these functions by source:
they then get the registry as written here, not this process's cache.
"""

from __future__ import annotations

import numbers
import types
import typing

import numpy as np

from ..errors import ZygoteError

_ndarray = np.ndarray

# the kinds of type (see the package docstring, tree/__init__.py)
LEAF, SCALAR, ARRAY, TUPLE, LIST, DICT, RECORD, OBJECT, CUSTOM = range(9)


class _Registry:
    """The kind of each type seen (a cache filled by `_classify`), the slot names of
    object types, and the structures users registered: type -> (flatten, unflatten,
    check of a keyed cotangent's names)."""

    kinds: typing.ClassVar[dict] = {float: SCALAR, complex: SCALAR, int: LEAF, bool: LEAF, str: LEAF,
                                    type(None): LEAF, np.ndarray: ARRAY, tuple: TUPLE, list: LIST,
                                    dict: DICT}
    slots: typing.ClassVar[dict] = {}
    custom: typing.ClassVar[dict] = {}


class StructureError(ZygoteError, TypeError):
    """A structure registered wrongly, or a registered flatten that broke its contract."""


def register_structure(cls, flatten=None, unflatten=None):
    """Make instances of cls a structure whose gradient is again a cls (usable as a decorator).

    flatten(obj) -> (children, aux): children a dict of name -> child value (the
    names are the attributes your code reads), aux whatever unflatten needs;
    unflatten(aux, children) -> a new cls built from such a dict, whose values
    may be gradients or None (zero).  Without them the children are obj's
    instance attributes and the gradient is a cls made without calling
    __init__ whose attributes are the children's gradients.
    """
    if not isinstance(cls, type):
        raise StructureError(f"register_structure expects a class, got {type(cls).__name__}",
                             hint="zp.register_structure(MyClass), or @zp.register_structure above it")
    if (flatten is None) != (unflatten is None) or not all(f is None or callable(f) for f in (flatten, unflatten)):
        raise StructureError("register_structure needs two functions, flatten and unflatten, or neither",
                             hint="flatten(obj) -> (dict of children, aux); unflatten(aux, children) -> obj")
    if flatten is None:
        entry = (_attribute_flatten, _attribute_unflatten(cls), _stray_check(cls))
    else:
        entry = (_checked_flatten(cls, flatten), unflatten, _stray_check(cls))
    _Registry.custom[cls] = entry
    for seen in [t for t in _Registry.kinds if issubclass(t, cls)]:
        del _Registry.kinds[seen]  # cls and its subclasses, classified before, are again
    return cls


def _checked_flatten(cls, flatten):
    """The user's flatten, with its result checked: a mistake there is theirs to see."""
    def checked(obj):
        out = flatten(obj)
        if not (isinstance(out, tuple) and len(out) == 2 and isinstance(out[0], dict)):
            raise StructureError(f"the flatten registered for {cls.__qualname__} returned "
                                 f"{type(out).__name__}, not (dict of children, aux)",
                                 hint="return ({'name': child, ...}, aux)")
        return out

    return checked


def _stray_check(cls):
    """A check that a keyed cotangent names only children flatten knows: the code read
    an attribute that flatten leaves out, and dropping its gradient would be wrong."""
    def check(g, children):
        stray = [k for k, v in g.items() if v is not None and k not in children] if type(g) is dict else ()
        if stray:
            raise StructureError(f"the gradient reached {cls.__qualname__}.{stray[0]}, which the flatten "
                                 f"registered for {cls.__qualname__} does not list among its children "
                                 f"({', '.join(map(str, children)) or 'none'})",
                                 hint="name the children of flatten after the attributes your code reads")

    return check


def _attribute_flatten(obj):
    return dict(_attributes(obj)), None


def _attribute_unflatten(cls):
    def unflatten(aux, children):
        obj = object.__new__(cls)
        for name, value in children.items():
            object.__setattr__(obj, name, value)  # works for frozen dataclasses and slots too
        return obj

    return unflatten


def _classify(t: type) -> int:
    """The kind of type t, worked out once and cached."""
    kind = OBJECT
    for klass in t.__mro__:
        if klass in _Registry.custom:
            kind = CUSTOM
            break
    else:
        if issubclass(t, _ndarray):
            kind = ARRAY
        elif issubclass(t, np.generic):
            kind = SCALAR if issubclass(t, (np.floating, np.complexfloating)) else LEAF
        elif issubclass(t, numbers.Integral):
            kind = LEAF
        elif issubclass(t, numbers.Number):
            kind = SCALAR
        elif issubclass(t, tuple):
            kind = RECORD if isinstance(getattr(t, "_fields", None), tuple) else TUPLE
        elif issubclass(t, list):
            kind = LIST
        elif issubclass(t, dict):
            kind = DICT
        elif issubclass(t, (str, bytes, type, types.ModuleType, types.FunctionType,
                            types.BuiltinFunctionType, types.MethodType, types.CodeType, np.ufunc)):
            kind = LEAF  # opaque: nothing in them is differentiated
    _Registry.kinds[t] = kind
    return kind


def kind_of(x) -> int:
    """The kind of x's type (LEAF, SCALAR, ARRAY, TUPLE, ...)."""
    kind = _Registry.kinds.get(type(x))
    return _classify(type(x)) if kind is None else kind


def _slot_names(t: type) -> tuple:
    names = _Registry.slots.get(t)
    if names is None:
        found = []
        for klass in t.__mro__:
            declared = klass.__dict__.get("__slots__", ())
            for name in [declared] if isinstance(declared, str) else declared:
                if name not in ("__dict__", "__weakref__") and name not in found:
                    found.append(name)
        names = _Registry.slots[t] = tuple(found)
    return names


def _attributes(obj) -> list:
    """(name, value) for obj's instance attributes: its __dict__, then its slots that are set."""
    attrs = getattr(obj, "__dict__", None)
    out = list(attrs.items()) if isinstance(attrs, dict) else []
    for name in _slot_names(type(obj)):
        try:
            out.append((name, object.__getattribute__(obj, name)))
        except AttributeError:  # a slot never assigned
            pass
    return out


def children(x) -> list:
    """(key, child) for each child of x; [] for a leaf, a scalar or an array.  Keys are
    positions for tuples, lists and records, keys for dicts, names for objects."""
    kind = kind_of(x)
    if kind == TUPLE or kind == LIST or kind == RECORD:
        return list(enumerate(x))
    if kind == DICT:
        return list(x.items())
    if kind == OBJECT:
        return _attributes(x)
    if kind == CUSTOM:
        return list(_custom_flatten(x)[0].items())
    return []


def _custom_flatten(x):
    for klass in type(x).__mro__:
        entry = _Registry.custom.get(klass)
        if entry is not None:
            kids, aux = entry[0](x)
            return kids, aux, entry
    raise KeyError(type(x))


def is_active(x) -> bool:
    """Whether x can carry a derivative: a float or complex number or array, or a
    structure holding one."""
    t = type(x)
    if t is _ndarray:
        return x.dtype.kind in "fc"
    kind = _Registry.kinds.get(t)
    if kind is None:
        kind = _classify(t)
    if kind == SCALAR:
        return True
    if kind == LEAF:
        return False
    if kind == ARRAY:
        return x.dtype.kind in "fc"
    return _active_node(x, kind, None)


def _active_node(x, kind, seen) -> bool:
    if kind == OBJECT or kind == CUSTOM:  # objects may refer to each other in a cycle
        if seen is None:
            seen = set()  # made on the first object only: containers alone cannot cycle here
        elif id(x) in seen:
            return False
        seen.add(id(x))
        values = [v for _, v in children(x)]
    else:
        values = x.values() if kind == DICT else x
    kinds = _Registry.kinds
    for v in values:
        t = type(v)
        if t is _ndarray:
            if v.dtype.kind in "fc":
                return True
            continue
        k = kinds.get(t)
        if k is None:
            k = _classify(t)
        if k == SCALAR:
            return True
        if k == LEAF:
            continue
        if k == ARRAY:
            if v.dtype.kind in "fc":
                return True
        elif _active_node(v, k, seen):
            return True
    return False
