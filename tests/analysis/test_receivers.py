"""Receiver facts (analysis/receivers.py): which values are certainly arrays or
numbers, so that `x.sum()` and `x.T` may use the ndarray rules; other receivers
are resolved from their type while running."""

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.analysis.receivers import array_values
from zygote_py.compiler import COMPILER
from zygote_py.kinds import scalar_kinds


class Box:
    def __init__(self, w):
        self.w = w

    def sum(self):
        return np.sum(self.w) * 5.0


def reads(x, obj):
    a = x.T
    b = obj.w
    c = np.tanh(x) + 1.0
    d = c[0]
    for i in range(3):
        a = a * 2.0
    return a, b, c, d


def test_kinds_say_scalar_array_or_other_object():
    args = (1.0, 2, np.float64(3.0), np.ones(2), np.int64(4), 1j, Box(1.0), [1.0], "s")
    assert scalar_kinds(args) == (True, True, True, False, False, False, None, None, None)


def test_array_values_follow_parameters_numpy_calls_indexing_and_loops():
    ir = COMPILER.fresh_ir(reads)
    known = array_values(ir, (False, None))
    x, obj = ir.params
    assert x.id in known and obj.id not in known
    loop = next(op for op in ir.body.ops if op.opcode == "for")
    assert loop.results[0].id in known  # a = a * 2.0 keeps an array an array
    getattrs = {op.attrs["name"]: op.result for op in ir.body.ops if op.opcode == "getattr"}
    assert getattrs["T"].id in known and getattrs["w"].id not in known
    items = [op.result for op in ir.body.ops
             if op.opcode == "call" and op.attrs["fn"].__name__ == "getitem"]
    assert items and all(v.id in known for v in items)


def test_without_kinds_parameters_are_taken_to_be_arrays():
    ir = COMPILER.fresh_ir(reads)
    known = array_values(ir)
    assert all(p.id in known for p in ir.params)


def sum_method(v):
    return v.sum() * 2.0


@pytest.mark.parametrize("arg,dynamic",
                         [(np.array([1.0, 2.0]), False), (Box(np.array([1.0, 2.0])), True)],
                         ids=["array", "object"])
def test_rule_spliced_for_arrays_dispatched_for_objects(arg, dynamic):
    source = zp.grad_source(sum_method, args=(arg,))
    assert ("_zp_call_method" in source) is dynamic
    (got,) = zp.gradient(sum_method, arg)
    if dynamic:
        np.testing.assert_allclose(got["w"], [10.0, 10.0])
    else:
        np.testing.assert_allclose(got, [2.0, 2.0])
