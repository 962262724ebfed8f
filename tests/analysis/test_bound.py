"""may_be_unbound: the variables some path leaves unassigned, found from the IR."""

from __future__ import annotations

from zygote_py.analysis.bound import may_be_unbound
from zygote_py.frontend.lower import lower_function
from zygote_py.ir.ops import loop_layout


def bound_in_else_only(x):
    for i in range(3):
        if i == 1:
            return x * y  # noqa: F821 -- bound by an earlier trip
        else:
            y = x * 2
    return y


def bound_before_loop(x):
    y = 0.0
    for i in range(3):
        if i == 1:
            return x * y
        else:
            y = x * 2
    return y


def _carried(fn):
    ir = lower_function(fn)
    loop = next(op for op in ir.walk() if op.opcode == "for")
    return {v.hint: v for v in loop_layout(loop).carried}


def test_variable_bound_only_in_a_branch_may_be_unbound_in_the_loop():
    assert may_be_unbound(_carried(bound_in_else_only)["y"])


def test_variable_bound_before_the_loop_is_always_bound():
    carried = _carried(bound_before_loop)
    assert not may_be_unbound(carried["y"])
    assert not any(may_be_unbound(v) for v in lower_function(bound_before_loop).params)
