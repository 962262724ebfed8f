"""Which claims of module-level or captured lists and dicts a derivative needs.

A function that updates a global (or captured) list or dict by its name claims it at
its entry (frontend/lower_containers.py: ClaimLowering; runtime/outside_containers.py:
claim_outside), and a claim has consequences for the rest of the gradient call: other
functions may not read the container, user code may not run without derivatives.  Those
are only needed when the container carries a derivative: a function that logs a string
into a global list (`RAN.append("f")`) runs as before.  So the transforms keep a claim only
when some version of the claimed container (the values of its may-alias class, recorded
by the lowering in `Function.meta["claimed_values"]`) is varied.
"""

from __future__ import annotations

from ..ir.core import Function, Op
from ..runtime.outside_containers import claim_outside


def is_claim(op: Op) -> bool:
    return op.opcode == "call" and op.attrs.get("fn") is claim_outside


_UPDATES = ("zygote_py.runtime.outside_containers", "zygote_py.runtime.writes")


def unneeded_claims(fn: Function, varied) -> set[int]:
    """ids of the claim ops of fn whose container no derivative reaches: none of its
    versions made by an update (or read at the claim, a zp.params root) is varied.  (The
    merges of an update's branches with another object's method of that name are left
    out: forward mode varies a method's result on any object.)"""
    classes = fn.meta.get("claimed_values") or {}
    updated: dict[int, bool] = {}
    for op in fn.walk():
        if op.opcode in ("global", "cell") or op.opcode == "call" and \
                getattr(op.attrs.get("fn"), "__module__", None) in _UPDATES:
            for result in op.results:
                updated[result.id] = result.id in varied
    out: set[int] = set()
    for op in fn.walk():
        if not is_claim(op):
            continue
        name_op = op.operands[1].defining_op
        name = name_op.attrs.get("value") if name_op is not None else None
        values = classes.get(name)
        if values is not None and not any(updated.get(v, False) for v in values):
            out.add(id(op))
    return out
