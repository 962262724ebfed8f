"""A bound method used as a value gives its receiver the cotangent the call handed back
for the callee: it used to be filed under the method's name ({'step': ...}), so the
receiver's arrays got no gradient, silently."""

from __future__ import annotations

import numpy as np
import pytest

import zygote_py as zp
from tests.calls import bound_method_cases as cases
from tests.corpus.finite_diff import numerical_gradient

H = np.array([1.0, 2.0])


@pytest.mark.parametrize("f, reference", [
    (cases.passed_on, cases.written_out),
    (cases.named_then_called, cases.named_written_out),
    (cases.checkpointed_method, cases.written_out),
])
def test_the_receiver_of_a_bound_method_value_gets_its_gradient(f, reference):
    layer = cases.Layer(np.array([[0.5, -0.2], [0.3, 0.8]]))
    got_layer, got_h = zp.gradient(f, layer, H)
    fd_W, fd_h = numerical_gradient(reference, (layer.W, H))
    np.testing.assert_allclose(got_layer["W"], fd_W, rtol=1e-6)
    np.testing.assert_allclose(got_h, fd_h, rtol=1e-6)


def test_in_a_params_call():
    grads = zp.gradient(lambda: cases.params_thunk(H), zp.params(cases.LAYER.W))
    fd_W, _ = numerical_gradient(cases.written_out, (cases.LAYER.W, H))
    np.testing.assert_allclose(grads[cases.LAYER.W], fd_W, rtol=1e-6)


def test_in_a_standalone_module(tmp_path):
    from zygote_py.aot.module import standalone_module

    layer = cases.Layer(np.array([[0.5, -0.2], [0.3, 0.8]]))
    text = standalone_module(cases.passed_on, args=(layer, H))
    namespace: dict = {}
    exec(compile(text, str(tmp_path / "passed_on_grad.py"), "exec"), namespace)
    got_layer, got_h = namespace["grad_passed_on"](layer, H)
    fd_W, fd_h = numerical_gradient(cases.written_out, (layer.W, H))
    np.testing.assert_allclose(got_layer["W"], fd_W, rtol=1e-6)
    np.testing.assert_allclose(got_h, fd_h, rtol=1e-6)
