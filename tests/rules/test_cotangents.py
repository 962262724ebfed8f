"""The helpers generated code calls are primitives with rules (rules/cotangents.py,
rules/rule_helpers.py): `zp.gradient` of functions that call each helper
directly, against central finite differences, and gradients of generated
gradient code (second derivatives), against finite differences of the gradient."""

from __future__ import annotations

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp
from zygote_py.compiler import COMPILER
from zygote_py.rules import factorizations, indexing, linalg, operators, registry, shapes
from zygote_py.runtime import helpers as rt
from zygote_py.runtime import transposes as tr

RNG = np.random.default_rng(11)
W = RNG.standard_normal((3, 4))
C = RNG.standard_normal((2, 3))


def _r(*shape):
    return RNG.standard_normal(shape)


def _weigh(v):
    """A fixed nonlinear scalar of any array-like, so every entry's cotangent differs."""
    a = np.asarray(v)
    return np.sum(np.sin(a) * np.arange(1.0, a.size + 1.0).reshape(a.shape))


# each function calls one helper directly on active values
CASES = [
    ("unbroadcast", lambda g: _weigh(rt.unbroadcast(g, W)), (_r(2, 3, 4),)),
    ("unbroadcast up", lambda g: _weigh(rt.unbroadcast(g, W)), (0.7,)),
    ("broadcast_like", lambda h: _weigh(tr.broadcast_like(h, W)), (_r(4),)),
    ("expand_reduced", lambda g: _weigh(rt.expand_reduced(g, W, 0, False)), (_r(4),)),
    ("expand_reduced keepdims", lambda g: _weigh(rt.expand_reduced(g, W, 1, True)), (_r(3, 1),)),
    ("sum_reduced", lambda h: _weigh(tr.sum_reduced(h, W, -1, False)), (_r(3, 4),)),
    ("accum", lambda a, b: _weigh(rt.accum(a, b) * a), (_r(3), _r(3))),
    ("accum tuples", lambda a, b: _weigh(rt.accum((a, b), (b, a))[0] * b), (_r(2), _r(2))),
    ("accum_index", lambda acc, g: _weigh(rt.accum_index(acc * 1.0, W, 1, g) * acc), (_r(3, 4), _r(4))),
    ("accum_index reverse", lambda g: _weigh(rt.accum_index(None, C, 0, g, True)), (_r(3),)),
    ("zeros_if_none", lambda g: _weigh(rt.zeros_if_none(g, W) * g), (_r(3, 4),)),
    ("item_cotangent", lambda a, b: _weigh(rt.item_cotangent((a, b * a), 1)), (_r(3), _r(3))),
    ("unpack_cotangent", lambda a, b: _weigh(rt.unpack_cotangent(C, (a, b * a), None)), (_r(3), _r(3))),
    ("split_last", lambda a, b: _weigh(rt.split_last([a, b, a * b])[1]) + _weigh(b), (_r(2), _r(2))),
    ("split_tail", lambda a, b: _weigh(rt.split_tail([a, b, a * b], [1.0, 2.0])[1]), (_r(2), _r(2))),
    ("split_key", lambda a, b: _weigh(rt.split_key({"a": a, "b": b * a}, "b")[1]), (_r(2), _r(2))),
    ("matmul_cotangent_a", lambda g, b: _weigh(linalg.matmul_cotangent_a(g, C, b)), (_r(2, 4), W)),
    ("matmul_cotangent_b", lambda g, a: _weigh(linalg.matmul_cotangent_b(g, a, W)), (_r(2, 4), C)),
    ("dot_cotangent_a", lambda g, b: _weigh(linalg.dot_cotangent_a(g, C, b)), (_r(2, 4), W)),
    ("dot_cotangent_b", lambda g, a: _weigh(linalg.dot_cotangent_b(g, a, W)), (_r(2, 4), C)),
    ("pow_exponent_cotangent",
     lambda g, y, a: _weigh(operators._pow_exponent_cotangent(g, y, a)), (_r(3), _r(3), np.array([0.5, 2.0, -1.0]))),
    ("index_cotangent", lambda g: _weigh(indexing._index_cotangent(g, W, (1, slice(0, 2)))), (_r(2),)),
    ("like_input", lambda g: _weigh(shapes.like_input(g, [1.0, 2.0, 3.0])), (_r(3),)),
    ("diagonal_cotangent", lambda g: _weigh(indexing._diagonal_cotangent(g, W, 1, 0, 1)), (_r(3),)),
    ("take_cotangent", lambda g: _weigh(indexing._take_cotangent(g, W, np.array([3, 0, 3]), 1, "raise")),
     (_r(3, 3),)),
    ("sort_cotangent", lambda g: _weigh(indexing._sort_cotangent(g, W, 1)), (_r(3, 4),)),
    ("output_parts", lambda a, b: _weigh(factorizations.output_parts((a, b * a), (W, W))[1]), (_r(2), _r(2))),
]


@pytest.mark.parametrize("name,fn,args", CASES, ids=[c[0] for c in CASES])
def test_gradient_through_a_helper_matches_finite_differences(name, fn, args):
    grads = zp.gradient(fn, *args)
    for i, (g, fd, a) in enumerate(zip(grads, numerical_gradient(fn, args), args)):
        assert_gradient_matches(g, fd, a, f"{name} arg{i}")


def test_every_listed_helper_is_a_primitive():
    for helper in (rt.unbroadcast, rt.expand_reduced, rt.accum, rt.zeros_if_none, rt.item_cotangent,
                   rt.unpack_cotangent, rt.split_last, rt.split_tail, rt.split_key, rt.accum_index,
                   linalg.matmul_cotangent_a, linalg.matmul_cotangent_b, operators._pow_exponent_cotangent):
        assert registry.function_rule(helper) is not None, helper.__name__
    for constant in (rt.check_scalar, rt.shape_of, rt.reduced_size, rt.normalize_axis):
        assert registry.is_nondifferentiable(constant), constant.__name__


def test_accum_index_rule_reads_neither_accumulator_nor_cotangent_values():
    # the helper writes into acc in place; the rule must not depend on what it wrote
    rule = registry.function_rule(rt.accum_index)
    acc, seq, g = np.zeros(3), np.zeros(3), 2.0
    out = np.arange(3.0)
    first = rule.vjp(out, None, acc, seq, 1, g)
    acc[:] = 99.0
    second = rule.vjp(out, None, acc, seq, 1, 123.0)
    np.testing.assert_array_equal(first[0], second[0])
    assert first[1] == second[1] == 1.0


# --- differentiating generated gradient code ------------------------------------


def _generated_grad(f, nargs):
    return COMPILER.entry(f, tuple(True for _ in range(nargs)), "grad").fn


def _sin_times(x):
    return np.sin(x) * x


def _tanh_layer(x, w):
    return np.sum(np.tanh(x @ w) ** 2)


def _mean_square(x):
    return np.mean(x * x) + np.sum(np.exp(x)) / 3.0


def _powers(x, p):
    return np.sum(x ** p)


def _pairs(x):
    a, b = x[0], x[1]
    return a * b + np.sum(np.cos(x))


def _sorted_diagonal(x):
    return np.sum(np.sin(np.sort(x, axis=1))) + np.trace(x * x) + np.sum(np.take(x, [2, 0, 2], axis=0) ** 3)


def _log_det(x):
    sign, logdet = np.linalg.slogdet(x)
    return logdet * sign + np.sum(x)


def _order_statistics(x):
    return (np.sum(np.sin(np.median(x, axis=1))) + np.sum(np.quantile(x, [0.3, 0.8], axis=0) ** 2)
            + np.sum(np.cos(np.partition(x, 2, axis=1))) + np.sum(np.repeat(x, 2, axis=0) ** 3))


def test_review_reproduction_a2_second_derivative_of_a_scalar_function():
    f_grad = _generated_grad(_sin_times, 1)
    (d2,) = zp.gradient(lambda x: f_grad(x)[1][0], 0.3)
    assert d2 == pytest.approx(2 * np.cos(0.3) - 0.3 * np.sin(0.3), rel=1e-12)


@pytest.mark.parametrize("f,args", [
    (_tanh_layer, (_r(2, 3), _r(3, 2))),
    (_mean_square, (_r(4),)),
    (_powers, (RNG.uniform(0.5, 2.0, 3), RNG.uniform(1.0, 2.0, 3))),
    (_pairs, (_r(2),)),
    (_sorted_diagonal, (_r(3, 3),)),
    (_log_det, (_r(3, 3) * 0.3 + 2.0 * np.eye(3),)),
    (_order_statistics, (_r(3, 5),)),
], ids=["matmul-tanh", "mean-exp", "pow-exponent", "unpack", "take-sort-trace", "slogdet", "quantile-partition"])
def test_gradient_of_generated_gradient_code_matches_finite_differences(f, args):
    f_grad = _generated_grad(f, len(args))
    weights = [RNG.standard_normal(np.shape(a)) for a in args]

    def weighted(grads):
        # a scalar of the gradient: every component of every cotangent, weighted
        return sum(np.sum(g * w) for g, w in zip(grads, weights))

    # fixed arities: zp.gradient of a `*args` function is not what is tested here
    if len(args) == 1:
        def directional(x):
            return weighted(f_grad(x)[1])
    else:
        def directional(x, y):
            return weighted(f_grad(x, y)[1])

    got = zp.gradient(directional, *args)
    for i, (g, fd, a) in enumerate(zip(got, numerical_gradient(directional, args), args)):
        assert_gradient_matches(g, fd, a, f"{f.__name__} arg{i}")


def _weigh_grads(grads):
    total = 0.0
    for g in grads:
        if g is not None:
            total = total + np.sum(np.asarray(g) * 0.7)
    return total


def _second_order(f_grad, n):
    if n == 1:
        def h(a):
            return _weigh_grads(f_grad(a)[1])
    elif n == 2:
        def h(a, b):
            return _weigh_grads(f_grad(a, b)[1])
    elif n == 3:
        def h(a, b, c):
            return _weigh_grads(f_grad(a, b, c)[1])
    else:
        def h(a, b, c, d):
            return _weigh_grads(f_grad(a, b, c, d)[1])
    return h


# golden cases whose generated gradients differentiate today (the others have loop tapes)
_NESTABLE = ("arithmetic", "branches", "while_loop", "early_return", "calls_helper", "closure", "mlp",
             "reductions", "uses_global", "helper")


@pytest.mark.parametrize("name", _NESTABLE)
def test_gradient_of_a_golden_gradient_matches_finite_differences(name):
    from golden import cases

    f, args = next((f, a) for f, a in cases.CASES if f.__name__ == name)
    f_grad = COMPILER.entry(f, tuple(zp.api.is_active(a) for a in args), "grad").fn
    h = _second_order(f_grad, len(args))
    for i, (g, fd, a) in enumerate(zip(zp.gradient(h, *args), numerical_gradient(h, args), args)):
        assert_gradient_matches(g, fd, a, f"{name} arg{i}")


def test_generated_loop_gradient_differentiates_through_its_tapes():
    # a loop's adjoint pops saved values off Python-list tapes; the tape is a list
    # the generated code made, so its pop is lowered to list_pop, which has a rule
    def loop(x):
        s = 0.0
        for v in x:
            s = s + v * v
        return s

    f_grad = _generated_grad(loop, 1)
    weights = np.array([1.0, -2.0, 0.5])

    def weighted(x):
        return np.sum(f_grad(x)[1][0] * weights)

    x = _r(3)
    (got,) = zp.gradient(weighted, x)
    (fd,) = numerical_gradient(weighted, (x,))
    assert_gradient_matches(got, fd, x, "loop arg0")
    np.testing.assert_allclose(got, 2.0 * weights)
