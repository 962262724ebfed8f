"""The reverse transform's part for objects written inside the call (built there or not).

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
    check_underived_result,
    must_run_back,
    object_set_attribute,
    released_cotangent,
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


def object_reads(fn: Function, plain: set[int]) -> list[int]:
    """ids of the results of attribute reads of values that may be objects (not known to be
    arrays or numbers, not a module or class named in the code): any such object may have
    been written with a derivative earlier in the gradient call, by this function or by
    another (runtime/built_objects.py adopts it then), so every such read is differentiated;
    for an object nothing wrote, its derivative goes the way it always went."""
    out = []
    for op in fn.walk():
        if op.opcode != "getattr" or op.operands[0].id in plain:
            continue
        base = op.operands[0].defining_op
        if base is not None and base.opcode == "const":
            continue
        out.append(op.result.id)
    return out


def check_underived_calls(fn: Function, varied: set[int], plain: set[int], plan) -> None:
    """Calls of user code that no derivative reaches (they run as plain Python) are
    followed, in the forward, by `check_underived_result`: such a call may read an object
    from outside that was written with a derivative earlier in the gradient call, which
    is refused rather than lost (runtime/built_objects.py)."""
    for op in fn.walk():
        if op.opcode not in ("call", "method", "callv") or len(op.results) != 1 \
                or op.results[0].id in varied:
            continue
        if op.opcode == "call":
            callee = op.attrs.get("fn")
            if (getattr(callee, "__module__", None) or "").startswith("zygote_py."):
                continue  # the compiler's own helpers (intrinsics such as `or`)
            try:
                kind = resolve(callee, registry).kind
            except TypeError:
                kind = None
            if kind not in (FUNCTION, METHOD, RECEIVER, CALLABLE):
                continue
            what = f"{getattr(callee, '__qualname__', type(callee).__name__)}(...)"
        elif op.opcode == "method":
            if op.operands[0].id in plain:
                continue
            what = f".{op.attrs['name']}(...)"
        else:
            what = "the call"
        plan.check_after(op, check_underived_result, [what, op.loc])


def written_objects(fn: Function, varied: set[int], plain: set[int]) -> list[int]:
    """ids of the values, not known to be arrays or numbers, that may be objects whose
    attributes are written with derivatives here: the object of an attribute write, and
    the receiver of a method called with a varied operand (`acc.add(x)`).  Such a value
    is made varied (a root) whether or not it was an active input, so that the calls it
    is passed to afterwards are differentiated.  (An object passed to a function as an
    argument is not: where that call ran without derivatives and the object was written,
    `check_underived_result` refuses; its attribute reads are differentiated anyway,
    object_reads.)"""
    out: set[int] = set()

    def add(value) -> None:
        made = value.defining_op
        if value.id not in plain and value.id not in varied and \
                (made is None or made.opcode not in ("const", "closure")):
            out.add(value.id)

    for op in fn.walk():
        writes = op.opcode == "call" and _is(op.attrs.get("fn"), _WRITES)
        if writes or op.opcode == "method" and any(v.id in varied for v in op.operands[1:]):
            add(op.operands[0])
    return sorted(out)


_RUNTIME_MODULES = ("zygote_py.runtime.writes", "zygote_py.runtime.built_objects",
                    "zygote_py.runtime.containers")


def _effectful_leaf(op: Op, varied, arrays, opaque) -> bool:
    code = op.opcode
    if code == "call":
        fn = op.attrs["fn"]
        if _is(fn, _WRITES):
            # always: its adjoint puts the old value back and closes the attribute's slot
            # (the reads after it are not the reads before it), whatever is active
            return True
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
        # an object from outside the call is released at the adjoint of its first write:
        # the derivatives of its values at call time go the way the object came
        if obj.id in builder.varied:
            held = builder.call(released_cotangent, builder.fetch(obj),
                                expr="_zp_released_cotangent", hint=(obj.hint or "obj") + "_bar")
            builder.maybe_none.add(held.id)
            builder.accumulate(obj, held)
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
