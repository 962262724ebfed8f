"""codegen/exprs.py's Binder: an object the generated code reads from its closure gets a
name that means nothing else there -- not a closure cell or global of the function being
differentiated, nor a local of the generated function.

Gradient code differentiated again (zp.hessian, reverse over reverse) is the case where
this matters: its cells are named like the binder's own names (`_zp_h0_pullback`,
`_zp_h0_pullback_2` for two pullbacks of one function h0).  The forward code of it once
bound the second pullback as `_zp_h0_pullback`, which hid the cell of the first, so both
calls ran the pullback compiled for the second call's active arguments: a Hessian of 0.0
where the right one is -0.38 (fuzz seed 20261209, program #8020)."""

import types

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.codegen.exprs import Binder

EPS = 1e-5


def fd(f, x):
    return (f(x + EPS) - f(x - EPS)) / (2 * EPS)


class Layer:
    @classmethod
    def half_square(cls, t):
        return t  # resolved while running (a classmethod): `_zp_call` in the gradient code


def h0(p0, p1):
    return (p0, np.arcsinh(p0))


def first_call_active_in_p0(a0):
    u3, u4 = h0(Layer.half_square(a0), 1.0)
    u7, u8 = h0(-1.0, a0 * 2)  # the same h0, now active in p1 only
    return u4


def second_call_first(a0):
    u7, u8 = h0(-1.0, a0 * 2)
    u3, u4 = h0(Layer.half_square(a0), 1.0)
    return u4


def both_results_used(a0):
    u3, u4 = h0(Layer.half_square(a0), 1.0)
    u7, u8 = h0(-1.0, a0 * 3.0)
    return u4 * u8 + u3


CASES = [first_call_active_in_p0, second_call_first, both_results_used]


@pytest.mark.parametrize("f", CASES)
def test_hessian_of_two_pullbacks_of_one_function(f):
    a = 0.689
    expected = fd(lambda x: zp.gradient(f, x)[0], a)
    assert abs(zp.hessian(f, a) - expected) < 1e-6
    # forward over reverse, and reverse over reverse, of the same gradient code
    _, tangent = zp.jvp(lambda x: zp.gradient(f, x)[0], (a,), (1.0,))
    assert abs(tangent - expected) < 1e-6
    (second,) = zp.gradient(lambda x: zp.gradient(f, x)[0], a)
    assert abs(second - expected) < 1e-6


def test_the_expected_second_derivative_is_not_zero():
    # the case above fails by giving 0.0: make sure the reference is far from it
    a = 0.689
    assert abs(fd(lambda x: zp.gradient(first_call_active_in_p0, x)[0], a) + 0.3847) < 1e-3


def _function_with_cell(name, value):
    """A function whose closure has one cell, `name`, holding value."""
    source = f"def outer():\n    {name} = None\n    def inner():\n        return {name}\n    return inner\n"
    namespace: dict = {}
    exec(source, namespace)  # noqa: S102
    inner = namespace["outer"]()
    inner.__closure__[0].cell_contents = value
    return inner


def test_a_bound_name_is_never_a_cell_of_the_function():
    mine = types.SimpleNamespace(__name__="h0_pullback")
    other = types.SimpleNamespace(__name__="h0_pullback")
    user = _function_with_cell("_zp_h0_pullback", mine)
    binder = Binder({}, dict(zip(user.__code__.co_freevars, user.__closure__)))
    name = binder.bind(other)
    assert name != "_zp_h0_pullback"
    assert binder.bound[name] is other
    # the user's own object is read by the user's name
    assert binder.expr_for(mine, "_zp_h0_pullback").id == "_zp_h0_pullback"


def test_a_bound_name_is_never_a_global_or_a_local():
    thing = types.SimpleNamespace(__name__="back")
    binder = Binder({"_zp_back": 1.0}, {})
    binder.local_names = {"_zp_back_2"}
    assert binder.bind(thing) == "_zp_back_3"


def test_a_global_read_by_its_name_is_not_hidden_by_a_local():
    import numpy

    binder = Binder({"np": numpy}, {})
    binder.local_names = {"np"}  # a local took the name first: bind the module instead
    expr = binder.expr_for(numpy.sin, "np.sin")
    assert expr.id != "np" and binder.bound[expr.id] is numpy.sin
    binder.local_names = set()
    assert binder.expr_for(numpy.cos, "np.cos").value.id == "np"
    assert "np" in binder.roots


def test_a_local_never_takes_a_bound_or_read_name():
    from zygote_py.codegen.naming import Liveness, Names

    names = Names(Liveness([], []), set())
    names.bound = {"_zp_back": object()}
    names.roots = {"scipy"}
    assert names.fresh("_zp_back") == "_zp_back_1"
    assert names.fresh("scipy") == "scipy_1"
