"""functools.reduce and itertools.starmap lowered to the loops they run
(frontend/lower_iterators.reduce_or_starmap): the function they apply is differentiated
at each step.  Both were a NoDerivativeRule with an active argument before."""

import functools
import itertools
import operator

import numpy as np
import pytest

import zygote_py as zp

X = np.array([0.7, -0.4, 1.3, 0.25])


def product_and_sum_of_squares(x):
    p = functools.reduce(operator.mul, x)
    s = functools.reduce(lambda a, b: a + b * b, x, 0.0)
    return p + s


def paired_products(x):
    return sum(itertools.starmap(operator.mul, zip(x, x[::-1]))) + \
        sum(itertools.starmap(lambda a, b, c: a * b - c, [(x[0], x[1], x[2]), (x[3], x[3], x[0])]))


def reduce_over_arrays(x):
    rows = [x * 1.0, x ** 2, np.sin(x)]
    return np.sum(functools.reduce(lambda a, b: a * b + 1.0, rows))


def _fd(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


@pytest.mark.parametrize("f", [product_and_sum_of_squares, paired_products, reduce_over_arrays])
def test_reduce_and_starmap(f):
    (g,) = zp.gradient(f, X)
    np.testing.assert_allclose(g, _fd(f, X), rtol=1e-6, atol=1e-8)
    v = np.array([1.0, -2.0, 0.5, 0.3])
    _, t = zp.jvp(f, (X,), (v,))
    np.testing.assert_allclose(t, _fd(f, X) @ v, rtol=1e-6, atol=1e-8)


def test_hessian_of_a_reduce():
    h = zp.hessian(product_and_sum_of_squares, X)
    expected = np.stack([_fd(lambda y, i=i: zp.gradient(product_and_sum_of_squares, y)[0][i], X)
                         for i in range(4)])
    np.testing.assert_allclose(h, expected, rtol=1e-5, atol=1e-6)


def test_reduce_of_an_empty_iterable_without_an_initial_value_raises():
    with pytest.raises((TypeError, StopIteration, RuntimeError)):
        zp.gradient(lambda x: functools.reduce(operator.add, x[:0]) + x[0], X)
