"""Filling the Grads of a Params call while its generated code runs.

In the implicit variant of a function (see ad/implicit.py), every read of a
global, closure cell or attribute that may hold a parameter hands its
cotangent to `deposit(obj, g)`.  `deposit` passes it to the `Collector` of
the Params call running now, which walks the object read alongside its
cotangent and adds what reaches a parameter array into that array's entry.
The collector is found in the current Context (context.py), never in a
process-wide stack: a Params call in another thread, or one nested in a
custom rule, fills its own.

`holds_parameter` is the question the compiler's guards ask of a global:
whether it holds an array of the Params being differentiated.
"""

from __future__ import annotations

import types

import numpy as np

from .. import context, tree
from ..runtime.objects import class_property

_ndarray = np.ndarray


class Collector:
    """The gradients of one Params set being filled by one backward pass.

    ps is the Params (its arrays by identity); `gradients()` is the result,
    {id(array): gradient}, which api.py wraps into a Grads.
    """

    def __init__(self, ps):
        self.params = ps
        self.grads: dict[int, object] = {}

    def walk(self, obj, g) -> None:
        """Add g, the cotangent of obj, into the entries of the parameters obj holds."""
        if g is None:
            return
        if isinstance(obj, _ndarray):
            key = id(obj)
            if key in self.params._arrays and self.params._arrays[key] is obj:
                old = self.grads.get(key)
                g = np.asarray(g)
                if g.shape != obj.shape:
                    g = np.broadcast_to(g, obj.shape)
                self.grads[key] = g if old is None else old + g
            return
        kind = tree.kind_of(obj)
        if kind in (tree.TUPLE, tree.LIST, tree.RECORD, tree.DICT):
            for i, (key, child) in enumerate(tree.children(obj)):
                gk = tree.child_cotangent(g, obj, key, i)
                if gk is not None:
                    self.walk(child, gk)
            return
        if not isinstance(g, dict):
            return
        if isinstance(obj, types.FunctionType):
            cells = dict(zip(obj.__code__.co_freevars, obj.__closure__ or ()))
            for name, gk in g.items():
                if gk is not None and name in cells:
                    try:
                        self.walk(cells[name].cell_contents, gk)
                    except ValueError:
                        pass
        else:  # an object: its cotangent is keyed by the attribute names the code read
            attrs = getattr(obj, "__dict__", None)
            for name, gk in g.items():
                if gk is None or not isinstance(name, str):
                    continue
                if attrs is not None and name in attrs:
                    self.walk(attrs[name], gk)
                elif class_property(type(obj), name) is None and hasattr(obj, name):
                    # (a cotangent keyed by a property was pulled back through its getter)
                    self.walk(getattr(obj, name), gk)

    def gradients(self) -> dict[int, object]:
        """{id(parameter): its gradient}, each a new array of the parameter's dtype."""
        out = {}
        for key, g in self.grads.items():
            array = self.params._arrays[key]
            g = np.asarray(g)
            # always a new array: the cotangent may be shared with the caller's seed or
            # another parameter's entry, and a returned Grads must never change
            g = g.astype(array.dtype) if array.dtype.kind == "f" else g.copy()
            out[key] = g
        return out


def current_params():
    """The Params of the Params call running now in this thread (None outside one)."""
    collector = context.current().collector
    return collector.params if collector is not None else None


def deposit(obj, g) -> None:
    """Called by generated code where a global, attribute or cell is read: add the
    cotangent g of the object read into the Grads being filled."""
    if g is not None:
        collector = context.current().collector
        if collector is not None:
            collector.walk(obj, g)


def holds_parameter(obj, ps) -> bool:
    """Whether obj is, or holds (through attributes and items), an array of ps."""
    if ps is None or not ps._arrays:
        return False
    return _holds(obj, ps._arrays, set())


def _holds(obj, arrays: dict, seen: set) -> bool:
    if isinstance(obj, _ndarray):
        return arrays.get(id(obj)) is obj
    if id(obj) in seen:
        return False
    if isinstance(obj, types.FunctionType):  # a closure holds what its cells hold
        seen.add(id(obj))
        return any(_holds(cell_value(cell), arrays, seen) for cell in obj.__closure__ or ())
    if tree.kind_of(obj) in (tree.LEAF, tree.SCALAR):
        return False
    seen.add(id(obj))
    return any(_holds(item, arrays, seen) for _, item in tree.children(obj))


def cell_value(cell):
    """What a closure cell holds (None for a cell not yet filled)."""
    try:
        return cell.cell_contents
    except ValueError:
        return None
