"""`//`, `%`, `&`, `|`, `^`, `<<`, `>>` and `~` have no derivative between numbers and
arrays, but a user's class may define them with one: the object's own method decides
(Python's protocol, reflected and augmented forms too), and its derivative is taken
-- it was silently None.  Checked against central differences."""

import numpy as np
import pytest
from corpus.finite_diff import numerical_gradient

import zygote_py as zp


class Poly:
    """A number-like object whose operators are smooth functions of its value."""

    def __init__(self, a):
        self.a = a

    def __floordiv__(self, k):
        return self.a * np.sin(self.a) / k

    def __rfloordiv__(self, k):
        return k * self.a ** 2

    def __mod__(self, k):
        return np.exp(self.a) * k

    def __and__(self, other):
        return self.a * other.a

    def __or__(self, other):
        return self.a + 2.0 * other.a

    def __xor__(self, other):
        return np.tanh(self.a - other.a)

    def __lshift__(self, k):
        return self.a * 2.0 ** k

    def __rrshift__(self, k):
        return k / (1.0 + self.a ** 2)

    def __invert__(self):
        return -3.0 * self.a


def all_operators(p, q, x):
    total = (p // 2.0) + (3.0 // p) + (p % 1.5) + (p & q) + (p | q) + (p ^ q)
    total = total + (p << 2) + (2.0 >> q) + (~p)
    r = p
    r //= 4.0  # augmented: the same protocol
    return total * x + r


def _as_floats(a, b, x):
    return all_operators(Poly(a), Poly(b), x)


@pytest.mark.parametrize("a,b,x", [(0.7, -0.3, 1.5), (-1.2, 0.4, -0.5)])
def test_object_operators_are_differentiated_by_their_methods(a, b, x):
    value, (gp, gq, gx) = zp.withgradient(all_operators, Poly(a), Poly(b), x)
    assert value == pytest.approx(all_operators(Poly(a), Poly(b), x), rel=1e-12)
    fd = numerical_gradient(_as_floats, (a, b, x))
    assert gp["a"] == pytest.approx(fd[0], rel=1e-6)
    assert gq["a"] == pytest.approx(fd[1], rel=1e-6)
    assert gx == pytest.approx(fd[2], rel=1e-6)


def plain_floor(x, v):
    return x // 0.25 + x * 2.0 + np.sum((v // 0.5) * v)


def test_between_numbers_and_arrays_they_still_carry_none():
    gx, gv = zp.gradient(plain_floor, 0.6, np.array([0.3, 1.7]))
    assert gx == pytest.approx(2.0)
    np.testing.assert_allclose(gv, [0.0, 3.0])  # (v // 0.5) is a constant factor
