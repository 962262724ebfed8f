"""Python's operator protocol and NumPy's hand-off to objects while running
(calls/protocols.py, resolve.operator_candidates / numpy_handoff): the
object's own methods decide, or the call is an error -- never the rule written
for arrays.  End-to-end classes are in tests/corpus/operator_overloading.py."""

import operator
from typing import NamedTuple

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.resolve import is_plain_operand, numpy_handoff, operator_candidates


class Pair(NamedTuple):
    a: float
    b: np.ndarray

    def __mul__(self, other):
        return Pair(self.a * other, self.b * other)

    def __rmul__(self, other):
        return Pair(other - self.a, self.b)

    def __getitem__(self, i):
        return self.b[i] * self.a

    def sum(self, axis=None, out=None):
        return self.a * np.sum(self.b)


class Opaque:
    """No NumPy protocol: ndarray * opaque makes an object array, each element's product
    by __rmul__."""

    def __init__(self, w):
        self.w = w

    def __rmul__(self, other):
        return self.w * other


class UserArray:
    """A user array type: NumPy hands ufuncs to __array_ufunc__."""

    def __init__(self, w):
        self.w = w

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        unwrapped = [v.w if isinstance(v, UserArray) else v for v in inputs]
        return UserArray(getattr(ufunc, method)(*unwrapped, **kwargs))


def _fd(f, x, h=1e-6):
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = h
        out[i] = (f(x + step) - f(x - step)) / (2 * h)
    return out


def pair_ops(p, x):
    q = p * x       # Pair.__mul__
    r = 2.0 * p     # float declines: Pair.__rmul__ (other - a: the sign matters)
    return np.sum(q.b) + q.a * r.a + p[1] + np.sum(p)  # Pair.__getitem__, Pair.sum


def test_a_namedtuple_passed_in_gets_its_own_methods():
    a, b, x = 0.7, np.array([0.5, -1.2, 2.0]), 1.3
    (pa, pb), gx = zp.gradient(pair_ops, Pair(a, b), x)
    np.testing.assert_allclose(pa, _fd(lambda v: pair_ops(Pair(float(v), b), x), a), rtol=1e-6)
    np.testing.assert_allclose(pb, _fd(lambda v: pair_ops(Pair(a, v), x), b), rtol=1e-6)
    np.testing.assert_allclose(gx, _fd(lambda v: pair_ops(Pair(a, b), float(v)), x), rtol=1e-6)


def through_a_value(m, x):
    mul = operator.mul  # the operator as a value: dispatched, and still by the protocol
    return mul(m, x).a + mul(x, m).a


def test_an_operator_called_as_a_value_follows_the_protocol():
    b = np.array([1.0, 2.0])
    _, gx = zp.gradient(through_a_value, Pair(0.4, b), 1.5)
    # Pair.__mul__: a * x -> d/dx = 0.4; Pair.__rmul__: x - a -> d/dx = 1
    assert gx == pytest.approx(1.4)


def ndarray_times_opaque(x, o):
    return np.sum(x * o)


def test_a_builtin_method_applied_to_an_object_is_an_error_not_a_number():
    with pytest.raises(zp.ZygoteError, match="builtin ndarray method"):
        zp.gradient(ndarray_times_opaque, np.ones(2), Opaque(2.0))


def user_array_sin(x, u):
    return np.sum(np.sin(u).w * x)


def test_a_numpy_rule_is_never_applied_to_a_user_array_type():
    with pytest.raises(zp.ZygoteError, match="object of type UserArray"):
        zp.gradient(user_array_sin, np.ones(2), UserArray(np.ones(2)))


def opaque_plus(x, o):
    return o + x


def test_operands_without_methods_raise_pythons_type_error():
    with pytest.raises(TypeError, match="unsupported operand"):
        zp.gradient(opaque_plus, 1.0, Opaque(1.0))


def test_plain_operands_are_exactly_the_builtin_and_numpy_types():
    assert all(map(is_plain_operand, (1.0, 2, np.ones(2), np.float64(1), (1, 2), [1], None)))
    assert not any(map(is_plain_operand, (Pair(1.0, np.ones(1)), Opaque(1), np.matrix([[1.0]]))))


def test_candidates_follow_pythons_order():
    p = Pair(1.0, np.ones(1))
    assert operator_candidates(operator.mul, (1.0, 2.0)) is None
    first, second = operator_candidates(operator.mul, (2.0, p))
    assert first[1] == 2.0 and second[0] is Pair.__rmul__ and second[3] == (0,)

    class Sub(Pair):
        def __rmul__(self, other):
            return 0.0

    s = Sub(1.0, np.ones(1))
    (first, second) = operator_candidates(operator.mul, (p, s))
    assert first[0] is Sub.__rmul__  # a subclass overriding the reflected method goes first


def test_numpy_hands_reductions_to_the_objects_method():
    p = Pair(1.0, np.ones(1))
    assert numpy_handoff(np.sum, (p,), {"axis": 0}) == ("sum", {"axis": 0, "out": None})
    assert numpy_handoff(np.sum, (np.ones(2),), {}) is None
    assert numpy_handoff(np.sum, (Opaque(1.0),), {}) is None  # no sum method: not handed over
    averaged = type("Averaged", (), {"mean": lambda self, **kw: 0.0})()
    assert numpy_handoff(np.mean, (averaged,), {"keepdims": True}) == \
        ("mean", {"axis": None, "dtype": None, "out": None, "keepdims": True})
