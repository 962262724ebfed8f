"""A module global holding numbers (or a tuple of them) passed to a function that writes
into its argument with `y op= v`: nothing can be written into such a value, so the call
is not a write into program state.  The code is specialised on that (the guard
"immutable", frontend/lower_expr.py) and rebuilt, and then refused, once the global holds
an array.  Checked in reverse mode, forward mode and Hessians against central differences."""

from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.runtime.writes import immutable_value

CONFIG = (0.5, 0.2)
GAIN = 2.0


class Settings(NamedTuple):
    scale: float
    shift: float


SETTINGS = Settings(0.7, 0.1)


def model(x, cfg):
    s, v = cfg
    s -= v  # a number: rebound, as in Python
    return np.sum(np.sin(x) * s * x)


def with_config(x):
    return model(x, CONFIG)


def with_settings(x):
    return model(x, SETTINGS)


def rescale(x, y):
    y -= 1.0
    y *= 3.0
    return np.sum(x * x * y)


def with_gain(x):
    return rescale(x, GAIN)


X = np.array([0.3, 1.1, -0.7])
DIRECTION = np.array([1.0, -0.5, 0.25])


def central(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


def expected_gradient(x, s):
    return s * (np.cos(x) * x + np.sin(x))


@pytest.mark.parametrize("f, s", [(with_config, 0.3), (with_settings, 0.6)])
def test_a_tuple_global_unpacked_and_updated_in_the_callee(f, s):
    g, = zp.gradient(f, X)
    np.testing.assert_allclose(g, expected_gradient(X, s), rtol=1e-12)
    np.testing.assert_allclose(g, central(f, X), rtol=1e-7, atol=1e-9)
    _, t = zp.jvp(f, (X,), (DIRECTION,))
    assert t == pytest.approx(float(expected_gradient(X, s) @ DIRECTION), rel=1e-12)
    hessian = zp.hessian(f, X)
    expected = np.diag(s * (2 * np.cos(X) - np.sin(X) * X))
    np.testing.assert_allclose(hessian, expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(
        hessian, np.array([central(lambda z, i=i: zp.gradient(f, z)[0][i], X) for i in range(X.size)]),
        rtol=1e-6, atol=1e-7)


def test_a_number_global_updated_in_the_callee():
    g, = zp.gradient(with_gain, X)
    np.testing.assert_allclose(g, 2 * X * 3.0 * (GAIN - 1.0), rtol=1e-12)
    np.testing.assert_allclose(g, central(with_gain, X), rtol=1e-7)
    _, t = zp.jvp(with_gain, (X,), (DIRECTION,))
    assert t == pytest.approx(float(2 * X * 3.0 * (GAIN - 1.0) @ DIRECTION), rel=1e-12)
    np.testing.assert_allclose(zp.hessian(with_gain, X), np.eye(3) * 6.0 * (GAIN - 1.0), rtol=1e-12)
    assert GAIN == 2.0


def test_the_code_follows_the_global_and_refuses_once_it_holds_an_array(monkeypatch):
    zp.gradient(with_config, X)
    monkeypatch.setattr(__import__(__name__), "CONFIG", (0.9, 0.2))  # still numbers: new values
    np.testing.assert_allclose(zp.gradient(with_config, X)[0], expected_gradient(X, 0.7), rtol=1e-12)
    held = np.array([0.5, 0.6, 0.7])
    monkeypatch.setattr(__import__(__name__), "CONFIG", (held, 0.2))
    for differentiate in (lambda: zp.gradient(with_config, X),
                          lambda: zp.jvp(with_config, (X,), (DIRECTION,)),
                          lambda: zp.hessian(with_config, X)):
        with pytest.raises(zp.MutationError, match="module global 'CONFIG'"):
            differentiate()
    np.testing.assert_array_equal(held, [0.5, 0.6, 0.7])  # refused before anything ran
    monkeypatch.setattr(__import__(__name__), "CONFIG", (0.5, 0.2))
    np.testing.assert_allclose(zp.gradient(with_config, X)[0], expected_gradient(X, 0.3), rtol=1e-12)


def test_a_global_array_passed_to_the_same_function_is_still_refused(monkeypatch):
    monkeypatch.setattr(__import__(__name__), "GAIN", np.array([2.0, 3.0, 4.0]))
    with pytest.raises(zp.MutationError, match="module global 'GAIN'"):
        zp.gradient(with_gain, X)


Point = namedtuple("Point", "x y")


class Logged(NamedTuple):
    value: float

    def __isub__(self, other):  # an in-place operator of its own: not plain data
        return self


class Subclassed(float):
    pass


@pytest.mark.parametrize("value, immutable", [
    (1, True), (0.5, True), (1j, True), (True, True), ("text", True), (b"x", True), (None, True),
    (np.float64(1.0), True), (np.int32(3), True), (np.bool_(True), True),
    ((0.5, (1, "a"), None), True), (Point(1.0, 2.0), True), (Settings(1.0, 2.0), True),
    (np.zeros(()), False), (np.zeros(3), False), ((1.0, np.zeros(2)), False), ([1.0], False),
    ({"a": 1.0}, False), (Logged(1.0), False), (Subclassed(1.0), False), (Point([1.0], 2.0), False),
    (frozenset({1.0}), False),
])
def test_immutable_values(value, immutable):
    assert immutable_value(value) is immutable
