"""codegen/fuse.py: a read's scattered cotangent added to the cotangent gathered so far
(`accum(acc, _index_cotangent(g, a, index))`) is written as one helper,
`_add_index_cotangent`, in gradients that run; gradients compiled to be differentiated
again (zp.hessian) keep the pair.  The helper adds in place only into an array that
nothing else holds and that the code never reads again.  Every gradient is checked
against central differences."""

import operator
import types

import numpy as np
import pytest
from emitted_operands import emitted_call, fresh_expression, global_read, item_of_a_list, variable

import zygote_py as zp
from zygote_py.aot.module import standalone_module
from zygote_py.codegen.fuse import fuse_adjoint_helpers
from zygote_py.ir.builder import IRBuilder
from zygote_py.ir.core import Block
from zygote_py.rules.indexing import _add_index_cotangent, _index_cotangent
from zygote_py.runtime import ArrayShape, accum


def central_differences(f, x, h=1e-6):
    x = np.array(x, dtype=float)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        out[i] = (f(up) - f(down)) / (2 * h)
    return out


def gates(z):
    # an LSTM's four gate slices of one pre-activation
    n = z.shape[1] // 4
    i = np.tanh(z[:, :n])
    f = np.tanh(z[:, n:2 * n])
    o = np.sin(z[:, 2 * n:3 * n])
    g = np.cos(z[:, 3 * n:])
    return np.sum(f * i + o * g * g)


def stencil(u):
    for _ in range(3):
        u = u[1:-1] + 0.3 * (u[2:] - 2 * u[1:-1] + u[:-2])
        u = np.concatenate([u[:1], u, u[-1:]])
    return np.sum(u ** 2)


def elements_and_rows(x):
    # single elements (a number added into one entry), a row, None and Ellipsis
    return x[0, 1] * x[1, 2] + np.sum(x[1] ** 2) + np.sum(x[None, ..., 0] * x[:, 1])


def repeated_integer_index(x):
    # an integer-array index with a repeat, then a slice: the general path must add up
    return np.sum(x[[0, 0, 2]] ** 2) + np.sum(np.sin(x[1:]))


CASES = [
    (gates, (3, 8)),
    (stencil, (9,)),
    (elements_and_rows, (3, 4)),
    (repeated_integer_index, (4,)),
]


@pytest.mark.parametrize("f, shape", CASES, ids=[f.__name__ for f, _ in CASES])
def test_gradients_through_fused_index_accumulation(f, shape):
    x = np.random.default_rng(1).standard_normal(shape)
    (grad,) = zp.gradient(f, x)
    np.testing.assert_allclose(grad, central_differences(f, x), rtol=1e-6, atol=1e-8)


def test_the_gate_slices_are_added_by_the_fused_helper():
    text = zp.grad_source(gates, args=(np.ones((2, 8)),))
    assert text.count("_zp_add_index_cotangent(") == 3
    assert text.count(", True)") == 3  # each partial sum is read by the next call alone
    assert text.count("index_cotangent(") == 4  # the first slice starts the sum


def test_a_hessian_differentiates_the_unfused_code():
    x = np.random.default_rng(2).standard_normal(8) * 0.5

    def f(z):
        return np.sum(np.tanh(z[:4]) * np.sin(z[4:])) + np.sum(z[1:] * z[:-1])

    hess = zp.hessian(f, x)
    columns = [central_differences(lambda v, i=i: zp.gradient(f, v)[0][i], x, h=1e-5) for i in range(8)]
    np.testing.assert_allclose(hess, np.stack(columns), rtol=1e-5, atol=1e-6)


def test_a_standalone_module_carries_the_fused_helper():
    text = standalone_module(gates, mode="grad")
    assert "add_index_cotangent" in text
    module = types.ModuleType("gates_grad")
    exec(compile(text, "<gates_grad>", "exec"), module.__dict__)  # noqa: S102 -- the module under test
    x = np.random.default_rng(3).standard_normal((2, 8))
    (grad,) = module.grad_gates(x)
    np.testing.assert_allclose(grad, zp.gradient(gates, x)[0], rtol=1e-15, atol=0)


HELPER_CASES = [
    # (acc, g, a, index): fast path (float64, basic index) and every general one
    (np.arange(6.0), np.array([1.0, 2.0]), np.zeros(6), slice(1, 3)),
    (np.arange(6.0).reshape(2, 3), 0.5, ArrayShape((2, 3), np.dtype(np.float64)), (1, 2)),
    (np.arange(6.0).reshape(2, 3), np.ones((1, 3)), np.zeros((2, 3)), (None, 0, Ellipsis)),
    (np.arange(6.0), np.array([1.0, 2.0, 3.0]), np.zeros(6), np.array([1, 1, 4])),  # repeats add
    (np.arange(6.0), np.array([1.0, 2.0]), np.zeros(6), np.arange(6) < 2),  # a mask
    (np.arange(6.0, dtype=np.float32), np.array([1.0, 2.0]), np.zeros(6, np.float32), slice(0, 2)),
    (np.arange(6.0), np.array([1.0 + 2j, 2.0]), np.zeros(6), slice(0, 2)),  # real part only
    (None, np.array([1.0, 2.0]), np.zeros(6), slice(0, 2)),
    (np.ones((2, 3)), np.array([1.0, 2.0]), np.zeros(3), slice(0, 2)),  # acc broadcast: general
    (np.arange(6.0), np.array([[1.0, 2.0]]), np.zeros(6), slice(0, 2)),  # g with a leading 1
]


@pytest.mark.parametrize("acc, g, a, index", HELPER_CASES)
def test_the_helper_is_the_pair_it_replaces_and_never_writes_its_accumulator(acc, g, a, index):
    before = None if acc is None else acc.copy()
    expected = accum(acc, _index_cotangent(g, a, index))
    got = _add_index_cotangent(acc, g, a, index)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)
    if acc is not None:
        np.testing.assert_array_equal(acc, before)
        assert got is not acc


def plus_reversed(x):
    return x + x[::-1]


def test_the_callers_cotangent_is_never_written():
    # the partial sum the fused call starts from is the caller's dy itself (and so is the
    # cotangent it adds): it must be added into a copy
    assert ", True)" in zp.grad_source(plus_reversed, mode="pullback", args=(np.arange(4.0),))
    y, back = zp.pullback(plus_reversed, np.arange(4.0))
    dy = np.array([1.0, 2.0, 3.0, 5.0])
    kept = dy.copy()
    (first,) = back(dy)
    (second,) = back(dy)
    np.testing.assert_array_equal(dy, kept)
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(first, [6.0, 5.0, 5.0, 6.0])


def carried_through_a_loop(x):
    s = 0.0
    for i in range(3):
        s = s + np.sum(np.sin(x[i:i + 3]) * x[i + 1:i + 4])
    return s


def test_an_accumulator_carried_around_a_loop():
    x = np.random.default_rng(4).standard_normal(7)
    (grad,) = zp.gradient(carried_through_a_loop, x)
    np.testing.assert_allclose(grad, central_differences(carried_through_a_loop, x), rtol=1e-6, atol=1e-8)


def test_in_place_only_into_an_array_nothing_else_holds():
    a = np.zeros(4)
    acc = np.ones(4)
    out = _add_index_cotangent(acc, np.array([1.0, 2.0]), a, slice(0, 2), True)
    assert out is acc  # held by this variable alone
    np.testing.assert_array_equal(acc, [2.0, 3.0, 1.0, 1.0])
    for holder in ("variable", "view", "list"):
        acc = np.ones(4)
        other = acc if holder == "variable" else acc[1:] if holder == "view" else [acc]
        out = _add_index_cotangent(acc, np.array([1.0, 2.0]), a, slice(0, 2), True)
        assert out is not acc and other is not None, holder
        np.testing.assert_array_equal(acc, 1.0)
        np.testing.assert_array_equal(out, [2.0, 3.0, 1.0, 1.0])
    acc = np.ones(4)
    assert _add_index_cotangent(acc, 1.0, a, 3, False) is not acc  # the code reads acc again
    view = np.ones(6)[:4]  # memory of another array
    assert _add_index_cotangent(view, 1.0, a, 3, True) is not view
    np.testing.assert_array_equal(view, 1.0)


# -- where the code reads the partial sum again (codegen/fuse.py `_is_last_read`) ----------


def _fused_flags(build):
    """Build a backward block with `build(b, body)`, fuse it; the last_read flags written."""
    body = Block(["dy"])
    build(IRBuilder(body), body)
    fuse_adjoint_helpers(body)
    flags = []
    for op in body.walk():
        if op.opcode == "call" and op.attrs["fn"] is _add_index_cotangent:
            flags.append(op.operands[-1].owner.attrs["value"])
    return flags


def _pair(b, acc, g):
    index = b.const(slice(1, 3))
    return b.call(accum, acc, b.call(_index_cotangent, g, g, index))


def test_a_partial_sum_read_after_the_call_is_not_written():
    def build(b, body):
        acc = b.call(np.negative, body.args[0])
        total = _pair(b, acc, body.args[0])
        b.emit("return", [b.call(operator.add, acc, total)], 0)  # acc read again

    assert _fused_flags(build) == [False]


def test_a_partial_sum_read_only_by_the_call_is_written():
    def build(b, body):
        acc = b.call(np.negative, body.args[0])
        b.emit("return", [_pair(b, acc, body.args[0])], 0)

    assert _fused_flags(build) == [True]


def test_the_other_branch_of_an_if_may_read_it_but_not_a_later_op():
    def build(b, body, read_after):
        dy = body.args[0]
        acc = b.call(np.negative, dy)
        then, other = Block(), Block()
        IRBuilder(then).emit("yield", [_pair(IRBuilder(then), acc, dy)], 0)
        IRBuilder(other).emit("yield", [acc], 0)
        merged = b.emit("if", [b.const(True)], 1, regions=[then, other]).result
        b.emit("return", [b.call(operator.add, merged, acc) if read_after else merged], 0)

    assert _fused_flags(lambda b, body: build(b, body, False)) == [True]
    assert _fused_flags(lambda b, body: build(b, body, True)) == [False]


def test_a_partial_sum_from_before_a_loop_is_read_again_by_the_next_iteration():
    def build(b, body):
        dy = body.args[0]
        acc = b.call(np.negative, dy)
        loop_body = Block(["i"])
        inner = IRBuilder(loop_body)
        inner.call(np.sum, _pair(inner, acc, dy))
        inner.emit("yield", [], 0)
        b.emit("for", [b.const(range(2))], 0, {"kind": "range", "exit": None, "ntargets": 1},
               regions=[loop_body])
        b.emit("return", [dy], 0)  # nothing reads acc after the loop: the loop alone forbids

    assert _fused_flags(build) == [False]


# -- the flag as written: only for an accumulator written as a variable (codegen/emit.py) ---


def test_the_helper_cannot_tell_a_variable_from_an_item_it_was_given():
    # why the flag must be withheld: called with an item of a list, the array the list holds
    # has the reference count of an array held by one variable, and is written into
    holder = [np.ones(4)]
    out = _add_index_cotangent(holder[0], np.array([1.0, 2.0]), np.zeros(4), slice(0, 2), True)
    assert out is holder[0]
    np.testing.assert_array_equal(holder[0], [2.0, 3.0, 1.0, 1.0])


def _written_flag(form):
    """The last_read flag the emitter writes for a fused call whose accumulator is written
    in the form form(builder, dy) gives (emitted_operands.py)."""
    body = Block(["dy"])
    b = IRBuilder(body)
    dy = body.args[0]
    acc, acc_expr = form(b, dy)
    b.emit("return", [_pair(b, acc, dy)], 0)
    fuse_adjoint_helpers(body)
    (fused,) = [op for op in body.walk() if op.opcode == "call" and op.attrs["fn"] is _add_index_cotangent]
    assert fused.operands[-1].owner.attrs["value"] is True  # the IR says: never read again
    return emitted_call(body, fused, acc, acc_expr).args[-1].value


def test_the_flag_is_written_false_unless_the_accumulator_is_a_local_variable():
    assert _written_flag(variable) is True
    assert _written_flag(item_of_a_list) is False
    assert _written_flag(global_read) is False
    assert _written_flag(fresh_expression) is False


# -- the fused code differentiated again (rules/rule_helpers.py add_index_cotangent) -------


def test_the_fused_gradient_code_has_reverse_and_forward_derivatives():
    from zygote_py.compiler import COMPILER

    grad_gates = COMPILER.entry(gates, (True,), "grad").fn
    assert "_zp_add_index_cotangent" in grad_gates._zp_source
    x = np.random.default_rng(5).standard_normal((2, 8)) * 0.7
    w = np.random.default_rng(6).standard_normal((2, 8))

    def directional(z):
        return np.sum(grad_gates(z)[1][0] * w)

    (reverse,) = zp.gradient(directional, x)
    np.testing.assert_allclose(reverse, central_differences(directional, x), rtol=1e-6, atol=1e-8)
    v = np.random.default_rng(7).standard_normal((2, 8))
    _, forward = zp.jvp(directional, (x,), (v,))
    assert forward == pytest.approx(np.sum(reverse * v), rel=1e-10)
