"""Where implicit parameters enter a function: its reads of globals and module data.

For a `zp.gradient(thunk, zp.params(...))` call the compiler builds a separate
*implicit* variant of every function the thunk reaches.  In it, a read of a
module global (or of a data attribute of a module or class) whose value holds
an array of the Params being differentiated is treated as an input, as if it were an active argument: its
cotangent is computed and, at the read, handed to `runtime.implicit.deposit`, which adds
what reaches a parameter into the Grads being filled.  Calls of user functions
are differentiated even when no argument is active, since the callee may read
parameters itself.  Closure cells go the way they already go for closures:
their cotangents are returned to whoever made the closure or called it.

Whether a global holds a parameter is decided when the variant is built; a
guard (`("holds", namespace, name, did_hold)`) rebuilds it when that changes,
for instance for a different Params set.  Globals holding no parameter (the
data, say) get no cotangent: no work is spent on them.
Variants for ordinary gradient calls mark none of this and pay nothing.
"""

from __future__ import annotations

import types

from ..ir.core import Function
from ..runtime.implicit import current_params, holds_parameter


def holds_current_parameter(x) -> bool:
    return holds_parameter(x, current_params())


def namespace_get(where, name: str, default=None):
    """where[name] for a globals dict, getattr for a module or class."""
    if isinstance(where, dict):
        return where.get(name, default)
    return getattr(where, name, default)


def implicit_roots(fn: Function, module_globals: dict) -> tuple[list[int], list[tuple]]:
    """(ids of the values read from globals or module data that hold parameters, guards)."""
    roots: list[int] = []
    guards: list[tuple] = []
    seen: set = set()
    for op in fn.walk():
        where = None
        if op.opcode == "global":
            where = module_globals
        elif is_module_data_read(op):
            where = op.operands[0].defining_op.attrs["value"]
        if where is None:
            continue
        name = op.attrs["name"]
        active = holds_current_parameter(namespace_get(where, name))
        if (id(where), name) not in seen:
            seen.add((id(where), name))
            guards.append(("holds", where, name, active))
        if active:
            roots.append(op.result.id)
    return roots, guards


def is_module_data_read(op) -> bool:
    """A getattr of a module or class known when the function was transformed."""
    if op.opcode != "getattr":
        return False
    base = op.operands[0].defining_op
    return base is not None and base.opcode == "const" and isinstance(
        base.attrs["value"], (types.ModuleType, type))
