"""Callee pullbacks are symbolic references: the reverse transform names the user
functions whose pullbacks it needs (function, active parameters, implicit flag, what
the caller knows of the arguments) and compiles nothing; the driver resolves them
afterwards."""

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp
from zygote_py.ad.implicit import ImplicitParamReads
from zygote_py.ad.reverse import ReverseTransform
from zygote_py.ad.reverse.callees import CalleeRef, bind_parameters
from zygote_py.compiler import COMPILER
from zygote_py.errors import UnsupportedSyntax


def scale(a, b):
    return a * b + np.tanh(a)


def uses_scale(x, y):
    return scale(x, y) + scale(y, 2.0)


def countdown(x, n):
    if n == 0:
        return x
    return np.sin(countdown(x, n - 1)) * x


def test_the_transform_lists_its_callees_and_compiles_none():
    COMPILER.clear()
    program = ReverseTransform(COMPILER.lowered_ir(uses_scale), [True, True]).run()
    # every operand is known to be an array or a number (kinds False)
    known = (False, False)
    assert set(program.callees) == {CalleeRef(scale, (True, True), False, known),
                                    CalleeRef(scale, (True, False), False, known)}
    assert scale not in COMPILER.cache, "the transform must not compile its callees"
    refs = [op.attrs["callee"] for op in program.forward.walk() if op.opcode == "call_pb"]
    assert sorted(refs, key=lambda r: r.active) == sorted(program.callees, key=lambda r: r.active)
    pulled = [op for op in program.forward.walk() if op.opcode == "call_pb"]
    assert [op.attrs["pb_expr"] for op in pulled] == ["scale_pullback", "scale_pullback"]


def test_a_callee_reached_twice_with_one_pattern_is_listed_once():
    def twice(x):
        return scale(x, 3.0) * scale(x, 0.5)

    program = ReverseTransform(COMPILER.lowered_ir(twice), [True]).run()
    assert program.callees == [CalleeRef(scale, (True, False), False, (False, False))]
    x = 0.7
    (g,) = zp.gradient(twice, x)
    assert_gradient_matches(g, numerical_gradient(twice, (x,))[0], x, "x")


def test_the_driver_resolves_the_callees_and_the_gradient_is_right():
    COMPILER.clear()
    args = (0.4, 0.9)
    grads = zp.gradient(uses_scale, *args)
    fd = numerical_gradient(uses_scale, args)
    for i, (g, f, a) in enumerate(zip(grads, fd, args)):
        assert_gradient_matches(g, f, a, f"arg{i}")
    assert {key[0] for key in COMPILER.cache[scale]} == {(True, True), (True, False)}


def test_a_recursive_function_resolves_to_its_own_pullback():
    x = 0.6
    (g, n_bar) = zp.gradient(countdown, x, 3)
    assert n_bar is None
    assert_gradient_matches(g, numerical_gradient(countdown, (x, 3))[0], x, "x")


def test_an_implicit_variant_asks_for_implicit_callees():
    def outer(x):
        return scale(x, 2.0)

    ir = COMPILER.lowered_ir(outer)
    program = ReverseTransform(ir, [False], reads=ImplicitParamReads(outer.__globals__)).run()
    assert program.callees == [CalleeRef(scale, (False, False), True, (False, False))]
    plain = ReverseTransform(ir, [True]).run()
    assert plain.callees == [CalleeRef(scale, (True, False), False, (False, False))]


def test_binding_parameters_maps_operands_to_parameters():
    def g(a, b=1.0, *rest, c, **kw):
        return a

    def call(x):
        return g(x, 2.0, 3.0, c=x, d=1.0)

    (op,) = [op for op in COMPILER.lowered_ir(call).walk()
             if op.opcode == "call" and op.attrs["fn"] is g]
    assert bind_parameters(g, op, op.loc) == [[0], [1], [2], [3], [4]]

    def wrong(x):
        return scale(x)

    (bad,) = [op for op in COMPILER.lowered_ir(wrong).walk() if op.opcode == "call"]
    with pytest.raises(UnsupportedSyntax, match="does not match scale"):
        bind_parameters(scale, bad, bad.loc)
