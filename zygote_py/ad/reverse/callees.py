"""Symbolic references to the pullbacks of user functions a transformed function calls.

The reverse transform does not compile callees.  Where a call of a user
function needs its pullback, the forward gets a `call_pb` op whose `callee`
attr is a `CalleeRef` naming what is needed: the function, which of its
parameters are active, whether the implicit-parameter variant is meant, and
what the caller knows of each argument (`kinds`: False for a value certainly
an array or a number, None otherwise, as `kinds.scalar_kinds` says; the
callee's ndarray method and attribute rules apply only where it is known, see
analysis/receivers.py).
The transform lists the references it made (`AdjointProgram.callees`); the
driver (compiler.py) compiles or looks each up after the transform and hands
the results to codegen, which binds them under the op's `pb_expr` name.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

from ...errors import SourceLoc, UnsupportedSyntax
from ...kinds import COMPLEX, HOLDS_COMPLEX, ITEMS


@dataclass(frozen=True)
class CalleeRef:
    """The pullback of fn for these active parameters (implicit: the Params variant),
    specialised on what the caller knows of its arguments (kinds, as
    `kinds.scalar_kinds` says: known arrays or numbers, and which may be complex)."""

    fn: object
    active: tuple[bool, ...]
    implicit: bool = False
    kinds: tuple = ()
    # the parameters fn writes into, for a call that sees the writes: the pullback of the
    # threaded variant, returning (result, those arrays) (runtime/writes.py: ArgumentWrites)
    threads: tuple = ()

    @property
    def expr(self) -> str:
        """The name the generated code calls it by."""
        return f"{self.fn.__name__}_pullback"


def bind_parameters(fn, op, loc: SourceLoc | None) -> list[list[int]]:
    """For each parameter of fn, the indices of the call op's operands bound to it."""
    sig = inspect.signature(fn, follow_wrapped=False)  # fn's own parameters, not a wrapped function's
    kw = op.attrs.get("kw", ())
    npos = len(op.operands) - len(kw)
    try:
        bound = sig.bind(*range(npos), **{k: npos + i for i, k in enumerate(kw)})
    except TypeError as err:
        raise UnsupportedSyntax(f"this call does not match {fn.__name__}{sig}: {err}", loc,
                                "check the arguments of the call") from None
    out = []
    for name, param in sig.parameters.items():
        value = bound.arguments.get(name)
        if value is None:
            out.append([])
        elif param.kind == param.VAR_POSITIONAL:
            out.append(list(value))
        elif param.kind == param.VAR_KEYWORD:
            out.append(list(value.values()))
        else:
            out.append([value])
    return out


def callee_kind(builder, op, idx) -> object:
    """What the caller knows of the argument bound to one parameter (the operands idx of
    op), as the callee's pullback is compiled knowing it (kinds.scalar_kinds' values)."""
    array = bool(idx) and all(op.operands[i].id in builder.arrays for i in idx)
    if any(op.operands[i].id in builder.maybe_complex for i in idx):
        return COMPLEX if array else HOLDS_COMPLEX
    if array:
        return False
    return ITEMS if len(idx) == 1 and op.operands[idx[0]].id in builder.sequences else None
