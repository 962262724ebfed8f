"""Lowering of attribute writes, `setattr`, and zero-argument `super()`.

`obj.name = v` becomes `call set_attribute(obj, 'name', v, loc)` (and
`obj.name += v` a read, the operation and that call): the write happens while
the forward pass runs, on an object built inside the differentiated call, and
is refused there for any other (runtime/built_objects.py says why and how the
derivatives flow).  Its result is the attribute's old value, which the
backward puts back.  `setattr(obj, 'name', v)` and `object.__setattr__(obj,
'name', v)` lower the same way.

A list or dict the function created that is stored into an attribute, or
passed to a class being built, may now be reached through the object too:
lowering rewrites later updates of such a container as new containers
(lower_containers.py), which the object would not see, so those updates are
refused from then on.

`super(Cls, obj)` lowers to `super_of(Cls, obj)`, and `super()` with no
arguments, in a method, is `super(__class__, self)` where
`__class__` is the class the method was defined in (the cell Python makes for
it) and `self` the method's first parameter; it lowers to `super_of(cls,
self)`, and a method called on it is resolved while running
(calls/dispatch.py: call_method), through the MRO after that class.
"""

from __future__ import annotations

import builtins

import gast

from ..ir.core import Value
from ..resolve import NONDIFF, RULE, resolve
from ..rules import registry
from ..runtime.built_objects import object_set_attribute, set_attribute, super_of
from ..runtime.helpers import flag_function
from ..runtime.writes import augmented_attribute


class ObjectLowering:
    """Mixin of the Lowerer: writes into objects, and super()."""

    def attribute_store(self, target, value: Value, node) -> None:
        """`base.name = value`."""
        base = self.expr(target.value)
        if target.attr == "_zp_effects":
            # generated pullback code flags its back (codegen/generate.py): a flag on a
            # function it just made, not data; differentiating that code again (forward or
            # reverse) sets it as it is
            self.emit("call", [base, self.const(target.attr, node), value],
                      attrs={"fn": flag_function, "expr": "_zp_flag_function", "kw": (),
                             "star": ()}, node=node)
            if isinstance(target.value, gast.Name) and target.value.id in self.local_names:
                # the nested def is made a value at each read: later reads (the return) must
                # see this one, the function flagged, or a back with effects is skipped
                self.env[target.value.id] = base
            return
        self.store_attribute(base, self.const(target.attr, node), value, node, set_attribute)

    def attribute_augassign(self, target, fn, rhs, node) -> None:
        """`base.name op= rhs`: Python reads base.name once, then writes the result (an in-place
    update of an ndarray or list held there is refused while running)."""
        base = self.expr(target.value)
        current = self.emit("getattr", (base,), attrs={"name": target.attr}, node=node,
                            hint=target.attr).result
        value = self.call_static(fn, (current, self.expr(rhs)), node)
        # Python's base.name = base.name.__iop__(rhs): a number rebinds; an ndarray or a list
        # would be updated in place, which other references see: refused while running
        value = self.emit("call", [current, value, self.const(self.loc(node), node)],
                          attrs={"fn": augmented_attribute, "expr": "_zp_augmented_attribute",
                                 "kw": (), "star": ()}, node=node, hint=target.attr).result
        self.store_attribute(base, self.const(target.attr, node), value, node, set_attribute)

    def store_attribute(self, base: Value, name: Value, value: Value, node, form) -> Value:
        self.escape(value)
        return self.emit("call", [base, name, value, self.const(self.loc(node), node)],
                         attrs={"fn": form, "expr": "_zp_" + form.__name__, "kw": (), "star": ()},
                         node=node).result

    def escape(self, value: Value) -> None:
        """value may now be reached through an object: if it is a list or dict made here,
        updating it later under its name is refused (see the module docstring)."""
        if isinstance(value, Value) and value.id in self.fresh:
            self.fresh.discard(value.id)
            self.escaped.add(value.id)

    def lower_object_call(self, obj, operands, star, kw, node):
        """setattr(...), object.__setattr__(...), super(): lowered here; None otherwise."""
        if obj is builtins.setattr or obj is object.__setattr__:
            if star or kw or len(operands) != 3:
                raise self.unsupported(node, f"{'setattr' if obj is builtins.setattr else 'object.__setattr__'}"
                                       "() takes three positional arguments here",
                                       "pass the object, the name and the value")
            form = set_attribute if obj is builtins.setattr else object_set_attribute
            base, name, value = operands
            self.store_attribute(base, name, value, node, form)
            return self.const(None, node)
        if obj is builtins.getattr and len(operands) == 2 and not star and not kw:
            name = self.constant_of(operands[1])
            held = self.constant_of(operands[0], operands)
            if isinstance(name, str) and held is operands:  # not a constant (a module, ...)
                # getattr(o, "w") is o.w: read from the object when it runs, differentiated
                return self.emit("getattr", (operands[0],), attrs={"name": name}, node=node,
                                 hint=name).result
        if obj is builtins.super and len(operands) == 2 and not star and not kw:
            return self.emit("call", list(operands),  # super(Cls, self): as written
                             attrs={"fn": super_of, "expr": "_zp_super_of", "kw": (), "star": ()},
                             node=node).result
        if obj is builtins.super:
            return self.zero_argument_super(operands, star, kw, node)
        return None

    def escape_to_call(self, callee, operands) -> None:
        """A list or dict made here and passed to a call that may keep it (a user function,
        a method, a class, a NamedTuple: anything but a rule or a function with no
        derivative, which do not) is not updated under its name afterwards."""
        if callee is not None:
            try:
                kind = resolve(callee, registry).kind
            except TypeError:
                kind = None
            if kind in (RULE, NONDIFF):
                return
        for value in operands:
            self.escape(value)

    def zero_argument_super(self, operands, star, kw, node) -> Value:
        root = self
        while root.parent is not None:
            root = root.parent
        code = root.pyfn.__code__
        if operands or star or kw or root is not self or "__class__" not in code.co_freevars \
                or not code.co_argcount:
            raise self.unsupported(node, "super() needs two arguments here, or none in a method "
                                   "of a class (not in a nested function)",
                                   "call the base class's method directly: Base.method(self, ...)")
        cell = root.pyfn.__closure__[code.co_freevars.index("__class__")]
        cls = cell.cell_contents
        first = code.co_varnames[0]
        receiver = self.env.get(first)
        if not isinstance(receiver, Value):
            raise self.unsupported(node, f"super() needs the method's first argument {first!r}",
                                   "do not rebind the first argument before super()")
        klass = self.const(cls, node)
        return self.emit("call", [klass, receiver],
                         attrs={"fn": super_of, "expr": "_zp_super_of", "kw": (), "star": ()},
                         node=node).result


def is_attribute_target(target) -> bool:
    return isinstance(target, gast.Attribute)
