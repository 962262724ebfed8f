"""A standalone module (`zygote-py grad`) of a fill loop: the write's backward written inline
(ad/reverse/writes.py: _owns_loop_cotangent) carries its helper, and the module gives the
in-process gradient, which matches central differences."""

import types

import numpy as np
from write_checks import fd_gradient

import zygote_py as zp
from zygote_py.aot.module import standalone_module


def fill(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.tanh(x[i]) * x[i]
    return np.sum(out * out)


def test_the_module_gives_the_in_process_gradient():
    text = standalone_module(fill, mode="grad")
    assert "_zp_owned_copy(" in text
    module = types.ModuleType("fill_grad")
    exec(compile(text, "<fill_grad>", "exec"), module.__dict__)  # noqa: S102 -- the module under test
    x = np.array([0.5, -0.2, 0.3, 0.9, 0.1])
    expected = fd_gradient(fill, (x,), 0)
    got = module.grad_fill(x.copy())[0]
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(got, zp.gradient(fill, x)[0])
