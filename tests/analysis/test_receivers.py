"""Receiver facts (analysis/receivers.py): which values are certainly arrays or
numbers, so that `x.sum()` and `x.T` may use the ndarray rules; other receivers
are resolved from their type while running."""

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.analysis.receivers import array_values, assumed_array_params
from zygote_py.compiler import COMPILER
from zygote_py.kinds import COMPLEX, HOLDS_COMPLEX, scalar_kinds


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
    args = (1.0, 2, np.float64(3.0), np.ones(2), np.int64(4), 1j, Box(1.0), [1.0], "s",
            np.ones(2, complex), [1j], Box(2j))
    assert scalar_kinds(args) == (True, True, True, False, False, COMPLEX, None, None, None,
                                  COMPLEX, HOLDS_COMPLEX, HOLDS_COMPLEX)


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


def star_params(x, *rest, **options):
    return x.sum() + rest[0].sum() + options["k"].sum()


def test_star_and_double_star_parameters_are_never_taken_to_be_arrays():
    ir = COMPILER.fresh_ir(star_params)
    x, rest, options = ir.params
    for kinds in ((), (False, False, False)):
        known = array_values(ir, kinds)
        assert x.id in known and rest.id not in known and options.id not in known
    items = [op.result for op in ir.walk() if op.opcode == "call" and op.operands
             and op.operands[0].id in (rest.id, options.id)]
    assert items and not any(v.id in array_values(ir) for v in items)


def star_item_sum(x, *rest):
    return np.sum(x * x) + rest[0].sum()


def test_an_object_among_star_args_gets_its_own_method():
    x, box = np.array([1.0, 2.0]), Box(np.array([3.0, -1.0]))
    source = zp.grad_source(star_item_sum, args=(x, np.ones(2), box))
    assert "_zp_call_method" in source  # rest[0].sum() resolved while running

    def caller(x, box):
        return star_item_sum(x, box, np.ones(2))

    x_bar, box_bar = zp.gradient(caller, x, box)
    np.testing.assert_allclose(x_bar, 2 * x, rtol=1e-12)
    np.testing.assert_allclose(box_bar["w"], [5.0, 5.0], rtol=1e-12)  # Box.sum: 5 * sum(w)


def _helper_mean(p):
    return p.mean()


def receivers_and_helpers(x, p, q, r):
    a = np.sum(x * q)          # x and q only reach NumPy functions
    b = p.T                    # p's attribute: the ndarray rule if p is an array
    c = _helper_mean(r * 2.0)  # r reaches a Python function through a product
    return a + np.sum(b) + c


def test_assumed_array_params_are_those_a_decision_depends_on():
    ir = COMPILER.fresh_ir(receivers_and_helpers)
    assert assumed_array_params(ir) == [1, 3]


def test_no_parameter_is_assumed_where_nothing_depends_on_it():
    ir = COMPILER.fresh_ir(star_item_sum)
    assert assumed_array_params(ir) == []  # rest is a tuple, never taken to be an array
    ir = COMPILER.fresh_ir(_helper_mean)
    assert assumed_array_params(ir) == [0]
