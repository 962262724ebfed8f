"""Attributes computed by a class's own `__getattr__` are user code, differentiated like a
property's getter.  They once had no derivative at all (the read was taken as a plain
attribute, whose ledger slot nothing had written: a silent zero), and a `__getattr__`
that reads state set by `__init__` recursed without end when zygote_py probed the new
object for `dtype` before its `__init__` ran."""

import numpy as np
import pytest
from derivative_checks import fd_gradient

import zygote_py as zp

X = np.array([0.7, -0.4, 1.3, 0.25])
V = np.array([0.3, -1.2, 0.5, 2.0])


class Doubled:
    """Reads its table in __getattr__ with no guard (Python only calls it after __init__)."""

    def __init__(self, table):
        self._table = table

    def __getattr__(self, name):
        return self._table[name] * 2.0


class Guarded:
    def __init__(self, table):
        self._table = table

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return np.sin(self._table[name])


def built_inside(x):
    o = Doubled({"a": x[0], "b": x[1] * x[3]})
    return o.a * o.b + x[2]


def guarded_inside(x):
    o = Guarded({"a": x[0], "b": x[1]})
    return o.a * o.b + o.a ** 2


def passed_in(x, o):
    return o.a * x[0] + o.b


def _fd(f, *args):
    return fd_gradient(lambda x: f(x, *args), X)


@pytest.mark.parametrize("f", [built_inside, guarded_inside])
def test_attributes_from_getattr_of_objects_built_in_the_call(f):
    (g,) = zp.gradient(f, X.copy())
    assert np.allclose(g, _fd(f), rtol=1e-6, atol=1e-8)
    _, t = zp.jvp(f, (X.copy(),), (V,))
    assert t == pytest.approx(_fd(f) @ V, rel=1e-6, abs=1e-8)


def test_attributes_from_getattr_of_an_object_passed_in():
    o = Guarded({"a": 1.5, "b": 2.0})
    g_x, g_o = zp.gradient(passed_in, X.copy(), o)
    assert np.allclose(g_x, _fd(passed_in, o), rtol=1e-6)
    # d/da of sin(a) * x0 and d/db of sin(b)
    assert g_o["_table"]["a"] == pytest.approx(np.cos(1.5) * X[0])
    assert g_o["_table"]["b"] == pytest.approx(np.cos(2.0))


def test_a_hessian_through_getattr_of_a_built_object_is_refused():
    with pytest.raises(zp.ZygoteError):
        zp.hessian(built_inside, X.copy())


class Result(dict):
    """SciPy's result objects: attributes are the dict's items."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError as err:
            raise AttributeError(name) from err


class Scaled(dict):
    def __getattr__(self, name):
        return self[name] * 3.0


def results(x, r, s):
    return r.a * r.b * x[0] + s.c ** 2 * x[1]


def test_a_dict_whose_getattr_returns_its_items():
    # the read gives the item itself: its cotangent is keyed by the name (the hook, which
    # has a try/except, is not transformed); a hook computing something else is followed
    r, s = Result(a=1.5, b=-0.5), Scaled(c=0.7)
    g_x, g_r, g_s = zp.gradient(results, X.copy(), r, s)
    assert np.allclose(g_x, [1.5 * -0.5, (3 * 0.7) ** 2, 0, 0])
    assert g_r["a"] == pytest.approx(-0.5 * X[0]) and g_r["b"] == pytest.approx(1.5 * X[0])
    assert g_s["c"] == pytest.approx(2 * 9 * 0.7 * X[1])
