"""A generator expression is a one-shot iterator, as in Python: next() advances it, a
second read finds it spent. It is computed as a list in advance and handed straight to a
library call that reads it once (sum, np.array, zip) as that list. Before, every
generator expression was a list: next() of one was an internal TypeError, and reading one
twice counted its items twice (a silently wrong value and gradient)."""

import generator_cases as cases
import numpy as np
import pytest

import zygote_py as zp


def central(f, x, h=1e-6):
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        out[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


def test_next_of_a_generator_expression():
    value, (g,) = zp.withgradient(cases.next_of_a_generator, 0.5)
    assert value == cases.next_of_a_generator(0.5) == 1.0
    assert g == pytest.approx(2.0, rel=1e-12)


def test_next_then_the_rest_of_a_named_generator():
    x = np.array([1.0, 2.0, 3.0])
    value, (g,) = zp.withgradient(cases.next_then_the_rest, x)
    assert value == pytest.approx(cases.next_then_the_rest(x)) and value == pytest.approx(23.0)
    np.testing.assert_allclose(g, [20.0, 4.0, 6.0], rtol=1e-12)
    np.testing.assert_allclose(g, central(cases.next_then_the_rest, x), rtol=1e-7)


@pytest.mark.parametrize("f", [cases.summed_twice, cases.passed_to_a_function])
def test_a_generator_read_twice_is_refused_not_counted_twice(f):
    x = np.array([1.0, 2.0, 3.0])
    assert f(x) == 14.0  # Python: the second read finds nothing
    with pytest.raises(zp.ZygoteError, match="read by more than one call"):
        zp.gradient(f, x)


def test_generators_handed_straight_to_calls():
    x = np.array([0.3, -0.7, 1.1])
    value, (g,) = zp.withgradient(cases.straight_into_calls, x)
    assert value == pytest.approx(cases.straight_into_calls(x), rel=1e-12)
    np.testing.assert_allclose(g, 2 * x + np.cos(x), rtol=1e-12)
    np.testing.assert_allclose(g, central(cases.straight_into_calls, x), rtol=1e-7)
