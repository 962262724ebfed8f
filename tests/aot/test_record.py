"""aot/record.py: a Recording observes what run-time dispatch resolves (through the
Context's observers), and only that: no patching of the compiler or the registry."""

from __future__ import annotations

import operator
import threading

import numpy as np

import zygote_py as zp
from zygote_py import context
from zygote_py.aot.record import Recording
from zygote_py.compiler import COMPILER
from zygote_py.rules import registry


def apply(f, v):
    return f(v)  # f is a value: resolved by run-time dispatch


def helper(v):
    return np.cos(v) * v


def scaled_tanh(v):
    return np.tanh(v) * 2.0


@zp.adjoint(scaled_tanh)
def _scaled_tanh_rule(v):
    y = np.tanh(v)
    return 2.0 * y, lambda g: (2.0 * g * (1 - y * y),)


def loss(x):
    a = apply(helper, x)        # a Python function: its pullback
    b = apply(np.sin, x)        # a function with a rule
    c = apply(scaled_tanh, x)   # a function with a custom rule
    d = apply(np.floor, x)      # a non-differentiable function
    return np.sum(a * b + c + d) + np.sum(np.exp(x))  # np.exp: resolved statically


def fd_gradient(f, x, h=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        step = np.zeros_like(x)
        step[i] = h
        out[i] = (f(x + step) - f(x - step)) / (2 * h)
    return out


X = np.array([0.3, -0.7, 1.2])


def test_a_recording_notes_what_dispatch_resolved_in_first_use_order():
    with Recording() as rec:
        (g,) = zp.gradient(loss, X)
    np.testing.assert_allclose(g, fd_gradient(loss, X), rtol=1e-6, atol=1e-8)
    assert [(f, active, cells, scalars) for f, active, cells, scalars, _ in rec.pullbacks] == [
        (helper, (True,), (), (False,))]
    assert rec.pullbacks[0][4] is COMPILER.entry(helper, (True,), "pullback", (), (False,)).fn
    # a, b, c and d are whatever apply's argument returns: the operators on them and
    # the np.sum of their total are decided while running, so they are recorded too
    assert rec.function_rules == [(f, registry.function_rule(f))
                                  for f in (np.sin, operator.mul, operator.add, np.sum)]
    assert rec.custom_rules == [(scaled_tanh, _scaled_tanh_rule)]
    assert rec.nondiff == [np.floor]
    # np.exp is called by name: the compiler spliced its rule, dispatch never saw it
    assert all(f is not np.exp for f, _ in rec.function_rules)


def test_a_recording_patches_nothing_and_restores_the_context():
    before = context.current()
    lookups = {name: getattr(registry, name) for name in ("custom_rule", "function_rule", "method_rule")}
    with Recording() as rec:
        assert context.current().observers == (*before.observers, rec)
        assert "entry" not in vars(COMPILER)
        assert all(getattr(registry, name) is f for name, f in lookups.items())
        zp.gradient(loss, X)
    assert context.current() is before


def test_a_recording_sees_only_its_own_thread():
    other_thread_rules = []

    def other():
        other_thread_rules.append(zp.gradient(lambda x: np.sum(apply(np.cos, x)), X)[0])

    with Recording() as rec:
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    np.testing.assert_allclose(other_thread_rules[0], -np.sin(X), rtol=1e-12)
    assert rec.function_rules == [] and rec.pullbacks == []


class Holder:
    def __init__(self, W):
        self.W = W

    def weights(self):
        return self.W


def through_attributes(holder, x):
    # what a method returns is not known to be an array: .T, .imag and .shape are resolved
    # while running (holder.W itself would be: compiled code is specialised on it)
    W = holder.weights()
    return np.sum(x @ W.T) + np.sum(W.imag) + np.sum(W * W) * W.shape[0]


def test_a_recording_notes_attribute_rules_and_non_differentiable_attributes():
    W = np.array([[0.5, -1.0], [2.0, 0.25]])
    with Recording() as rec:
        holder_bar, x_bar = zp.gradient(through_attributes, Holder(W), X[:2])
    fd_x = fd_gradient(lambda v: through_attributes(Holder(W), v), X[:2])
    np.testing.assert_allclose(x_bar, fd_x, rtol=1e-6, atol=1e-8)
    flat = fd_gradient(lambda w: through_attributes(Holder(w.reshape(2, 2)), X[:2]), W.ravel())
    np.testing.assert_allclose(holder_bar["W"], flat.reshape(2, 2), rtol=1e-6, atol=1e-8)
    assert sorted(rec.attr_rules, key=lambda r: r[0][1]) == [
        ((np.ndarray, name), registry.attr_rule(np.ndarray, name)) for name in ("T", "imag")]
    assert rec.nondiff_attrs == [(np.ndarray, "shape")]
