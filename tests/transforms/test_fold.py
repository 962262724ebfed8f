"""Constant folding and forwarding: each op it folds becomes a new const op that
keeps the old result values; nothing is recycled by changing its opcode."""

import operator

import numpy as np
import pytest
from irtools import central_difference, count, lowered

import zygote_py as zp
from zygote_py.ir.verify import verify
from zygote_py.transforms.fold import fold_pass


def constant_sum(x):
    return x * (2.0 + 3.0)


def constant_branch(x):
    if 1 > 0:  # noqa: PLR0133 - a constant condition on purpose
        y = x * 2.0
    else:
        y = x * 3.0
    return y


def unpacked_literal(x):
    a, b = x, 2.0 * x
    return a * b


def indexed_literal(x):
    t = (x, 3.0)
    return t[0] * t[1]


def constant_tuple_index(x):
    k = (1.5, 2.5)[1]
    return x * k


def test_a_folded_call_is_a_new_const_op_that_keeps_its_result_value():
    ir = lowered(constant_sum)
    add = next(op for op in ir.walk() if op.opcode == "call" and op.attrs["fn"] is operator.add)
    result = add.result
    assert fold_pass(ir)
    verify(ir)
    assert result.owner is not add and result.owner.opcode == "const"
    assert result.owner.attrs == {"value": 5.0}
    assert add.opcode == "call" and add.block is None  # the old op is detached, not recycled


def test_no_op_changes_its_opcode():
    for fn in (constant_sum, constant_branch, unpacked_literal, indexed_literal, constant_tuple_index):
        ir = lowered(fn)
        before = [(op, op.opcode) for op in ir.walk()]
        fold_pass(ir)
        verify(ir)
        assert [(op, code) for op, code in before if op.opcode != code] == []


def test_a_constant_condition_keeps_one_branch():
    ir = lowered(constant_branch)
    assert count(ir, "if") == 1
    fold_pass(ir)
    verify(ir)
    assert count(ir, "if") == 0
    muls = [op for op in ir.walk() if op.opcode == "call" and op.attrs["fn"] is operator.mul]
    assert [op.operands[1].owner.attrs["value"] for op in muls] == [2.0]


def test_unpacking_a_tuple_literal_forwards_its_elements():
    ir = lowered(unpacked_literal)
    assert count(ir, "unpack") == 1
    fold_pass(ir)
    verify(ir)
    assert count(ir, "unpack") == 0
    ret = ir.body.ops[-1].operands[0].defining_op
    assert ret.operands[0] is ir.params[0]  # a is x itself


def test_indexing_a_tuple_literal_forwards_the_element():
    ir = lowered(indexed_literal)
    fold_pass(ir)
    verify(ir)
    assert count(ir, "call", operator.getitem) == 0
    ret = ir.body.ops[-1].operands[0].defining_op
    assert ret.operands[0] is ir.params[0]
    assert ret.operands[1].defining_op.attrs["value"] == 3.0


def test_indexing_a_constant_tuple_folds():
    ir = lowered(constant_tuple_index)
    fold_pass(ir)
    verify(ir)
    assert count(ir, "call", operator.getitem) == 0
    ret = ir.body.ops[-1].operands[0].defining_op
    assert ret.operands[1].defining_op.attrs["value"] == 2.5


def test_a_call_that_raises_is_left_for_run_time():
    def divides_by_zero(x):
        return x + 1 / 0

    ir = lowered(divides_by_zero)
    fold_pass(ir)
    verify(ir)
    assert count(ir, "call", operator.truediv) == 1


def test_a_second_fold_finds_nothing_to_do():
    ir = lowered(constant_branch)
    assert fold_pass(ir)
    while fold_pass(ir):
        pass
    assert not fold_pass(ir)


@pytest.mark.parametrize("fn", [constant_sum, constant_branch, unpacked_literal, indexed_literal,
                                constant_tuple_index], ids=lambda f: f.__name__)
def test_gradients_of_folded_functions_match_finite_differences(fn):
    for x in (0.7, -1.3):
        (g,) = zp.gradient(fn, x)
        assert g == pytest.approx(float(central_difference(fn, np.float64(x))), rel=1e-7, abs=1e-9)
