"""The forward transform's fast paths (ad/forward/inline.py): rules spliced as expressions
where tangents are known present or absent, calls shared with the user's, loops whose
carried tangents are known present, and the call without signature binding.  Every case
is checked against central differences (the timing is bench/forward.py's business)."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from test_forward import assert_jvp, central

import zygote_py as zp
from zygote_py.forward_compiler import FORWARD
from zygote_py.kinds import scalar_kinds

rng = np.random.default_rng(7)
X = rng.standard_normal(4)
V = rng.standard_normal(4)
P = rng.uniform(0.5, 2.0, 4)  # positive, for log and sqrt
B = rng.standard_normal((3, 4))
M = rng.standard_normal((4, 4))
W = rng.standard_normal((4, 4))


def source(fn, args, active):
    """The generated forward code, without its comments (which quote the user's line)."""
    text = FORWARD.forward_entry(fn, active, (), scalar_kinds(args)).source
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


# -- a lone tangent of a + b is broadcast to the result's shape -------------------------


def sum_of_sum(x, b):
    return np.sum(x + b)


def sum_of_difference(x, b):
    return np.sum(b - x)


def sum_of_difference_first(x, b):
    return np.sum(x - b)


def sum_of_ufunc_add(x, b):
    return np.sum(np.add(b, x))


def row_sums(x, b):
    return np.sum(x + b, axis=1)


@pytest.mark.parametrize("f", [sum_of_sum, sum_of_difference, sum_of_difference_first,
                               sum_of_ufunc_add, row_sums])
@pytest.mark.parametrize("x, v", [(X, V), (0.4, 1.5)])
def test_a_lone_tangent_counts_once_per_broadcast_copy(f, x, v):
    dy = assert_jvp(f, (x, B), (v, None))
    assert np.all(np.asarray(dy) != 0.0)


@pytest.mark.parametrize("f", [sum_of_sum, sum_of_difference, sum_of_difference_first])
def test_the_broadcast_operand_may_be_the_moving_one(f):
    assert_jvp(f, (X, B), (None, rng.standard_normal(B.shape)))


def test_a_lone_broadcast_tangent_through_the_rule_function():
    def loop(x, b):  # t's tangent starts as None: the loop calls the general rule
        t = 0.0
        for _ in range(2):
            t = t + x
            t = t + b
        return np.sum(t)

    assert "_zp_jvp_add" in source(loop, (X, B), (True, False))
    assert_jvp(loop, (X, B), (V, None))


def test_forward_jacobian_of_a_broadcast_sum():
    (j,) = zp.jacobian(lambda x: np.sum(x + B), 0.5, mode="forward")
    np.testing.assert_allclose(j, B.size)


# -- spliced rules ------------------------------------------------------------------------


def products(a, b):
    return a * b + a / b - b / a + a @ M * 2.0 - (-a) + (+b)


def matmuls(a, w):
    return np.tanh(a @ w) @ w


@pytest.mark.parametrize("va, vb", [(V, None), (None, V), (V, -V)])
def test_arithmetic_patterns(va, vb):
    assert_jvp(products, (X, P), (va, vb))


@pytest.mark.parametrize("va, vw", [(V, None), (None, B[:, :4].T @ B[:, :4]), (V, M)])
def test_matmul_patterns(va, vw):
    assert_jvp(matmuls, (X, W), (va, vw))


def squares(x):
    return x * x + x ** 2 + 3.0 * x ** 2.0


@pytest.mark.parametrize("x, v", [(X, V), (0.7, -0.3)])
def test_squares(x, v):
    assert_jvp(squares, (x,), (v,))
    assert "_zp_jvp" not in source(squares, (x,), (True,))


def elementwise(x):
    return np.sin(x) + np.cos(x) * np.exp(x) + np.log(x) - np.tanh(x) + np.log1p(x) \
        + np.sqrt(x) + np.expm1(x) + np.arctan(x)


def math_functions(x):
    return math.sin(x) * math.exp(x) + math.tanh(x)


@pytest.mark.parametrize("x, v", [(P, V), (1.3, 0.4)])
def test_one_input_functions_spliced_from_their_reverse_rules(x, v):
    assert_jvp(elementwise, (x,), (v,))
    assert "_zp_jvp" not in source(elementwise, (x,), (True,))


def test_math_functions_spliced():
    assert_jvp(math_functions, (0.8,), (1.7,))
    assert "_zp_jvp" not in source(math_functions, (0.8,), (True,))


def reductions(x):
    return np.sum(x * x, axis=1, keepdims=True) + np.mean(np.exp(x), axis=0) + np.sum(x) \
        + np.mean(x, 1)[:, None]


def test_sums_and_means_of_the_tangent():
    assert_jvp(reductions, (B,), (rng.standard_normal(B.shape),))


def test_a_spliced_call_is_shared_with_the_users_but_the_users_are_not_merged():
    def sin_then_cos(x):
        return np.sin(x) * np.cos(x)

    text = source(sin_then_cos, (X,), (True,))
    assert text.count("np.cos(") == 1 and text.count("np.sin(") == 1
    assert_jvp(sin_then_cos, (X,), (V,))

    def twice(x):
        return np.cos(x) + np.cos(x)

    assert source(twice, (X,), (True,)).count("np.cos(") == 2


# -- loops and branches: which tangents are known present ---------------------------------


def scalar_loop(x):
    for _ in range(20):
        x = np.sin(x) * x + 0.5 * np.cos(x) / (1 + x * x)
    return x


def test_a_loop_whose_tangent_is_always_present_is_all_expressions():
    text = source(scalar_loop, (0.3,), (True,))
    assert "_zp_jvp" not in text and "None" not in text
    assert_jvp(scalar_loop, (0.3,), (1.0,))
    assert_jvp(scalar_loop, (X,), (V,))


def test_a_carried_tangent_that_may_vanish_is_not_assumed_present():
    def resets(x, c):
        y = x
        for i in range(4):
            y = np.sin(y) * 2.0
            if i == 1:
                y = c  # y's tangent is zero again here
        return y * x

    assert_jvp(resets, (X, X + 1.0), (V, None))
    assert_jvp(resets, (0.3, 1.1), (0.7, None))


def test_a_carried_tangent_that_starts_absent():
    def rnn(W, b):
        h = np.zeros((3, 4))
        for t in range(5):
            h = np.tanh(h @ W.T + B + b)
        return np.sum(h ** 2)

    assert_jvp(rnn, (0.5 * W, X), (V[:, None] * W, V))
    assert_jvp(rnn, (0.5 * W, X), (None, V))


def test_while_loop_tangents():
    def halve(x):
        n = 0
        while n < 5:
            x = x * np.cos(x) + 0.1
            n += 1
        return x

    assert "_zp_jvp" not in source(halve, (0.4,), (True,))
    assert_jvp(halve, (0.4,), (1.0,))
    assert_jvp(halve, (X,), (V,))


@pytest.mark.parametrize("c", [X, -X])
def test_branches_with_present_and_absent_tangents(c):
    def both(x, c):
        if np.sum(c) > 0:
            y = np.exp(x)
        else:
            y = x * x
        return y * np.sin(y)

    def one(x, c):
        if np.sum(c) > 0:
            y = np.exp(x)
        else:
            y = c
        return y * np.sin(y)

    assert_jvp(both, (X, c), (V, None))
    assert_jvp(one, (X, c), (V, None))


# -- max and min: ties share the tangent as the reverse rule shares the cotangent ------------


@pytest.mark.parametrize("reduce", [np.max, np.min, np.amax, np.amin])
@pytest.mark.parametrize("kw", [{}, {"axis": 1}, {"axis": 0, "keepdims": True}])
def test_max_min_forward_rule(reduce, kw):
    assert_jvp(lambda a: reduce(a, **kw) * 2.0, (B,), (rng.standard_normal(B.shape),))


def test_max_method_forward_rule():
    assert_jvp(lambda a: a.max(axis=1) + a.min(), (B,), (rng.standard_normal(B.shape),))


def test_max_with_ties_is_the_transpose_of_the_reverse_rule():
    a = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    da = rng.standard_normal(a.shape)
    g = rng.standard_normal(2)

    def f(a):
        return np.max(a, axis=1)

    _, jvp = zp.jvp(f, (a,), (da,))
    (vjp,) = zp.pullback(f, a)[1](g)
    np.testing.assert_allclose(np.dot(g, jvp), np.sum(vjp * da))
    np.testing.assert_allclose(jvp, [(da[0, 1] + da[0, 2]) / 2, np.mean(da[1])])


# -- calling the compiled function --------------------------------------------------------


def with_default(x, scale=2.0):
    return np.sin(x) * scale


def test_arguments_bound_with_and_without_defaults():
    assert_jvp(with_default, (X,), (V,))
    assert_jvp(with_default, (X, 3.0), (V, 1.0))
    assert_jvp(lambda x: with_default(x, scale=x[0]), (X,), (V,))


def test_a_wrapped_function_is_bound_by_its_signature():
    @functools.wraps(with_default)
    def wrapper(x, scale=2.0):
        return with_default(x, scale) + x

    _, dy = zp.jvp(wrapper, (X,), (V,))
    np.testing.assert_allclose(dy, central(wrapper, (X,), (V,)), rtol=1e-6)


# -- forward over gradient code: calls decided while running, by the operands' types -------


def fd_hessian(f, x, eps=1e-5):
    x = np.asarray(x, dtype=float)
    cols = []
    for j in range(x.size):
        e = np.zeros(x.size)
        e[j] = eps
        cols.append((zp.gradient(f, x + e)[0] - zp.gradient(f, x - e)[0]) / (2 * eps))
    return np.stack(cols, axis=-1)


XS = rng.standard_normal((8, 3))


def packed_mlp(theta):
    W1 = np.reshape(theta[:12], (3, 4))
    b1 = theta[12:16]
    W2 = np.reshape(theta[16:20], (4, 1))
    out = np.tanh(XS @ W1 + b1) @ W2
    return np.mean((out - 1.0) ** 2) + np.max(theta) ** 2


def recurrence(x):
    for _ in range(6):
        x = np.sin(x) * x + 0.5 * np.cos(x) / (1 + x * x)
    return x


def test_hessians_through_gradient_code():
    theta = 0.5 * rng.standard_normal(20)
    np.testing.assert_allclose(zp.hessian(packed_mlp, theta), fd_hessian(packed_mlp, theta),
                               rtol=1e-5, atol=1e-7)
    h = zp.hessian(recurrence, 0.7)
    fd = (zp.gradient(recurrence, 0.7 + 1e-5)[0] - zp.gradient(recurrence, 0.7 - 1e-5)[0]) / 2e-5
    np.testing.assert_allclose(h, fd, rtol=1e-5)
    def summed(x):
        return np.sum(recurrence(x))

    np.testing.assert_allclose(zp.hessian(summed, X), fd_hessian(summed, X), rtol=1e-5, atol=1e-8)


class Scaled:
    """An object with an operator of its own: `obj * x` is its method's, not multiply's."""

    def __init__(self, v):
        self.v = v

    def __mul__(self, other):
        return self.v * np.sin(other)


def test_an_object_operand_is_still_decided_by_its_own_operator():
    def f(obj, x):
        return np.sum(obj * x)

    obj = Scaled(X + 1.0)
    y, dy = zp.jvp(f, (obj, X), ({"v": V}, V))
    expected = np.sum(V * np.sin(X) + (X + 1.0) * np.cos(X) * V)
    np.testing.assert_allclose(dy, expected)
    np.testing.assert_allclose(y, np.sum((X + 1.0) * np.sin(X)))


def test_a_broadcast_lone_tangent_is_a_writable_array():
    _, dy = zp.jvp(lambda x, b: x + b, (X, B), (V, None))
    assert dy.shape == B.shape and dy.flags.writeable
    np.testing.assert_allclose(dy, np.broadcast_to(V, B.shape))
