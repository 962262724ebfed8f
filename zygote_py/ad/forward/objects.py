"""Forward mode through attribute writes (docs/mutation.md, "Forward mode").

`obj.name = v` is lowered to `set_attribute(obj, 'name', v, loc)`
(frontend/lower_objects.py).  Its tangent cannot travel with an SSA value: every
later read of `obj.name`, through any name of the object, must see v's tangent.
So the transform turns the write into a call of calls/forward_objects.py's
`attribute_write`, which writes as reverse mode does and records v's tangent
under the object in the forward-mode call's book; attribute reads of values that
may be objects go through `attribute_read`, which finds it there (transform.py).

Over gradient code (zp.hessian), the backward's `take_attribute` (the cotangent
the reads after a write gathered, and the old value put back) and
`released_cotangent` (an object from outside let go) get the tangents of those
cotangents from the book's slots, which the reads' cotangent deposits fill
(calls/forward_dispatched.py hands a tracked object's deposit to the book).
Each call returns (value, tangent), unpacked here.
"""

from __future__ import annotations

from ...calls import forward_objects as fob
from ...ir.core import Op
from ...runtime import built_objects


def object_op(tr, op: Op) -> None:
    """Copy op, a call of set_attribute, object_set_attribute, take_attribute or
    released_cotangent, as the book's form that also gives its result's tangent."""
    fn = op.attrs["fn"]
    v, t_or_none = tr.v, tr.t_or_none
    if fn is built_objects.take_attribute:
        obj, name, old, new = op.operands
        operands = [v(obj), v(name), v(old), v(new), t_or_none(old)]
        helper = fob.take_attribute_jvp
    elif fn is built_objects.released_cotangent:
        operands = [v(op.operands[0])]
        helper = fob.released_cotangent_jvp
    else:  # obj.name = value
        obj, name, value, loc = op.operands
        operands = [v(obj), t_or_none(obj), v(name), v(value), t_or_none(value), v(loc),
                    tr.ir.const(fn)]
        helper = fob.attribute_write
    pair = tr.ir.call(helper, *operands, expr="_zp_" + helper.__name__)
    hint = op.result.hint
    unpack = tr.emit("unpack", [pair], 2, {"n": 2, "star": None},
                     hints=[hint, (hint + "_dot") if hint else ""])
    tr.vmap[op.result.id] = unpack.results[0]
    tr.set_tangent(op.result, unpack.results[1])
