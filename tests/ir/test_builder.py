"""IRBuilder: insertion point and location; replace_op swaps an op in place,
keeping its result values (and so every use)."""

import operator

import pytest

from zygote_py.errors import SourceLoc
from zygote_py.ir.builder import IRBuilder, replace_op
from zygote_py.ir.core import Block, Function
from zygote_py.ir.verify import verify

LOC = SourceLoc("model.py", 12, 4)
OTHER = SourceLoc("model.py", 30, 0)


def test_emit_appends_with_the_current_location():
    block = Block()
    b = IRBuilder(block, loc=LOC)
    two = b.const(2.0)
    total = b.call(operator.mul, two, two, hint="y")
    assert [op.opcode for op in block.ops] == ["const", "call"]
    assert all(op.loc is LOC and op.block is block for op in block.ops)
    assert total.hint == "y" and total.owner.attrs == {"fn": operator.mul, "expr": "mul", "kw": (),
                                                       "star": ()}
    assert b.emit("tuple", [two], loc=None).loc is None  # an explicit location wins


def test_insertion_point_moves_past_each_insert():
    block = Block()
    b = IRBuilder(block)
    last = b.const(3.0)
    with b.at(block, 0):
        first = b.const(1.0)
        second = b.const(2.0)
    assert [op.result for op in block.ops] == [first, second, last]
    assert b.block is block and b.index is None  # restored
    b.const(4.0)
    assert block.ops[-1].attrs["value"] == 4.0


def test_at_and_at_loc_restore_on_errors():
    outer, inner = Block(), Block()
    b = IRBuilder(outer, loc=LOC)
    with pytest.raises(RuntimeError), b.at(inner), b.at_loc(OTHER):
        b.const(1.0)
        raise RuntimeError
    assert b.block is outer and b.loc is LOC
    assert inner.ops[0].loc is OTHER


def test_replace_op_keeps_results_and_uses():
    body = Block(["x"])
    b = IRBuilder(body, loc=LOC)
    x = body.args[0]
    doubled = b.call(operator.add, x, x, hint="d")
    old = doubled.owner
    b.emit("return", [doubled], 0)
    new = replace_op(old, "call", [x, b.const(2.0)], {"fn": operator.mul, "expr": "mul"})
    # const was appended after the return: move it before the replaced op
    const = body.ops.pop()
    body.insert(0, const)
    ret = body.ops[-1]
    fn = Function("f", [x], body)
    verify(fn)
    assert ret.operands[0] is doubled and doubled.owner is new and doubled.hint == "d"
    assert new.loc is LOC and new.block is body and body.ops.count(new) == 1
    assert old.block is None and old.results == [] and old not in body.ops


def test_replace_op_refuses_nothing_but_keeps_arity():
    block = Block()
    b = IRBuilder(block)
    pair = b.emit("unpack", [b.const((1, 2))], 2, {"n": 2, "star": None})
    results = list(pair.results)
    new = replace_op(pair, "unpack", pair.operands, {"n": 2, "star": None})
    assert new.results == results and all(r.owner is new for r in results)
