"""Where implicit parameters enter a function: its reads of globals and module data.

For a `zp.gradient(thunk, zp.params(...))` call the compiler builds a separate
*implicit* variant of every function the thunk reaches.  In it, a read of a
module global (or of a data attribute of a module or class) whose value holds
an array of the Params being differentiated is treated as an input, as if it were an active argument: its
cotangent is computed and, at the read, handed to `calls.implicit.deposit`, which adds
what reaches a parameter into the Grads being filled.  Calls of user functions
are differentiated even when no argument is active, since the callee may read
parameters itself.  Closure cells go the way they already go for closures:
their cotangents are returned to whoever made the closure or called it.

Whether a global holds a parameter is decided when the variant is built; a
guard (`("holds", namespace, name, did_hold)`) rebuilds it when that changes,
for instance for a different Params set.  Globals holding no parameter (the
data, say) get no cotangent: no work is spent on them.
Variants for ordinary gradient calls mark none of this and pay nothing.

The reverse transform's core knows none of this: `ImplicitParamReads` is the
plug-in the compiler hands it for an implicit variant (see
reverse/reads.py for the points it hooks), and the adjoint of a `global`
read, which only an implicit variant can reach, is registered here.
"""

from __future__ import annotations

import types

from ..analysis.activity import may_read_parameters
from ..calls import implicit as implicit_runtime
from ..calls.implicit import current_params, holds_parameter
from ..errors import NoDerivativeRule
from ..ir.core import Function, Op, Value
from .reverse.adjoint import AdjointBuilder, adjoint_of
from .reverse.reads import ConstantReads


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


def deposit(builder: AdjointBuilder, obj: Value, g: Value) -> None:
    """Emit: add g, the cotangent of obj, into the Grads being filled."""
    builder.call(implicit_runtime.deposit, obj, g, expr="_zp_deposit")


class ImplicitParamReads(ConstantReads):
    """The implicit variant: reads of globals and module data holding parameters are
    inputs, and calls of user code may read parameters themselves."""

    implicit = True

    def __init__(self, module_globals: dict):
        self.module_globals = module_globals

    def roots(self, fn: Function) -> tuple[list[int], list[tuple]]:
        return implicit_roots(fn, self.module_globals)

    def may_read_parameters(self, op: Op, arrays=None) -> bool:
        return may_read_parameters(op, arrays)

    def check_rule_call(self, rule, op: Op) -> None:
        """A rule that differentiates a function it is given (odeint: `calls_function`)
        cannot follow the parameters that function reads: refused, never a silent zero."""
        if rule.meta.get("calls_function"):
            raise NoDerivativeRule(
                f"the rule for {rule.qualname} does not follow zp.params read inside the "
                "function it is given", op.loc,
                "pass the parameters through its args= and take an explicit gradient "
                "(zp.gradient(loss, params...))")

    def runs_calls_plainly(self) -> bool:
        return False  # every call of user code is differentiated: it may read a parameter

    def adjoint_read(self, builder: AdjointBuilder, op: Op) -> bool:
        if not is_module_data_read(op):
            return False
        deposit(builder, builder.fetch(op.result), builder.bar(op.result))
        return True

    def calls_through_dispatch(self, fn) -> bool:
        return bool(fn.__closure__)  # a closure over parameters: its cells' cotangents

    def captured_cotangent(self, builder: AdjointBuilder, fn, g: Value) -> None:
        deposit(builder, builder.const(fn), g)


@adjoint_of("global")
def adjoint_global(builder: AdjointBuilder, op: Op) -> None:
    """A global holding a parameter (a root in implicit variants): hand its cotangent to
    the Params being filled.  In an explicit variant a global object is varied only
    because something may write into it (reverse/objects.py): its own cotangent goes
    nowhere, a global is not an input there."""
    if not builder.reads.implicit:
        return
    deposit(builder, builder.fetch(op.result), builder.bar(op.result))
