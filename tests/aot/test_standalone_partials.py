"""A functools.partial made inside the function, in a standalone module: the copied
partial_closure (runtime/partials.py) and the closure it makes are found by the names
they have in the module, and the gradient is the in-process one."""

from __future__ import annotations

import functools
import types

import numpy as np

import zygote_py as zp
from zygote_py.aot.module import standalone_module


def scaled_tanh(x, w, scale=1.0):
    return np.sum(np.tanh(x * w)) * scale


def loss_through_partial(x, w):
    return functools.partial(scaled_tanh, x, scale=2.0)(w)


def test_a_partial_made_inside_in_a_standalone_module():
    x, w = np.array([0.1, 0.2, 0.3]), np.array([1.0, 2.0, -3.0])
    module = types.ModuleType("partial_module")
    exec(compile(standalone_module(loss_through_partial, args=(x, w)), "<partial_module>", "exec"),
         module.__dict__)
    got = module.grad_loss_through_partial(x, w)
    want = zp.gradient(loss_through_partial, x, w)
    for g, expected in zip(got, want):
        np.testing.assert_allclose(g, expected, rtol=1e-12)
    sech2 = 1.0 - np.tanh(x * w) ** 2
    np.testing.assert_allclose(want[1], 2.0 * x * sech2, rtol=1e-12)  # the closed form
