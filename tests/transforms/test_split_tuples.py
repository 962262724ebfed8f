"""A branch result read only as r[0], r[1], ... is split into one result per element."""

import operator

import numpy as np
import pytest
from irtools import central_difference, count, lowered

import zygote_py as zp
from zygote_py.ir.verify import verify
from zygote_py.transforms.dce import dce
from zygote_py.transforms.split_tuples import split_tuples_pass


def first_of_pair(x, flag):
    if flag:
        t = (x * 2.0, np.exp(x))
    else:
        t = (x, x)
    return t[0] + 1.0


def both_of_pair(x, flag):
    if flag:
        t = (np.sin(x), x * 3.0)
    else:
        t = (x, x * x)
    return t[0] * t[1]


def test_the_unused_element_becomes_dead():
    ir = lowered(first_of_pair)
    assert count(ir, "call", np.exp) == 1
    branch = next(op for op in ir.walk() if op.opcode == "if")
    assert split_tuples_pass(ir)
    verify(ir)
    assert count(ir, "call", operator.getitem) == 0
    assert len(branch.results) == 2  # the tuple and its element 0
    dce(ir)
    verify(ir)
    assert count(ir, "call", np.exp) == 0
    assert len(branch.results) == 1


def test_each_read_element_gets_its_own_result():
    ir = lowered(both_of_pair)
    branch = next(op for op in ir.walk() if op.opcode == "if")
    split_tuples_pass(ir)
    verify(ir)
    then_yield, else_yield = (r.ops[-1].operands for r in branch.regions)
    sin = next(op for op in ir.walk() if op.opcode == "call" and op.attrs["fn"] is np.sin)
    assert then_yield[1] is sin.result
    assert else_yield[1] is ir.params[0]


def test_a_result_read_otherwise_is_not_split():
    def whole(x, flag):
        if flag:
            t = (x, 2.0 * x)
        else:
            t = (x, x)
        return sum(t)

    ir = lowered(whole)
    assert not split_tuples_pass(ir)


@pytest.mark.parametrize("fn", [first_of_pair, both_of_pair], ids=lambda f: f.__name__)
@pytest.mark.parametrize("flag", [True, False])
def test_gradients_match_finite_differences(fn, flag):
    for x in (0.3, -0.8):
        g = zp.gradient(fn, x, flag)[0]
        expected = central_difference(lambda v: fn(v, flag), np.float64(x))
        assert g == pytest.approx(float(expected), rel=1e-7)
