"""Source text of a forward-mode function (made by ad/forward/transform.py).

The same emitter, naming and compilation as the reverse forms (generate.py):
one function `def f_jvp(x, ..., x_dot, ...)` computing each value and, beside
it, its tangent (`y_dot`), returning `(y, y_dot)`.  Every parameter is
positional (a `*args` parameter is passed as its tuple, `**kwargs` as its
dict), since only the forward dispatcher and zp.jvp call it.
"""

from __future__ import annotations

import ast
import builtins

from ..ir.core import Function
from .emit import Emitter
from .exprs import Binder
from .generate import Generated, _count_uses
from .naming import Liveness, Names, coalesce
from .unparse import unparse


def generate_forward(fn: Function, pyfn, name: str) -> Generated:
    code = pyfn.__code__
    cells = dict(zip(code.co_freevars, pyfn.__closure__ or ()))
    binder = Binder(pyfn.__globals__, cells)
    blocks = [fn.body]
    primal_names = list(fn.signature.names)
    params = fn.params
    param_names = primal_names + [None] * (len(params) - len(primal_names))
    reserved = set(code.co_freevars) | set(code.co_names) | set(dir(builtins))
    reserved -= set(primal_names)
    for op in fn.walk():
        if op.opcode in ("global", "cell"):
            reserved.add(op.attrs["name"])
        expr = op.attrs.get("expr") if op.opcode in ("const", "call") else None
        if isinstance(expr, str):
            reserved.add(expr.split(".")[0])
    reserved |= {"np", "math"}
    liveness = Liveness(blocks, params)
    names = Names(liveness, reserved - set(primal_names))
    for param, pname in zip(params, param_names):
        if pname is None:  # a tangent parameter: the primal's name + _dot
            pname = names.fresh(param.hint or "x_dot")
        names.assigned[names._ensure(param)] = pname
        names.taken.add(pname)
    coalesce(names, blocks, lambda v: v.defining_op is None or
             v.defining_op.opcode not in ("const", "undef"))
    uses, where = _count_uses(blocks)
    emitter = Emitter(names, binder, uses, annotate=True)
    user_variables = set(code.co_varnames) - set(primal_names)
    emitter.named = user_variables | {n + "_dot" for n in user_variables}
    emitter.single_use_here = {vid: blk for vid, blk in where.items() if uses.get(vid) == 1}
    for root, members in names.members.items():
        if len(members) > 1:
            emitter.grouped.update(m.id for m in members)
    header = ", ".join(names.name(p) for p in params)
    emitter.line(f"def {name}({header}):")
    emitter.indent = 1
    emitter.block(fn.body, lambda op: emitter.line(f"return {unparse(emitter.expr(op.operands[0]))}"))
    text = "\n".join(emitter.lines) + "\n"
    return Generated(name, text, binder)
