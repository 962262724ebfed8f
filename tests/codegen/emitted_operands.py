"""What the emitter writes for a helper call whose operand is a local variable, an item of
a list (a pending expression in the operand's place) or a module global: the forms whose
reference counts a helper may read (test_fuse.py, test_counted_operands.py).

Each form is `form(builder, dy) -> (value, expression or None)`: the IR value passed, and
the pending expression the emitter writes for it (None: the value's own name)."""

import ast
import operator

import numpy as np

from zygote_py.codegen.emit import Emitter
from zygote_py.codegen.exprs import Binder
from zygote_py.codegen.naming import Liveness, Names


def variable(b, dy):
    return b.call(np.negative, dy), None


def item_of_a_list(b, dy):
    holder = b.emit("list", [dy], 1).result
    value = b.call(operator.getitem, holder, b.const(0))
    return value, ast.Subscript(ast.Name("holder", ast.Load()), ast.Constant(0), ast.Load())


def global_read(b, dy):
    return b.emit("global", [], 1, {"name": "shared"}).result, None


def fresh_expression(b, dy):  # (sound, but not told from `np.asarray(v)`: a copy too)
    return b.call(np.negative, dy), ast.UnaryOp(ast.USub(), ast.Name("dy", ast.Load()))


def emitted_call(body, call_op, value, expression) -> ast.expr:
    """The expression the emitter writes for call_op, in the function whose body is body,
    where value is written as expression (a pending expression; None: its own name)."""
    emitter = Emitter(Names(Liveness([body], []), set()), Binder({}, {}), {}, annotate=False)
    if expression is not None:
        emitter.pending[value.id] = expression
        emitter._pending_values[value.id] = value
    return emitter.build_expr(call_op)
