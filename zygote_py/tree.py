"""One registry of the structures zygote_py walks: containers, records and objects.

Every walk over a user's value -- is it active, what is its gradient, what are
its parameters, which layers does it hold -- asks this module what the value
is made of, so that a tuple, a NamedTuple, a dataclass or an object with
`__slots__` means the same thing to all of them.  Each type falls in one kind,
decided once per type (see `_classify`):

  leaf      ints, bools, strings, None, functions, modules, classes: never active
  scalar    floats and complex numbers (Python and NumPy): active
  array     NumPy arrays: active when their dtype is float or complex
  tuple, list, dict             children by position / key
  record    NamedTuple and collections.namedtuple: children by position
  object    anything else: children are its instance attributes (__dict__,
            then __slots__), so dataclasses (frozen or slotted) are objects
  custom    a class registered with `register_structure`: its own flatten

Cotangents.  Inside generated code a cotangent is *internal*: None (zero), a
number or array for a leaf, a tuple or list for a tuple, list or record
(positionally, None where a child has none), a dict for a dict, and a dict of
attribute name -> cotangent for an object, a record read by attribute or a
custom kind.  `accumulate` adds two internal cotangents; `finalize` turns one
into the gradient the user sees, shaped like the argument: a float for a
float, an owned array of the argument's shape and dtype, the same container
type, the same NamedTuple type, a dict of attribute name -> gradient for an
object, and `unflatten` of the children's gradients for a custom kind.

The registry lives in `_Registry`'s class attributes (not module-level dicts)
because standalone modules (`zygote-py grad`) copy these functions by source:
they then get the registry as written here, not this process's cache.
"""

from __future__ import annotations

import numbers
import types
import typing

import numpy as np

from .errors import ZygoteError

_ndarray = np.ndarray

# the kinds of type (see the module docstring)
LEAF, SCALAR, ARRAY, TUPLE, LIST, DICT, RECORD, OBJECT, CUSTOM = range(9)


class _Registry:
    """The kind of each type seen (a cache filled by `_classify`), the slot names of
    object types, and the structures users registered: type -> (flatten, unflatten)."""

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
        entry = (_attribute_flatten, _attribute_unflatten(cls))
    else:
        entry = (_checked_flatten(cls, flatten), unflatten)
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
            return dict(kids), aux, entry[1]
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


# -- cotangents -----------------------------------------------------------------------
def accumulate(a, b):
    """a + b for two internal cotangents, None being zero; structures add child by child."""
    if a is None:
        return b
    if b is None:
        return a
    ta = type(a)
    if ta is _ndarray or ta is float:  # the hot path: two arrays, two floats
        return a + b
    sequence_a = isinstance(a, (tuple, list))
    if sequence_a and isinstance(b, (tuple, list)):
        out = [accumulate(p, q) for p, q in zip(a, b)]
        n, m = len(a), len(b)
        if n != m:
            out += a[m:] if n > m else b[n:]  # a list grown on one path only: keep the rest
        return out if ta is list else tuple(out)
    if ta is dict or type(b) is dict:
        if not (ta is dict or sequence_a) or not (type(b) is dict or isinstance(b, (tuple, list))):
            return a + b
        # keyed, or one positional and one keyed (a record read by index and by attribute)
        out = dict(a) if ta is dict else {i: v for i, v in enumerate(a) if v is not None}
        for k, v in (b.items() if type(b) is dict else enumerate(b)):
            out[k] = accumulate(out.get(k), v)
        return out
    return a + b


def keyed_cotangent(x, key, g):
    """The internal cotangent of x when only its child `key` (an attribute name or a
    position) has one, g: positional for tuples, lists and records, keyed otherwise."""
    if g is None:
        return None
    kind = kind_of(x)
    if kind == RECORD and isinstance(key, str) and key in type(x)._fields:
        out = [None] * len(x)
        out[type(x)._fields.index(key)] = g
        return tuple(out)
    return {key: g}


def child_cotangent(g, x, key, index):
    """The cotangent of x's child (key, at position index) within g, a cotangent of x:
    internal (positional or keyed) or a finalized gradient of x."""
    if g is None:
        return None
    tg = type(g)
    if tg is dict:
        if kind_of(x) == RECORD:  # read by position and by field name: both count
            return accumulate(g.get(index), g.get(type(x)._fields[index]))
        return g.get(key)
    if isinstance(g, (tuple, list)):
        return g[index] if index is not None and -len(g) <= index < len(g) else None
    if kind_of(g) == CUSTOM:  # a gradient of a registered structure
        return _custom_flatten(g)[0].get(key)
    return None


def zeros_like(x):
    """A zero cotangent shaped like x, materialised (a loop needs a value to carry)."""
    if isinstance(x, _ndarray):
        return np.zeros_like(x, dtype=np.result_type(x.dtype, np.float64))
    kind = kind_of(x)
    if kind == TUPLE or kind == RECORD:
        return tuple(zeros_like(v) for v in x)
    if kind == LIST:
        return [zeros_like(v) for v in x]
    if kind == DICT:
        return {k: zeros_like(v) for k, v in x.items()}
    if kind == OBJECT or kind == CUSTOM:
        return {k: zeros_like(v) for k, v in children(x)}
    return 0.0


def finalize(g, x):
    """The gradient the user sees from the internal cotangent g of x: a float for a
    float, an owned array of x's shape and dtype for an array, the same container or
    NamedTuple type, a dict of attribute -> gradient for an object, unflatten of the
    children's gradients for a registered structure; None where x is not active."""
    if g is None:
        return None
    t = type(x)
    if t is _ndarray:
        return _finalize_array(g, x) if x.dtype.kind in "fc" else None
    if t is float:
        return float(np.real(g))
    kind = _Registry.kinds.get(t)
    if kind is None:
        kind = _classify(t)
    if kind == LEAF:
        return None
    if kind == ARRAY:
        return _finalize_array(g, x) if x.dtype.kind in "fc" else None
    if kind == SCALAR:
        if isinstance(x, (complex, np.complexfloating)):
            return t(g)
        return t(np.real(g)) if isinstance(x, np.floating) else g
    if kind == DICT:
        keyed = g if type(g) is dict else {}
        out = {k: finalize(keyed.get(k), v) for k, v in x.items()}
        parts = out.values()
    elif kind == TUPLE or kind == LIST or kind == RECORD:
        if (type(g) is tuple or type(g) is list) and len(g) == len(x):
            parts = [finalize(gi, xi) for gi, xi in zip(g, x)]
        else:  # keyed by position or field name, or a finalized gradient
            parts = [finalize(child_cotangent(g, x, i, i), v) for i, v in enumerate(x)]
        out = t._make(parts) if kind == RECORD else parts if kind == LIST else tuple(parts)
    elif kind == OBJECT:
        if type(g) is not dict:
            return None
        out = {k: finalize(g.get(k), v) for k, v in _attributes(x)}
        parts = out.values()
    else:
        kids, aux, unflatten = _custom_flatten(x)
        parts = {k: finalize(child_cotangent(g, x, k, i), v) for i, (k, v) in enumerate(kids.items())}
        out = None
    # a child with a gradient makes x active; an x with none may still be active (zeros)
    if all(p is None for p in parts) and not is_active(x):
        return None
    return unflatten(aux, parts) if kind == CUSTOM else out


def _finalize_array(g, x):
    g = np.asarray(g)
    if g.shape != x.shape:
        g = np.broadcast_to(g, x.shape)
    if g.dtype != x.dtype and x.dtype.kind == "f":
        return g.astype(x.dtype)
    if g.base is not None or not g.flags.writeable:
        return g.copy()  # the user owns the gradient: never a view of a seed or a primal
    return g


# -- flatten / unflatten ---------------------------------------------------------------
class TreeDef:
    """The shape of a structure without its leaves: what `unflatten` rebuilds from."""

    __slots__ = ("aux", "keys", "kind", "n_leaves", "subtrees", "type")

    def __init__(self, kind, typ, keys, aux, subtrees):
        self.kind, self.type, self.keys, self.aux, self.subtrees = kind, typ, keys, aux, subtrees
        self.n_leaves = 1 if kind is None else sum(s.n_leaves for s in subtrees)

    def _identity(self):
        return (self.kind, self.type, self.keys, self.aux, tuple(s._identity() for s in self.subtrees))

    def __eq__(self, other):
        return isinstance(other, TreeDef) and self._identity() == other._identity()

    def __hash__(self):
        return hash((self.kind, self.type, self.keys, self.n_leaves))

    def __repr__(self):
        if self.kind is None:
            return "*"
        return f"{self.type.__name__}({', '.join(map(repr, self.subtrees))})"


_LEAF_DEF = TreeDef(None, None, (), None, ())


def flatten(x) -> tuple[list, TreeDef]:
    """(leaves, treedef): the leaves of x in order (numbers, arrays, None, strings...)
    and its shape, which `unflatten(treedef, leaves)` turns back into an equal x."""
    leaves: list = []
    return leaves, _flatten_into(x, leaves)


def _flatten_into(x, leaves) -> TreeDef:
    kind = kind_of(x)
    if kind in (LEAF, SCALAR, ARRAY):
        leaves.append(x)
        return _LEAF_DEF
    aux = None
    if kind == CUSTOM:
        kids, aux, _ = _custom_flatten(x)
        pairs = list(kids.items())
    else:
        pairs = children(x)
    keys = tuple(k for k, _ in pairs)
    return TreeDef(kind, type(x), keys, aux, tuple(_flatten_into(v, leaves) for _, v in pairs))


def unflatten(treedef: TreeDef, leaves):
    """The structure of treedef with these leaves in place of the old ones."""
    leaves = list(leaves)
    if len(leaves) != treedef.n_leaves:
        raise ValueError(f"unflatten: {len(leaves)} leaves for a structure of {treedef.n_leaves}")
    return _build(treedef, iter(leaves))


def _build(d: TreeDef, leaves):
    if d.kind is None:
        return next(leaves)
    values = [_build(s, leaves) for s in d.subtrees]
    if d.kind == TUPLE:
        return tuple(values) if d.type is tuple else d.type(values)
    if d.kind == LIST:
        return values if d.type is list else d.type(values)
    if d.kind == RECORD:
        return d.type._make(values)
    if d.kind == DICT:
        out = dict(zip(d.keys, values))
        return out if d.type is dict else d.type(out)
    if d.kind == CUSTOM:
        for klass in d.type.__mro__:
            if klass in _Registry.custom:
                return _Registry.custom[klass][1](d.aux, dict(zip(d.keys, values)))
    obj = object.__new__(d.type)  # an object: rebuilt without running its __init__
    for name, value in zip(d.keys, values):
        object.__setattr__(obj, name, value)
    return obj
