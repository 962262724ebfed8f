"""The verifier catches broken IR, and every lowered corpus-like function passes it."""

import pytest
from golden import cases

from zygote_py.compiler import COMPILER
from zygote_py.ir.core import Block, Function, Op
from zygote_py.ir.printer import format_function
from zygote_py.ir.verify import VerifyError, verify, verify_ops


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


# -- checks against the OpDefs ---------------------------------------------------------

def _function(*ops, params=0):
    """A function whose body holds ops and returns the last op's first result."""
    body = Block([f"p{i}" for i in range(params)])
    for op in ops:
        body.append(op)
    body.append(Op("return", [ops[-1].result if ops else body.args[0]], 0))
    return Function("f", list(body.args), body)


def _const(value):
    return Op("const", (), 1, {"value": value})


def test_a_well_formed_hand_built_function_verifies():
    a, b = _const(1.0), _const(2.0)
    add = Op("call", [a.result, b.result], 1, {"fn": float.__add__, "expr": "add", "kw": (), "star": ()})
    verify(_function(a, b, add))


def test_unknown_opcode_is_caught():
    with pytest.raises(VerifyError, match="unknown opcode"):
        verify(_function(Op("frobnicate", (), 1)))


def test_missing_required_attr_is_caught():
    with pytest.raises(VerifyError, match="missing attr 'value'"):
        verify(_function(Op("const", (), 1, {})))


def test_undeclared_attr_is_caught():
    with pytest.raises(VerifyError, match="not declared"):
        verify(_function(Op("const", (), 1, {"value": 1, "vaule": 2})))


@pytest.mark.parametrize("opcode, attrs", [
    ("global", {"name": 3}),
    ("call", {"fn": 3}),
    ("call", {"fn": abs, "kw": ["x"]}),
    ("unpack", {"n": "2"}),
])
def test_badly_typed_attr_is_caught(opcode, attrs):
    source = [_const((1, 2))] if opcode == "unpack" else []
    op = Op(opcode, [s.result for s in source], 1, attrs)
    with pytest.raises(VerifyError, match="should be"):
        verify(_function(*source, op))


def test_wrong_operand_count_is_caught():
    x = _const(1.0)
    op = Op("getattr", [x.result, x.result], 1, {"name": "real"})
    with pytest.raises(VerifyError, match="operands"):
        verify(_function(x, op))


def test_wrong_result_count_is_caught():
    pair = _const((1.0, 2.0))
    op = Op("unpack", [pair.result], 3, {"n": 2, "star": None})
    with pytest.raises(VerifyError, match="3 results, expected 2"):
        verify(_function(pair, op))


def _branch(then_yields, else_yields, nresults):
    cond = _const(True)
    regions = []
    for values in (then_yields, else_yields):
        block = Block()
        block.append(Op("yield", values, 0))
        regions.append(block)
    return cond, Op("if", [cond.result], nresults, regions=regions)


def test_branch_yielding_the_wrong_number_of_values_is_caught():
    one = _const(1.0)
    cond, op = _branch([one.result], [], 1)
    with pytest.raises(VerifyError, match="else region"):
        verify(_function(one, cond, op))


def test_branch_with_one_region_is_caught():
    one = _const(1.0)
    cond, op = _branch([one.result], [one.result], 1)
    op.regions.pop()
    with pytest.raises(VerifyError, match="1 regions, expected 2"):
        verify(_function(one, cond, op))


def test_for_body_with_missing_carried_argument_is_caught():
    ir = COMPILER.fresh_ir(cases.scalar_loop)
    loop = next(op for op in ir.walk() if op.opcode == "for")
    loop.regions[0].args.pop()
    with pytest.raises(VerifyError, match="body region's arguments"):
        verify(ir)


def test_for_with_an_unknown_kind_is_caught():
    ir = COMPILER.fresh_ir(cases.scalar_loop)
    loop = next(op for op in ir.walk() if op.opcode == "for")
    loop.attrs["kind"] = "loop"
    with pytest.raises(VerifyError, match="kind"):
        verify(ir)


def test_while_cond_must_yield_one_flag():
    ir = COMPILER.fresh_ir(cases.while_loop)
    loop = next(op for op in ir.walk() if op.opcode == "while")
    term = loop.regions[0].ops[-1]
    term.operands.append(term.operands[0])
    with pytest.raises(VerifyError, match="cond region"):
        verify(ir)


def test_result_with_a_foreign_owner_is_caught():
    a, b = _const(1.0), _const(2.0)
    b.results = [a.result]
    with pytest.raises(VerifyError, match="another owner"):
        verify(_function(a, b))


def test_verify_ops_checks_a_block_that_is_not_a_function():
    # the compiler runs it on every backward block in the tests; here, by hand
    block = Block()
    tape = Op("tape_new", (), 1)
    block.append(tape)
    block.append(Op("tape_pop", [tape.result], 2))
    verify_ops(block)  # a pop may restore any number of values
    block.append(Op("tape_push", [], 0))
    with pytest.raises(VerifyError, match="tape_push"):
        verify_ops(block)
