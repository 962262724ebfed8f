"""The verifier catches broken IR, and every lowered corpus-like function passes it."""

import pytest
from golden import cases

from zygote_py.compiler import COMPILER
from zygote_py.ir.core import Op
from zygote_py.ir.printer import format_function
from zygote_py.ir.verify import VerifyError, verify


@pytest.mark.parametrize("func", [f for f, _ in cases.CASES], ids=lambda f: f.__name__)
def test_lowered_and_simplified_ir_verifies(func):
    ir = COMPILER.fresh_ir(func)
    verify(ir)
    assert format_function(ir).startswith(f"func {func.__name__}")


def test_use_before_definition_is_caught():
    ir = COMPILER.fresh_ir(cases.arithmetic)
    body = ir.body
    late = body.ops[-2]
    body.ops.remove(late)
    body.insert(0, late)
    with pytest.raises(VerifyError):
        verify(ir)


def test_missing_terminator_is_caught():
    ir = COMPILER.fresh_ir(cases.arithmetic)
    ir.body.ops.pop()
    with pytest.raises(VerifyError):
        verify(ir)


def test_double_definition_is_caught():
    ir = COMPILER.fresh_ir(cases.arithmetic)
    op = ir.body.ops[0]
    clone = Op(op.opcode, op.operands, 0, op.attrs)
    clone.results = list(op.results)
    ir.body.insert(1, clone)
    with pytest.raises(VerifyError):
        verify(ir)
