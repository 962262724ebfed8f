"""Implicit parameters, Flux-style: `Params` (arrays by identity) and `Grads`.

    ps = zp.params(model)                      # every float array model holds
    gs = zp.gradient(lambda: loss(model, x), ps)
    gs[model.W]                                # by identity, wherever the loss read it

A `Params` set names arrays by identity, so it finds them wherever the loss
reads them: a module global, a closure cell, an attribute, an item of a list
or dict.  The compiler (see ad/implicit.py) marks such reads; the code it
generates for a Params call hands each one's cotangent to the run-time
collector (calls/implicit.py), whose result api.py returns as a `Grads`.
Code generated for ordinary calls has no such reads marked and pays nothing.

This module is the public side only: `params`, `Params`, `Grads`, and
`leaf_gradients`, which pairs each array of a model with its entry in a
*structural* gradient (the dict an explicit `zp.gradient(loss, model, x)`
returns for `model`), as optimisers use it.
"""

from __future__ import annotations

import numbers
import sys

import numpy as np

from . import tree
from .errors import ZygoteError

_ndarray = np.ndarray


class ParamsError(ZygoteError, TypeError):
    """A value that cannot be a parameter (an immutable scalar), or a lookup of one
    that is not in the set."""


def _is_param_array(x) -> bool:
    return isinstance(x, _ndarray) and x.dtype.kind in "fc"


class Params:
    """An ordered set of arrays, compared by identity (an array is not hashable by value).

    Build it with `zp.params(...)`.  Iteration is in insertion order; `in`
    asks whether this very array object is in the set.
    """

    def __init__(self):
        self._arrays: dict[int, _ndarray] = {}
        self._names: dict[int, str] = {}

    def add(self, *objs, names=None) -> Params:
        """Add arrays, or every float array an object holds (walked recursively)."""
        for k, obj in enumerate(objs):
            if type(obj) in (float, int, complex, bool) or isinstance(obj, np.generic):
                raise ParamsError(
                    f"params() got a {type(obj).__name__} ({obj!r}): a Python number has no identity "
                    "to find it by", hint="hold the parameter in a NumPy array; a 0-d array such as "
                    "np.array(3.0) works")
            if isinstance(obj, _ndarray) and not _is_param_array(obj):
                raise ParamsError(f"params() got an array of dtype {obj.dtype}, which carries no gradient",
                                  hint="parameters are float (or complex) arrays: use .astype(float)")
            found: list = []
            root = names[k] if names and k < len(names) and names[k] else ""
            _pair(obj, None, root, {}, set(), found)
            for path, array, _ in found:
                if array not in self:
                    self._arrays[id(array)] = array
                    if path:
                        self._names[id(array)] = path
        return self

    def __contains__(self, x) -> bool:
        return id(x) in self._arrays and self._arrays[id(x)] is x

    def __len__(self) -> int:
        return len(self._arrays)

    def __iter__(self):
        return iter(list(self._arrays.values()))

    def name_of(self, x) -> str | None:
        """The name x was found under (a variable, or a path like 'layers[0].W'), if known."""
        return self._names.get(id(x)) if x in self else None

    def __repr__(self) -> str:
        parts = [self._names.get(i) or f"<{a.shape} array>" for i, a in self._arrays.items()]
        return f"Params([{', '.join(parts)}])"


def params(*objs) -> Params:
    """The arrays to differentiate with respect to, collected by identity.

    Arrays are taken as they are; objects (class instances, dataclasses,
    lists, tuples, dicts) are walked for their float arrays, each object once.
    Names are known for arrays bound to a variable of the caller and for the
    paths inside objects so bound (`model.layers[0].W`).
    """
    caller = sys._getframe(1)
    try:
        names = [_caller_name(obj, caller) for obj in objs]
    finally:
        del caller
    return Params().add(*objs, names=names)


def _caller_name(obj, frame) -> str | None:
    for scope in (frame.f_locals, frame.f_globals):
        for name, value in scope.items():
            if value is obj and not name.startswith("_"):
                return name
    return None


class Grads:
    """Gradients of the parameters in a Params set, looked up by the array itself.

    `g[W]` is W's gradient, or None when the result did not depend on W; an
    array that is not in the Params raises KeyError.  Grads add (`g1 + g2`)
    and scale (`g * 2.0`); a Grads is never changed after it is returned.
    """

    def __init__(self, ps: Params, grads: dict[int, object] | None = None):
        self.params = ps
        self._grads: dict[int, object] = dict(grads or {})

    def __getitem__(self, x):
        if x not in self.params:
            what = f"an array of shape {np.shape(x)}" if isinstance(x, _ndarray) else repr(type(x).__name__)
            raise KeyError(f"{what} is not one of the {len(self.params)} parameters of this Grads "
                           "(they are matched by identity: a copy or a slice of a parameter is a "
                           "different array)")
        return self._grads.get(id(x))

    def get(self, x, default=None):
        return self[x] if x in self.params and self._grads.get(id(x)) is not None else default

    def __contains__(self, x) -> bool:
        return x in self.params

    def keys(self):
        return list(self.params)

    def values(self):
        return [self._grads.get(id(p)) for p in self.params]

    def items(self):
        return [(p, self._grads.get(id(p))) for p in self.params]

    def __iter__(self):
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self.params)

    def by_name(self) -> dict:
        """{name: gradient} for the parameters whose names are known."""
        out = {}
        for p in self.params:
            name = self.params.name_of(p)
            if name is not None:
                out[name] = self._grads.get(id(p))
        return out

    def copy(self) -> Grads:
        return Grads(self.params, {k: _copy(v) for k, v in self._grads.items()})

    def __add__(self, other):
        """The sum, over the union of both parameter sets; None counts as zero."""
        if not isinstance(other, Grads):
            return NotImplemented
        ps = self.params
        if other.params is not ps:
            ps = Params()
            for source in (self.params, other.params):
                for p in source:
                    ps._arrays.setdefault(id(p), p)
                    name = source.name_of(p)
                    if name is not None:
                        ps._names.setdefault(id(p), name)
        out = {}
        for p in ps:
            a, b = self._grads.get(id(p)), other._grads.get(id(p))
            out[id(p)] = _copy(b) if a is None else _copy(a) if b is None else a + b
        return Grads(ps, out)

    def _scaled(self, op) -> Grads:
        return Grads(self.params, {key: op(g) for key, g in self._grads.items() if g is not None})

    def __mul__(self, scale):
        if isinstance(scale, Grads):
            return NotImplemented
        return self._scaled(lambda g: g * scale)

    __rmul__ = __mul__

    def __truediv__(self, scale):
        return self._scaled(lambda g: g / scale)

    def __repr__(self) -> str:
        parts = []
        for p in self.params:
            g = self._grads.get(id(p))
            name = self.params.name_of(p) or f"<{p.shape} array>"
            parts.append(f"{name}: {'None' if g is None else f'array{np.shape(g)}'}")
        return "Grads({" + ", ".join(parts) + "})"


def _copy(v):
    return v.copy() if isinstance(v, _ndarray) else v


# -- structural gradients -----------------------------------------------------------
def leaf_gradients(model, grads=None) -> list[tuple[str, np.ndarray, object]]:
    """(path, array, gradient or None) for every float array of model, in order.

    grads is a structural gradient of model, as `zp.gradient(loss, model, ...)`
    returns it: a dict per object (attribute -> gradient), a list per list.
    An array held at two paths (tied weights) is listed once, at its first
    path, with the gradients of both paths added.  Paths read like Python:
    `layers[0].W`.  An optimiser steps each array in place with its gradient.
    """
    out: list = []
    _pair(model, grads, "", {}, set(), out)
    return [tuple(entry) for entry in out]


def _pair(obj, g, path, arrays: dict, seen: set, out: list, data: bool = False) -> None:
    """Walk obj (with g, its structural gradient) for float arrays into out.  data: obj is
    held by a data attribute (see _data_attributes): its arrays are not parameters, but one
    that is also a parameter (a Recur's state right after reset() is its init) adds the
    gradient found there to the parameter's."""
    if _is_param_array(obj):
        if g is not None and not isinstance(g, (_ndarray, numbers.Number)):
            g = None
        where = arrays.get(id(obj))
        if where is None:
            if data:
                return
            arrays[id(obj)] = len(out)
            out.append([path, obj, g])
        elif g is not None:  # a tied array: its gradients add up
            entry = out[where]
            entry[2] = g if entry[2] is None else entry[2] + g
        return
    kind = tree.kind_of(obj)
    mark = ("data", id(obj)) if data else id(obj)  # walked once as data, once as parameters
    if kind in (tree.LEAF, tree.SCALAR, tree.ARRAY) or mark in seen:
        return
    seen.add(mark)
    skipped = _data_attributes(obj)
    later = []
    for i, (key, item) in enumerate(tree.children(obj)):
        if kind == tree.DICT:
            where = f"{path}[{key!r}]"
        elif isinstance(key, int):
            where = f"{path}[{key}]"
        else:
            where = f"{path}.{key}" if path else key
        if key in skipped:
            later.append((item, _gradient_part(g, obj, key, i), where))
            continue
        _pair(item, _gradient_part(g, obj, key, i), where, arrays, seen, out, data)
    for item, part, where in later:  # after the parameters they may be tied to
        _pair(item, part, where, arrays, seen, out, True)


def _data_attributes(obj) -> tuple:
    """The attributes obj's class declares as data, not parameters (`_zp_data = ("state",)`,
    as nn.Recur does for its hidden state: Flux's `trainable` leaves it out the same way)."""
    names = getattr(type(obj), "_zp_data", ())
    return names if isinstance(names, tuple) else ()


def _gradient_part(g, obj, key, index):
    """The entry of a structural gradient g of obj for its child key (None if g has none)."""
    if isinstance(g, (_ndarray, numbers.Number)):  # not a structure: nothing to pair
        return None
    return tree.child_cotangent(g, obj, key, index)
