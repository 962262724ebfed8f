"""A list or tuple given to a ufunc (or an elementwise rule, np.clip) is NumPy's array of
it; the rule's body is given that array, in reverse mode and in forward mode.  Before,
bodies that compare or multiply their raw operands (`a >= b`, `a * a`, `a ** b`) raised an
internal TypeError on a list (found by the fuzzer, seed 20261302), and so did forward
mode's written-out rules (`da * b` of a list tangent)."""

import numpy as np
import pytest

import zygote_py as zp

TERMS = {
    "maximum": lambda p: np.sum(np.maximum(p, 1.0)),
    "minimum": lambda p: np.sum(np.minimum(p, 1.0)),
    "fmax": lambda p: np.sum(np.fmax(p, 1.0)),
    "fmin": lambda p: np.sum(np.fmin(p, 1.0)),
    "arctan2": lambda p: np.sum(np.arctan2(p, 2.0)),
    "power": lambda p: np.sum(np.power(p, 3.0)),
    "clip": lambda p: np.sum(np.clip(p, 0.0, 1.2)),
    "hypot": lambda p: np.sum(np.hypot(p, p)),
    # the written-out forward rules compute with their operands' operators
    "multiply": lambda p: np.sum(np.multiply(p, p)),
    "multiply by a number": lambda p: np.sum(np.multiply(p, 3.0)),
    "add": lambda p: np.sum(np.add(p, 1.0)),
    "subtract from a number": lambda p: np.sum(np.subtract(1.0, p)),
    "divide": lambda p: np.sum(np.divide(p, 2.0)),
    "divide a number": lambda p: np.sum(np.divide(2.0, p)),
    "abs": lambda p: np.sum(np.abs(p)),
    "square": lambda p: np.sum(np.square(p)),
    "sin": lambda p: np.sum(np.sin(p)),
}


def built_list(a, term):
    p = [1.0, a * 2.0, np.sin(a)]
    return term(p)


def central(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("name", sorted(TERMS))
def test_a_list_built_inside_given_to_a_ufunc(name):
    term = TERMS[name]

    def f(a):
        return built_list(a, term)

    a = 0.4
    (g,) = zp.gradient(f, a)
    assert g == pytest.approx(central(f, a), rel=1e-6, abs=1e-9)
    _, t = zp.jvp(f, (a,), (1.0,))
    assert t == pytest.approx(central(f, a), rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("container", [list, tuple])
def test_a_list_argument_keeps_its_form(container):
    p = container([0.2, 1.4])

    def f(q):
        return np.sum(np.maximum(q, 0.5) ** 2) + np.sum(np.power(q, 2.0))

    (g,) = zp.gradient(f, p)
    assert type(g) is container
    want = [central(lambda v, i=i: f(container(v if j == i else x for j, x in enumerate(p))), p[i])
            for i in range(2)]
    np.testing.assert_allclose(g, want, rtol=1e-6)
    _, t = zp.jvp(f, (p,), (container([1.0, -0.5]),))
    assert t == pytest.approx(want[0] - 0.5 * want[1], rel=1e-6)
