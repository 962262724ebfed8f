"""A standalone module (zygote-py grad) of an einsum with three operands: the rule plans its
contraction with a cached helper of zygote_py's (functools.lru_cache), which the builder
once refused (NotStandalone); its source is copied as any other helper's."""

import types

import numpy as np

import zygote_py as zp
from zygote_py.aot.module import standalone_module


def three_operands(x):
    A = x.reshape(2, 2)
    return np.einsum("ij,jk,ki->", A, A, A) + np.einsum("ii", A) * np.einsum("i,i", x, x)


def test_the_module_matches_zp_gradient_and_finite_differences():
    x = np.array([0.7, -0.4, 1.3, 0.25])
    text = standalone_module(three_operands, args=(x.copy(),))
    module = types.ModuleType("three_operands_module")
    exec(compile(text, "<three_operands_module>", "exec", dont_inherit=True), module.__dict__)
    g = module.grad_three_operands(x.copy())
    g = g[0] if isinstance(g, tuple) else g
    assert np.allclose(g, zp.gradient(three_operands, x.copy())[0])
    h = 1e-6
    fd = np.array([(three_operands(x + h * e) - three_operands(x - h * e)) / (2 * h)
                   for e in np.eye(4)])
    assert np.allclose(g, fd, atol=1e-6)
