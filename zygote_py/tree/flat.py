"""flatten and unflatten: a structure as its leaves and a `TreeDef`, and back."""

from __future__ import annotations

import collections

from .registry import (
    ARRAY,
    CUSTOM,
    DICT,
    LEAF,
    LIST,
    RECORD,
    SCALAR,
    TUPLE,
    _custom_flatten,
    _Registry,
    children,
    kind_of,
)


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
        if isinstance(x, collections.defaultdict):
            aux = x.default_factory  # rebuilt with it, as defaultdict(factory, items)
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
        if d.type is dict:
            return out
        return d.type(d.aux, out) if issubclass(d.type, collections.defaultdict) else d.type(out)
    if d.kind == CUSTOM:
        for klass in d.type.__mro__:
            if klass in _Registry.custom:
                return _Registry.custom[klass][1](d.aux, dict(zip(d.keys, values)))
    obj = object.__new__(d.type)  # an object: rebuilt without running its __init__
    for name, value in zip(d.keys, values):
        object.__setattr__(obj, name, value)
    return obj
