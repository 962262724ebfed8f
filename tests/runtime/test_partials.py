"""functools.partial made inside differentiated code (runtime/partials.py): the bound
arguments get their gradients, keywords merge as partial merges them, forward mode too;
every derivative against central finite differences."""

from __future__ import annotations

import functools
from functools import partial

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp


def _check(f, *args):
    got = zp.gradient(f, *args)
    for i, (g, n, a) in enumerate(zip(got, numerical_gradient(f, args), args)):
        assert_gradient_matches(g, n, a, f"{f.__name__} argument {i}", atol=1e-7, rtol=1e-6)
    return got


def scaled(x, w, scale=1.0, shift=0.0):
    return np.sum(np.tanh(x * w) * scale) + shift


def apply_twice(fun, x):
    return fun(x) + fun(2.0 * x)


def bound_positional(x, w):
    return partial(scaled, x)(w)  # x bound: its gradient comes back through the partial


def bound_keyword_overridden(x, w):
    p = functools.partial(scaled, scale=w[0], shift=3.0)
    return p(x, w, scale=w[1] * w[0])  # the call's keyword wins, as for functools.partial


def passed_as_value(x, w):
    return apply_twice(partial(scaled, w=w, scale=0.5), x)


def of_numpy_function(x, w):
    return np.sum(partial(np.multiply, w)(x) ** 2) + partial(np.dot, x)(w)


def nested_partials(x, w):
    inner = partial(scaled, x)
    return partial(inner, w)(scale=w[2])


X = np.array([0.3, -0.5, 0.8])
W = np.array([1.2, 0.4, -0.7])


def test_bound_positional_argument_gets_its_gradient():
    _check(bound_positional, X, W)


def test_call_keyword_overrides_the_bound_one():
    _check(bound_keyword_overridden, X, W)
    assert bound_keyword_overridden(X, W) == scaled(X, W, scale=W[1] * W[0], shift=3.0)


def test_partial_passed_to_a_helper():
    _check(passed_as_value, X, W)


def test_partial_of_a_numpy_rule():
    _check(of_numpy_function, X, W)


def test_partial_of_a_partial():
    _check(nested_partials, X, W)


def test_forward_mode_through_a_partial():
    tangent = np.array([0.2, -1.0, 0.5])
    _, jvp_out = zp.jvp(lambda w: passed_as_value(X, w), (W,), (tangent,))
    fd = (passed_as_value(X, W + 1e-6 * tangent) - passed_as_value(X, W - 1e-6 * tangent)) / 2e-6
    np.testing.assert_allclose(jvp_out, fd, rtol=1e-6)


def test_second_order_through_a_partial_made_inside():
    """Forward over reverse follows the call of a partial the gradient resolved while
    running (calls/forward_dispatched.py): the Hessian against central differences of
    the gradient."""
    def loss(w):
        return bound_positional(X, w)

    hessian = zp.hessian(loss, W)
    h = 1e-6
    for j in range(W.size):
        e = np.zeros(W.size)
        e[j] = h
        column = (zp.gradient(loss, W + e)[0] - zp.gradient(loss, W - e)[0]) / (2 * h)
        np.testing.assert_allclose(hessian[:, j], column, rtol=1e-6, atol=1e-7)


def call_with(fun, *args, **keywords):
    return fun(*args, **keywords)


def first_of(fn, other):
    return fn


def closures_in_star_args(x):
    def inner(y):
        return y * x

    def wrapper(y):
        return 2.0 * inner(y)

    return call_with(first_of, wrapper, inner)(x) + call_with(first_of, fn=wrapper, other=None)(1.0)


def test_closures_passed_in_star_args_keep_their_gradient():
    """A closure over x inside *args or **keywords carries x's derivative (calls/flat_calls.py
    carries_derivative); it used to be dropped, giving half of this gradient."""
    got = _check(closures_in_star_args, 0.7)
    np.testing.assert_allclose(got[0], 4.0 * 0.7 + 2.0)


def through_functools_wraps(x):
    def double(fn):
        @functools.wraps(fn)
        def wrapper(*args):
            return 2.0 * fn(*args)
        return wrapper

    @double
    def inner(y):
        return y * x

    return inner(x)


def test_functools_wraps_inside_is_refused_not_wrong():
    """wraps(fn) is a partial of update_wrapper, whose source has try/except."""
    with pytest.raises(zp.NoDerivativeRule, match="update_wrapper|try/except"):
        zp.gradient(through_functools_wraps, 3.0)
