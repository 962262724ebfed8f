"""zygote_py.resolve: one answer to what a call means, shared by the static
transform, run-time dispatch and standalone modules.

A table of callees is resolved through the registry and through the tables a
standalone module reads (`TableRules`), and must resolve the same; each
callee's gradient is then taken with the callee named statically (the static
transform's resolution) and passed as a value (run-time dispatch's), and both
must equal central finite differences."""

from __future__ import annotations

import math

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp
from zygote_py import resolve as rs
from zygote_py.aot import standalone_runtime as sr
from zygote_py.errors import NoDerivativeRule
from zygote_py.rules import registry


def user_function(x):
    return x * np.sin(x)


def custom_primal(x):
    return x ** 3


@zp.adjoint(custom_primal)
def _custom_primal_rule(x):
    return x ** 3, lambda g: (g * 3.0 * x ** 2,)


class Scaled:
    def __init__(self, a):
        self.a = a
        self.held = user_function

    def apply(self, x):
        return self.a * x * x

    def __call__(self, x):
        return np.tanh(self.a * x)

    @staticmethod
    def static_square(v):
        return v * v

    @classmethod
    def class_cube(cls, v):
        return v * v * v

    @property
    def doubled(self):
        return self.a * 2.0


class Built:
    """A class built by transformed code (object.__new__ and its own __init__)."""

    def __init__(self, x):
        self.x = x


class NoSource:
    """A class with its own __new__: calling it is not transformed, and has no derivative."""

    def __new__(cls, x):
        obj = super().__new__(cls)
        obj.x = x
        return obj


OBJECT = Scaled(1.5)
BOUND = OBJECT.apply
GENERATOR = np.random.default_rng(0)

# (label, callee, the kind it resolves to)
CALLEES = [
    ("custom rule", custom_primal, rs.CUSTOM),
    ("registered rule", np.sin, rs.RULE),
    ("math rule", math.exp, rs.RULE),
    ("non-differentiable", np.argmax, rs.NONDIFF),
    ("python function", user_function, rs.FUNCTION),
    ("bound method", BOUND, rs.METHOD),
    ("callable object", OBJECT, rs.CALLABLE),
    ("builtin bound method", np.ones(2).sum, rs.RECEIVER),
    ("generator method", GENERATOR.normal, rs.RECEIVER),
    ("class", Built, rs.CONSTRUCT),
    ("class with __new__", NoSource, rs.UNKNOWN),
    ("builtin without rule", vars, rs.UNKNOWN),
]


def _table_rules_for(callees, monkeypatch):
    """Fill the standalone tables with the registry's answers for these callees."""
    custom, function_rules, nondiff, method_rules = {}, {}, set(), {}
    for f in callees:
        if registry.custom_rule(f) is not None:
            custom[f] = registry.custom_rule(f)
        elif registry.function_rule(f) is not None:
            function_rules[f] = registry.function_rule(f)
        elif registry.is_nondifferentiable(f):
            nondiff.add(f)
    nondiff |= {(np.random.Generator, "normal")}
    method_rules[(np.ndarray, "sum")] = registry.method_rule(np.ndarray, "sum")
    for table, value in (("CUSTOM_RULES", custom), ("FUNCTION_RULES", function_rules),
                         ("NONDIFF", nondiff), ("METHOD_RULES", method_rules)):
        monkeypatch.setattr(sr, table, value)
    return sr.TableRules


@pytest.mark.parametrize("label,callee,kind", CALLEES, ids=[c[0] for c in CALLEES])
def test_resolve_table_in_process_and_standalone(label, callee, kind, monkeypatch):
    assert rs.resolve(callee, registry).kind == kind
    tables = _table_rules_for([c for _, c, _ in CALLEES], monkeypatch)
    assert rs.resolve(callee, tables).kind == kind


def test_receiver_methods_resolve_by_the_object():
    array = np.ones(3)
    assert rs.resolve_method(array, "sum", registry).kind == rs.RULE
    assert rs.resolve_method(np.float64(2.0), "sum", registry).kind == rs.RULE  # as a 0-d array
    assert rs.resolve_method(array, "argmax", registry).kind == rs.NONDIFF
    assert rs.resolve_method(GENERATOR, "standard_normal", registry).kind == rs.NONDIFF
    # a draw that moves with its parameters has no rule: refused where they are active
    assert rs.resolve_method(GENERATOR, "normal", registry).kind == rs.UNKNOWN
    held = rs.resolve_method(OBJECT, "held", registry)
    assert held.kind == rs.ATTRIBUTE and held.function is user_function
    assert rs.resolve_method(OBJECT, "apply", registry).kind == rs.METHOD
    assert rs.resolve_method(OBJECT, "static_square", registry).kind == rs.STATIC
    cls = rs.resolve_method(OBJECT, "class_cube", registry)
    assert cls.kind == rs.CLASS and cls.receiver is Scaled
    assert rs.resolve_method(OBJECT, "missing", registry).kind == rs.UNKNOWN


def test_attributes_resolve_by_the_object():
    assert rs.resolve_attribute(np.ndarray, "T", registry).kind == rs.RULE
    assert rs.resolve_attribute(np.float64, "T", registry).kind == rs.RULE  # as a 0-d array
    assert rs.resolve_attribute(np.ndarray, "imag", registry).kind == rs.RULE  # complex arrays
    assert rs.resolve_attribute(np.ndarray, "shape", registry).kind == rs.NONDIFF
    prop = rs.resolve_attribute(Scaled, "doubled", registry)
    assert prop.kind == rs.PROPERTY and prop.function is Scaled.doubled.fget
    assert rs.resolve_attribute(Scaled, "a", registry).kind == rs.DATA


def test_no_rule_message_names_the_callee_and_how_to_add_a_rule():
    message, hint = rs.no_rule_message(sorted)
    assert message == ("no derivative rule for builtins.sorted, which is called here with an "
                       "active argument")
    assert hint.startswith("register one with @zp.adjoint(sorted)")
    assert isinstance(rs.no_rule(sorted, None), NoDerivativeRule)


# --- the same callee, resolved statically and at run time ------------------------

def static_custom(x):
    return np.sum(custom_primal(x))


def static_sin(x):
    return np.sum(np.sin(x) * x)


def static_user(x):
    return np.sum(user_function(x))


def static_bound(x):
    return np.sum(BOUND(x))


def static_callable(x):
    return np.sum(OBJECT(x))


def dynamic(x, callee):
    return np.sum(callee(x))


AGREE = [(static_custom, custom_primal), (static_sin, lambda x: np.sin(x) * x),
         (static_user, user_function), (static_bound, BOUND), (static_callable, OBJECT)]


@pytest.mark.parametrize("static,callee", AGREE, ids=[s.__name__ for s, _ in AGREE])
@pytest.mark.parametrize("x", [0.7, np.array([0.3, -1.2, 2.0])], ids=["float", "array"])
def test_static_and_dynamic_resolution_give_the_same_gradient(static, callee, x):
    want = numerical_gradient(static, (x,))[0]
    (got_static,) = zp.gradient(static, x)
    got_dynamic = zp.gradient(dynamic, x, callee)[0]
    assert_gradient_matches(got_static, want, x, "static")
    assert_gradient_matches(got_dynamic, want, x, "dynamic")


def static_class(x):
    return NoSource(x).x


def test_unknown_callee_with_active_argument_is_no_derivative_rule_in_both():
    with pytest.raises(NoDerivativeRule, match="no derivative rule for test_resolve.NoSource"):
        zp.gradient(static_class, 0.5)
    with pytest.raises(NoDerivativeRule, match="no derivative rule for test_resolve.NoSource"):
        zp.gradient(dynamic, 0.5, NoSource)


def test_standalone_dispatch_follows_the_same_resolution(monkeypatch):
    """The standalone dispatcher, run in process on tables like a dumped module's."""
    _table_rules_for([np.argmax, custom_primal], monkeypatch)
    monkeypatch.setattr(sr, "NONDIFF", {np.argmax, (np.ndarray, "argmax")})
    x = np.array([0.5, -1.0, 2.0])
    y, back = sr.call(np.argmax, (x,), (None,), "here:1:1")
    assert y == 2 and back(1.0) == (None, None)
    y, back = sr.call_method(x, "argmax", (), (), "here:1:1")
    assert y == 2 and back(1.0) == (None,)
    y, back = sr.call(custom_primal, (x,), (None,), "here:1:1")
    np.testing.assert_allclose(back(np.ones(3))[1], 3.0 * x ** 2)
    monkeypatch.setattr(sr, "NONDIFF_ATTRS", {(np.ndarray, "imag")})
    assert sr.attribute_cotangent(x, "imag", np.ones(3)) is None
    with pytest.raises(TypeError, match="here:1:1: no derivative rule for builtins.sorted"):
        sr.call(sorted, (x,), (None,), "here:1:1")


class _Meta(type):
    """A metaclass: its attributes serve reads on the class, never on its instances."""

    @property
    def scale(cls):
        return 3.0

    def __call__(cls, *args):
        return super().__call__(*args)


class _WithMeta(metaclass=_Meta):
    def __init__(self, w):
        self.scale = w  # the instance's own data, whatever the metaclass says


def _scaled_sum(obj):
    return np.sum(obj.scale * 2.0)


def test_the_metaclass_is_not_consulted_for_instances():
    assert rs.resolve_attribute(_WithMeta, "scale", registry).kind == rs.DATA
    assert rs.class_attribute(_WithMeta, "scale") is None
    assert rs.class_attribute(_WithMeta, "__init__") is _WithMeta.__dict__["__init__"]
    assert rs.resolve(_WithMeta(1.0), registry).kind == rs.UNKNOWN  # instances are not callable
    w = np.array([1.0, -2.0])
    (g,) = zp.gradient(_scaled_sum, _WithMeta(w))
    fd = numerical_gradient(lambda v: _scaled_sum(_WithMeta(v)), (w,))[0]
    assert_gradient_matches(g["scale"], fd, w, "scale")


class _Base:
    def scale(self, v):
        return v * self.k

    @staticmethod
    def square(v):
        return v * v

    @classmethod
    def half_square(cls, v):
        return cls.square(v) * 0.5  # a static method called through cls


class _Derived(_Base):
    k = 3.0

    def scale(self, v):
        return _Base.scale(self, v) + np.sin(v)  # the base's plain function, self passed explicitly


def test_methods_called_on_a_class_resolve_from_its_namespace():
    assert rs.resolve_method(_Base, "square", registry).kind == rs.STATIC
    on_class = rs.resolve_method(_Derived, "half_square", registry)
    assert on_class.kind == rs.CLASS and on_class.receiver is _Derived
    plain = rs.resolve_method(_Base, "scale", registry)
    assert plain.kind == rs.STATIC and plain.function is _Base.__dict__["scale"]
    assert rs.resolve_method(_Base, "mro", registry).kind == rs.UNKNOWN  # the metaclass's: no source


@pytest.mark.parametrize("klass", [_Base, _Derived])
def test_a_class_passed_as_a_value_dispatches_its_methods(klass):
    def f(cls, obj, x):
        return cls.half_square(x) + obj.scale(x) * cls.square(x)

    x = 0.7
    obj = _Derived()
    g = zp.gradient(f, klass, obj, x, wrt=2)
    fd = numerical_gradient(lambda v: f(klass, obj, v), (x,))[0]
    assert_gradient_matches(g, fd, x, "x")
