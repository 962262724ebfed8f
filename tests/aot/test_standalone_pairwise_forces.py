"""A standalone module (zygote-py grad) of pairwise forces: the three helpers the gradient
calls there (the power's `_quotient_is_slope`, the einsum steps' `_broadcast_product`, the
whole-view index's `_whole_view_shape`) are copied into it, and it gives zp.gradient's
numbers exactly."""

import types

import numpy as np
from derivative_checks import fd_gradient

import zygote_py as zp
from zygote_py.aot.module import standalone_module


def pairwise_forces(x):
    p = np.reshape(x, (20, 3))  # 400 pairs: the power's adjoint divides y by r2
    d = p[None, :, :] - p[:, None, :]
    r2 = np.einsum("ijk,ijk->ij", d, d) + 0.01
    return np.sum(np.einsum("ij,ijk->ik", r2 ** -1.5, d) ** 2)


def test_the_module_matches_zp_gradient_and_finite_differences():
    x = np.random.default_rng(37).standard_normal(60)
    text = standalone_module(pairwise_forces, args=(x.copy(),))
    for helper in ("_quotient_is_slope", "_broadcast_product", "_whole_view_shape"):
        assert f"def _zp{helper}(" in text
    module = types.ModuleType("pairwise_forces_module")
    exec(compile(text, "<pairwise_forces_module>", "exec", dont_inherit=True), module.__dict__)
    g = module.grad_pairwise_forces(x.copy())
    g = g[0] if isinstance(g, tuple) else g
    np.testing.assert_array_equal(g, zp.gradient(pairwise_forces, x.copy())[0])
    np.testing.assert_allclose(g, fd_gradient(pairwise_forces, x), rtol=1e-6, atol=1e-7)
