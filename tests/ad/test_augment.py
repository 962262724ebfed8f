"""The reverse transform builds a new forward function (augment step) and only reads
its input: the lowered IR, shared by every build, is the same after a transform,
and the forward carries the trip counters, back functions and tape pushes the
adjoint asked for as new ops."""

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient
from golden import cases

import zygote_py as zp
from zygote_py.ad.reverse import ReverseTransform
from zygote_py.api import is_active
from zygote_py.compiler import COMPILER
from zygote_py.ir.printer import format_function
from zygote_py.ir.verify import verify


def _transform(func, args):
    ir = COMPILER.lowered_ir(func)
    active = [is_active(a) for a in args]
    return ir, ReverseTransform(ir, active).run()


def _opcodes(block):
    return [op.opcode for op in block.walk()]


@pytest.mark.parametrize("func,args", cases.CASES, ids=[f.__name__ for f, _ in cases.CASES])
def test_the_input_ir_is_unchanged_and_the_forward_is_new(func, args):
    ir = COMPILER.lowered_ir(func)
    before = format_function(ir)
    primal_ops = {id(op) for op in ir.walk()}
    _, program = _transform(func, args)
    assert format_function(ir) == before
    verify(ir)
    verify(program.forward)
    assert program.forward.body is not ir.body
    assert not primal_ops & {id(op) for op in program.forward.walk()}
    primal_values = {v.id for op in ir.walk() for v in op.results} | {a.id for a in ir.params}
    read = {v.id for op in program.backward.walk() for v in op.operands}
    assert not read & primal_values, "the backward must read the new forward's values"


@pytest.mark.parametrize("func,args", cases.CASES, ids=[f.__name__ for f, _ in cases.CASES])
def test_both_forms_from_one_lowered_ir_give_correct_gradients(func, args):
    """grad and pullback forms are built from the same lowered IR, one after the other."""
    y, back = zp.pullback(func, *args)
    assert y == pytest.approx(func(*args), rel=1e-12)
    grads = back(1.0)
    fd = numerical_gradient(func, args)
    for i, (g, f, a) in enumerate(zip(grads, fd, args)):
        assert_gradient_matches(g, f, a, f"arg{i}")
    assert_gradient_matches(zp.gradient(func, *args)[0], fd[0], args[0], "arg0")


def test_transforming_twice_gives_the_same_code():
    def twice(x):
        s = x
        while s < 10.0:
            s = s * 1.5 + cases.helper(s, x)
        return s

    first = zp.grad_source(twice)
    COMPILER.clear()
    assert zp.grad_source(twice) == first
    (g,) = zp.gradient(twice, 1.2)
    (fd,) = numerical_gradient(twice, (1.2,))
    assert g == pytest.approx(fd, rel=1e-6)


def test_a_while_loop_counts_its_trips_in_the_forward_only():
    ir, program = _transform(cases.while_loop, (1.2,))
    (primal_loop,) = [op for op in ir.walk() if op.opcode == "while"]
    (loop,) = [op for op in program.forward.walk() if op.opcode == "while"]
    assert len(loop.results) == len(primal_loop.results) + 1
    count = loop.results[-1]
    assert count.hint == "_zp_trips"
    cond, body = loop.regions
    assert cond.args[-1].hint == body.args[-1].hint == "_zp_trips"
    assert any(count in op.operands for op in program.backward.walk())
    assert "_zp_trips" not in format_function(ir)


def test_a_helper_call_returns_its_back_function_in_the_forward():
    ir, program = _transform(cases.calls_helper, (0.4, 0.9))
    assert _opcodes(ir.body).count("call_pb") == 0
    pulled = [op for op in program.forward.walk() if op.opcode == "call_pb"]
    assert len(pulled) == 2
    for op in pulled:
        back = op.results[-1]
        assert back.hint == "_zp_back" and back.owner is op
        assert any(back in b.operands for b in program.backward.walk() if b.opcode == "call_back")


def test_values_read_inside_a_loop_are_pushed_by_the_forward_and_popped_by_the_backward():
    ir, program = _transform(cases.scalar_loop, (0.3,))
    forward_ops = _opcodes(program.forward.body)
    backward_ops = _opcodes(program.backward)
    # one tape for the loop body: the carried x pushed as it starts, the rest as it ends
    assert forward_ops.count("tape_new") == backward_ops.count("tape_open") == 1
    assert forward_ops.count("tape_push") == backward_ops.count("tape_pop") == 2
    assert "tape_push" not in _opcodes(ir.body)
    (loop,) = [op for op in program.forward.body.ops if op.opcode == "for"]
    body = loop.regions[0]
    assert body.ops[0].opcode == "tape_push"  # the carried x, as the iteration starts
    assert body.ops[-2].opcode == "tape_push"  # values computed in it, before the yield
    assert body.ops[-2].attrs == {"last": 1 + len(body.ops[-2].operands[1:])}  # values per iteration
    assert body.ops[0].attrs == {}
    assert body.ops[0].operands[0] is body.ops[-2].operands[0]  # the same tape
    news = [op.result for op in program.forward.body.ops if op.opcode == "tape_new"]
    opened = [op.operands[0] for op in program.backward.ops if op.opcode == "tape_open"]
    assert sorted(v.id for v in news) == sorted(v.id for v in opened)
    x = 0.3
    (g,) = zp.gradient(cases.scalar_loop, x)
    assert_gradient_matches(g, numerical_gradient(cases.scalar_loop, (x,))[0], x, "x")


def test_an_unrolled_product_matches_its_closed_form():
    def power(x):
        y = 1.0
        k = 0
        while k < 5:
            y = y * x
            k += 1
        return y

    ir = COMPILER.lowered_ir(power)
    before = format_function(ir)
    (g,) = zp.gradient(power, 1.3)
    assert g == pytest.approx(5 * 1.3 ** 4, rel=1e-12)
    assert format_function(ir) == before
    x = np.array([0.5, 2.0])
    (gx,) = zp.gradient(lambda v: np.sum(power(v)), x)
    np.testing.assert_allclose(gx, 5 * x ** 4, rtol=1e-12)
