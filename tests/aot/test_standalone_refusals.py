"""aot/standalone_runtime.py refuses what zygote_py refuses in process, at the calls a
dumped module resolves while running: an option a rule has no derivative for
(`where=` of np.max), a complex operand of a rule declared for real values, a
function with no derivative for reals that varies for complex values (np.sign), and
an object operator (`obj // 2`) goes to the object's own method in both."""

from __future__ import annotations

import inspect
import operator
import types

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.aot import standalone_runtime as sr
from zygote_py.aot.module import standalone_module
from zygote_py.calls import dispatch
from zygote_py.rules import registry
from zygote_py.runtime.complex_guard import VARY_ON_COMPLEX


def _apply(fn, x, **kw):
    return fn(x, **kw)


def reduce_twice(x, fn, fn2):
    return _apply(fn, x, where=x > 0, initial=0.0) * 2.0 + _apply(fn2, x)


def _load(text: str, name: str):
    module = types.ModuleType(name)
    exec(compile(text, f"<{name}>", "exec"), module.__dict__)
    return module


X = np.array([0.5, -1.0, 2.0])


def test_a_dumped_module_refuses_where_as_in_process():
    module = _load(standalone_module(reduce_twice, args=(X, np.sum, np.max)), "reduce_twice")
    (g, _, _) = module.grad_reduce_twice(X, np.sum, np.max)
    np.testing.assert_allclose(g, [2.0, 0.0, 3.0])
    with pytest.raises(zp.NoDerivativeRule, match="numpy.max has no derivative with where="):
        zp.gradient(reduce_twice, X, np.max, np.sum, wrt=0)
    with pytest.raises(TypeError, match="numpy.max has no derivative with where= given"):
        module.grad_reduce_twice(X, np.max, np.sum)


def _table_rule(rule):
    """The row a dumped module holds for a rule (aot/layout.py: rule_text)."""
    complex_form = registry.for_complex(rule)
    return (inspect.Signature(list(rule.params)), rule.vjp, tuple(rule.diff), rule.meta.get("sequence"),
            complex_form.vjp if complex_form is not None else None,
            tuple(rule.meta.get("unsupported", ())), rule.qualname)


def test_complex_operands_are_refused_where_the_rule_is_for_reals(monkeypatch):
    monkeypatch.setattr(sr, "FUNCTION_RULES", {f: _table_rule(registry.function_rule(f))
                                               for f in (np.arctan2, np.sin)})
    monkeypatch.setattr(sr, "NONDIFF", {np.sign})
    z = X * (1 + 1j)
    y, back = sr.call(np.sin, (z,), (None,), "here:1:1")  # declared for complex values
    _, in_process = dispatch.call(np.sin, (z,), (None,), None)
    np.testing.assert_allclose(back(np.ones(3))[1], in_process(np.ones(3))[1])
    with pytest.raises(TypeError, match="here:1:1: the derivative rule of numpy.arctan2 is for real"):
        sr.call(np.arctan2, (z, X), (None, None), "here:1:1")
    with pytest.raises(TypeError, match="here:1:1: sign of a complex value"):
        sr.call(np.sign, (z,), (None,), "here:1:1")
    y, back = sr.call(np.sign, (X,), (None,), "here:1:1")  # real: no derivative, as in process
    assert back(np.ones(3)) == (None, None)


def test_the_complex_table_names_the_same_functions():
    assert {getattr(np, name) for name in sr.VARY_ON_COMPLEX_NAMES} == set(VARY_ON_COMPLEX)


class Halves:
    def __init__(self, a):
        self.a = a

    def __floordiv__(self, k):
        return self.a * np.sin(self.a) / k


def halves_loss(h, x):
    return (h // 2.0) * x


def test_an_object_operator_goes_to_its_method_in_both():
    module = _load(standalone_module(halves_loss, args=(Halves(0.7), 3.0)), "halves_loss")
    expected = 3.0 * (np.sin(0.7) + 0.7 * np.cos(0.7)) / 2.0
    assert zp.gradient(halves_loss, Halves(0.7), 3.0)[0]["a"] == pytest.approx(expected)
    assert module.grad_halves_loss(Halves(0.7), 3.0)[0]["a"] == pytest.approx(expected)
