"""What a class says about its instances' attributes, as gradient code needs to know.

`slot_names(cls)` lists the `__slots__` an object's attributes may live in,
for the walkers that look for parameters inside objects.
`class_property(cls, name)` answers whether reading `obj.name` runs a Python
property's getter.  Run-time dispatch needs it to pull a cotangent back
through the getter (`attribute_cotangent`), and the Params collector to find
which objects a cotangent keyed by such a name belongs to.  The answer is
looked up in the class's MRO at every call, with no cache: a class can gain
or lose a property at any time, and a stale answer would be a wrong gradient.
The walk is a few dict lookups (cheaper than `inspect.getattr_static`).
"""

from __future__ import annotations

import types

_MISSING = object()


def class_property(cls, name: str):
    """The property, with a Python getter, that instances of cls read as name; else None.

    The first class of the MRO that defines name decides, as for attribute
    reads on an instance (the metaclass is not consulted: its properties apply
    to reads on the class, not on its instances).
    """
    for klass in cls.__mro__:
        attr = klass.__dict__.get(name, _MISSING)
        if attr is not _MISSING:
            if isinstance(attr, property) and isinstance(attr.fget, types.FunctionType):
                return attr
            return None
    return None


def slot_names(cls) -> list[str]:
    """The `__slots__` names of cls and its bases (`__dict__` left out), base classes last."""
    names = []
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        names += [slots] if isinstance(slots, str) else [s for s in slots if s != "__dict__"]
    return names
