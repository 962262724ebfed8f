"""Forward mode over gradient code through the calls that gradient resolved while running
(calls/forward_dispatched.py): every kind of callee run-time dispatch decides -- Python
functions of any signature, bound methods, callable objects, partials, lru_cache wrappers,
registered rules on containers and index tricks, methods with rules of library objects --
differentiated again.  Each Hessian is checked against central differences of the
gradient (float64); what is not followed is refused, never a silent zero."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import zygote_py as zp

EPS = 1e-6
X = np.array([0.4, -0.7, 1.1])


def fd_hessian(f, x):
    """Columns of central differences of zp.gradient."""
    columns = []
    for j in range(x.size):
        e = np.zeros(x.size)
        e[j] = EPS
        columns.append((zp.gradient(f, x + e)[0] - zp.gradient(f, x - e)[0]) / (2 * EPS))
    return np.stack(columns, axis=-1)


def check_hessian(f, x=X):
    got = zp.hessian(f, x)
    np.testing.assert_allclose(got, fd_hessian(f, x), rtol=1e-6, atol=1e-7)
    return got


# Callees held in a list: the compiler cannot tell what `CALLEES[k](...)` means, so the
# gradient code resolves the call while running (dispatch.call), and the Hessian
# differentiates that call forward.


def by_args(*args):
    return np.sum(np.sin(args[0]) * args[1])


def by_keywords(x, scale=2.0, **extra):
    return np.sum(np.tanh(x * scale) * extra["weight"])


def with_default(x, power=3):
    return np.sum(x ** power)


class Quadratic:
    def __init__(self, a):
        self.a = a

    def energy(self, x):
        return np.sum(self.a * x * x * x)

    def __call__(self, x):
        return np.sum(np.exp(self.a * x))


@functools.lru_cache(maxsize=None)  # noqa: UP033  (the wrapper dispatch looks through)
def cached_curve(t):
    return np.cos(t) * t ** 3


CALLEES = [by_args, by_keywords, with_default, Quadratic(0.3).energy, Quadratic(0.5),
           functools.partial(with_default, power=2)]


def test_a_function_taking_star_args():
    check_hessian(lambda x: CALLEES[0](x, x * x))


def test_keyword_arguments_and_star_star_kwargs():
    check_hessian(lambda x: CALLEES[1](x, scale=1.5, weight=x))


def test_defaults_filled_in():
    check_hessian(lambda x: CALLEES[2](x))


def test_a_bound_method():
    check_hessian(lambda x: CALLEES[3](x) + CALLEES[3](2.0 * x))


def test_a_callable_object():
    check_hessian(lambda x: CALLEES[4](x * x))


def test_a_partial():
    check_hessian(lambda x: CALLEES[5](np.sin(x)))


def test_a_closure_over_star_args_as_a_test_suite_wraps_functions():
    def symmetrize(fun):
        def symmetrized(*args):
            return fun(*args) + fun(*args[::-1])
        return symmetrized

    holder = [symmetrize(lambda a, b: np.sum(a * np.sin(b)))]
    check_hessian(lambda x: holder[0](x, x ** 2))


def test_getitem_of_a_tuple_and_an_index_trick():
    def loss(x):
        pair = [(np.sin(x), x * x)][0]  # a tuple the compiler does not know the type of
        return np.sum(pair[0] * pair[1]) + np.sum(np.r_[x, pair[1]] ** 3)

    check_hessian(loss)


def test_a_method_with_a_rule_of_a_library_object():
    stats = pytest.importorskip("scipy.stats")
    dists = [stats.norm]
    check_hessian(lambda x: np.sum(dists[0].logpdf(x * x, 0.3, 1.7)))
    check_hessian(lambda x: np.sum(dists[0].cdf(x, 0.2, 1.3)))


def test_a_function_wrapped_by_lru_cache():
    holder = [cached_curve]

    def loss(t):
        return holder[0](t * 2.0)

    got = zp.hessian(loss, 0.6)
    numeric = (zp.gradient(loss, 0.6 + EPS)[0] - zp.gradient(loss, 0.6 - EPS)[0]) / (2 * EPS)
    assert np.isclose(got, numeric, rtol=1e-6)


def test_a_custom_rule_is_refused_rather_than_guessed():
    def cube(x):
        return x ** 3

    @zp.adjoint(cube)
    def cube_rule(x):
        return x ** 3, lambda g: (g * 3 * x ** 2,)

    holder = [cube]
    with pytest.raises(zp.NoDerivativeRule, match="custom rule"):
        zp.hessian(lambda x: np.sum(holder[0](x)), X)


def test_an_object_operator_method_is_refused():
    class Scaled:
        def __init__(self, v):
            self.v = v

        def __mul__(self, other):
            return self.v * other

    def loss(x):
        s = [Scaled(x)][0]
        return np.sum(s * x)

    with pytest.raises(zp.ZygoteError):
        zp.hessian(loss, X)


def test_a_captured_variable_bound_on_one_branch():
    # a closure whose captured variable is assigned on one branch only; forward mode reads
    # captured variables when the function starts (calls/forward_dispatch.py refuses one
    # still unassigned there, as gradient code's `_zp_back` can be, rather than fail inside)
    def make(x, scaled):
        if scaled:
            factor = x * 2.0

        def inner(z):
            if scaled:
                return factor * z
            return np.sin(z)

        return inner

    assert np.isclose(zp.jvp(lambda x: make(x, True)(x), (0.5,), (1.0,))[1], 2.0)
    assert np.isclose(zp.jvp(lambda x: make(x, False)(x), (0.5,), (1.0,))[1], np.cos(0.5))


def test_an_unbound_captured_variable_is_named():
    from zygote_py.calls.forward_dispatch import _unbound_cell

    def outer():
        def inner():
            return later  # noqa: F821  (assigned after inner is called)

        try:
            inner()
        except NameError as err:
            return _unbound_cell(err, inner)
        later = 1.0  # noqa: F841

    assert outer() == "later"
