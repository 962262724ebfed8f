"""codegen/emit.py: the write helpers that zero a cotangent's region in place when its
reference count says only the caller's variable holds it (runtime/writes.py:
overwritten_cotangent, undo_write_split; `_zp_counted_operands`) get that operand as a
local variable, or through `private_copy` where the generated code writes an expression
in its place.  An item of a list holds its array once, as a variable does: the count
cannot tell them apart, and the helper zeroed the list's array (shown below on the
helper itself)."""

import ast

import numpy as np
import pytest
from emitted_operands import emitted_call, global_read, item_of_a_list, variable

from zygote_py.ir.builder import IRBuilder
from zygote_py.ir.core import Block
from zygote_py.runtime import writes


def _emitted_call(helper, form):
    """The call the emitter writes for helper(g, 1, ...) where g is written in the form
    form(builder, dy) gives (emitted_operands.py)."""
    body = Block(["dy"])
    b = IRBuilder(body)
    dy = body.args[0]
    g, g_expr = form(b, dy)
    extra = [b.const(1)]
    if helper is writes.undo_write_split:
        extra += [dy, b.const(0.0), b.const(True)]
    call = b.call(helper, g, *extra)
    b.emit("return", [call], 0)
    return emitted_call(body, call.defining_op, g, g_expr)


def _passed_privately(call: ast.Call) -> bool:
    first = call.args[0]
    return isinstance(first, ast.Call) and ast.unparse(first.func) == "_zp_private_copy"


@pytest.mark.parametrize("helper", [writes.overwritten_cotangent, writes.undo_write_split],
                         ids=lambda f: f.__name__)
def test_only_a_local_variable_is_passed_as_it_is(helper):
    call = _emitted_call(helper, variable)
    assert isinstance(call.args[0], ast.Name) and not _passed_privately(call)
    for form in (item_of_a_list, global_read):
        call = _emitted_call(helper, form)
        assert _passed_privately(call), ast.unparse(call)


def test_a_list_item_passed_as_it_is_would_be_zeroed_and_a_private_copy_is_not():
    # the hazard: the count of an array a list holds, read where it is passed, equals a
    # variable's, and the helper writes into the list's array
    holder = [np.arange(1.0, 5.0)]
    rest = writes.overwritten_cotangent(holder[0], 1)
    assert rest is holder[0] and holder[0][1] == 0.0
    # what the generated code passes instead
    holder = [np.arange(1.0, 5.0)]
    rest = writes.overwritten_cotangent(writes.private_copy(holder[0]), 1)
    np.testing.assert_array_equal(holder[0], [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(rest, [1.0, 0.0, 3.0, 4.0])
    holder = [np.arange(1.0, 5.0)]
    part, rest = writes.undo_write_split(writes.private_copy(holder[0]), 2, np.zeros(4), 7.0, True)
    np.testing.assert_array_equal(holder[0], [1.0, 2.0, 3.0, 4.0])
    assert part == 3.0
    np.testing.assert_array_equal(rest, [1.0, 2.0, 0.0, 4.0])


def test_private_copy_leaves_what_is_not_an_array():
    for g in (None, [1.0, None], {"a": 1.0}, 2.5):
        assert writes.private_copy(g) is g
