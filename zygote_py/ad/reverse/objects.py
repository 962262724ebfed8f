"""The reverse transform's part for objects built and written inside the call.

A write `obj.name = v` (a call of `set_attribute`, see frontend/lower_objects.py)
has no result a cotangent could reach, yet its adjoint moves derivatives: it
takes what the later reads of obj.name gathered in the ledger
(runtime/built_objects.py) as v's cotangent.  Likewise a call that may write or
build such an object (`m.bump(t)`, whose result nobody reads; `Layer(0.1)`)
must have its back run even when no cotangent reaches its result.  So the
adjoint walk does not only follow cotangents here: `effectful_ops` names the
ops whose adjoint runs regardless (and the branches and loops holding them),
and their backs are called when `must_run_back` says so: the cotangent is not
None, or the back has effects to run.
"""

from __future__ import annotations

from ...analysis.receivers import decided_by_operands
from ...ir.core import Function, Op
from ...resolve import (
    CALLABLE,
    CONSTRUCT,
    CUSTOM,
    FUNCTION,
    METHOD,
    RECEIVER,
    RECORD,
    RULE,
    resolve,
)
from ...rules import registry
from ...runtime.built_objects import (
    must_run_back,
    object_set_attribute,
    set_attribute,
    super_of,
    take_attribute,
)
from .control import branch, merge_branches

_WRITES = (set_attribute, object_set_attribute)


def is_write(op: Op) -> bool:
    return op.opcode == "call" and _is(op.attrs.get("fn"), _WRITES)


def _is(fn, forms) -> bool:
    return any(fn is form for form in forms)


def effectful_ops(fn: Function, varied: set[int], plain: set[int], arrays: set[int]) -> set[int]:
    """ids of the ops whose adjoint must run even when no cotangent reaches their results:
    writes into objects, calls that pass or return an object other than an array or a
    number with a derivative (their back may write or build objects), and the branches
    and loops that hold either."""
    out: set[int] = set()

    def opaque(value) -> bool:
        return value.id in varied and value.id not in plain

    def visit(block) -> bool:
        found = False
        for op in block.ops:
            if op.regions:
                inner = False
                for region in op.regions:
                    inner |= visit(region)
                if inner:
                    out.add(id(op))
                    found = True
                continue
            if _effectful_leaf(op, varied, arrays, opaque):
                out.add(id(op))
                found = True
        return found

    visit(fn.body)
    return out


def _effectful_leaf(op: Op, varied, arrays, opaque) -> bool:
    code = op.opcode
    if code == "call":
        fn = op.attrs["fn"]
        if _is(fn, _WRITES):
            return op.operands[0].id in varied or op.operands[2].id in varied
        if fn is super_of:
            return False
        if getattr(fn, "__module__", None) == "zygote_py.runtime.writes":
            return False  # the array-write checks (lowered with writes): no object state
        if not (any(map(opaque, op.operands)) or any(map(opaque, op.results))):
            return False
        how = resolve(fn, registry)
        if how.kind == RULE:  # dispatched (an object's method may take it) or spliced (no effects)
            return decided_by_operands(fn)
        return how.kind in (CUSTOM, FUNCTION, METHOD, RECEIVER, CALLABLE, RECORD, CONSTRUCT)
    if code == "method":
        return op.operands[0].id not in arrays and \
            (any(map(opaque, op.operands)) or any(map(opaque, op.results)))
    if code == "callv":
        return any(map(opaque, op.operands)) or any(map(opaque, op.results))
    return False


def adjoint_object_call(builder, op: Op) -> bool:
    """The adjoint of a write into an object or of super(); False for any other call."""
    fn = op.attrs["fn"]
    if _is(fn, _WRITES):
        obj, name, value, _ = op.operands
        g = builder.call(take_attribute, builder.fetch(obj), builder.fetch(name),
                         builder.fetch(op.result), builder.fetch(value), expr="_zp_take_attribute",
                         hint=(value.hint or "v") + "_bar")
        builder.maybe_none.add(g.id)
        if value.id in builder.varied:
            builder.accumulate(value, g)
        return True
    if fn is super_of:  # super(cls, self): its cotangent is self's
        g = builder.bar(op.result)
        if g is not None and op.operands[1].id in builder.varied:
            builder.accumulate(op.operands[1], g)
        return True
    return False


def effect_guarded(builder, op: Op, back, g, body_fn) -> None:
    """Run body_fn's adjoint code (which calls back(g)) when g is not None or back has
    effects to run (`must_run_back`), for an op in builder.effectful; g is a value (a None
    constant where no cotangent reaches the op)."""
    cond = builder.call(must_run_back, builder.fetch(back), g, expr="_zp_must_run_back")
    then = branch(builder, None, body_fn)
    otherwise = branch(builder, None, lambda: None)
    merge_branches(builder, cond, [then, otherwise])
