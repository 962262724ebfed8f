"""A stack of matrices times one matrix, (..., m, k) @ (k, n): each cotangent is one
matrix product over the stack's rows (zygote_py/rules/linalg.py: _stack_times_matrix),
checked against the stacked formula, central differences and the strong zero."""

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.rules import linalg

from derivative_checks import fd_gradient

RNG = np.random.default_rng(17)


def stacked_cotangents(g, a, b):
    """The cotangents as a stacked product computes them, summed over the stack."""
    ga = g @ b.T
    gb = np.sum(np.swapaxes(a, -1, -2) @ g, axis=tuple(range(a.ndim - 2)))
    return ga, gb


@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 3, 4, 5), (1, 4, 5), (3, 1, 5), (2, 0, 5)])
def test_one_product_equals_the_stacked_formula(shape):
    a = RNG.standard_normal(shape)
    b = RNG.standard_normal((shape[-1], 6))
    g = RNG.standard_normal(shape[:-1] + (6,))
    want_a, want_b = stacked_cotangents(g, a, b)
    got_a = linalg.matmul_cotangent_a(g, a, b)
    got_b = linalg.matmul_cotangent_b(g, a, b)
    assert got_a.shape == a.shape and got_b.shape == b.shape
    np.testing.assert_allclose(got_a, want_a, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got_b, want_b, rtol=1e-12, atol=1e-12)


def test_views_that_are_not_contiguous():
    base = RNG.standard_normal((4, 5, 3))
    a = np.transpose(base, (2, 0, 1))  # (3, 4, 5), a view in another order
    b = RNG.standard_normal((6, 5)).T  # (5, 6), transposed
    g = np.transpose(RNG.standard_normal((6, 4, 3)), (2, 1, 0))
    want_a, want_b = stacked_cotangents(g, a, b)
    np.testing.assert_allclose(linalg.matmul_cotangent_a(g, a, b), want_a, rtol=1e-12)
    np.testing.assert_allclose(linalg.matmul_cotangent_b(g, a, b), want_b, rtol=1e-12)


def test_a_broadcast_stack_keeps_the_general_path():
    # g has more stack axes than a: a was broadcast, its cotangent sums over them
    a = RNG.standard_normal((4, 5))
    b = RNG.standard_normal((3, 5, 6))
    g = RNG.standard_normal((3, 4, 6))
    np.testing.assert_allclose(linalg.matmul_cotangent_a(g, a, b),
                               np.sum(g @ np.swapaxes(b, -1, -2), axis=0), rtol=1e-12)


def test_strong_zero_through_one_product():
    # b holds an inf; the cotangent rows that meet it are exactly zero: no nan
    a = RNG.standard_normal((2, 3, 4))
    b = RNG.standard_normal((4, 5))
    b[1, 2] = np.inf
    g = RNG.standard_normal((2, 3, 5))
    g[..., 2] = 0.0
    ga = linalg.matmul_cotangent_a(g, a, b)
    assert np.all(np.isfinite(ga))
    finite_b = np.where(np.isinf(b), 0.0, b)
    np.testing.assert_allclose(ga, g @ finite_b.T, rtol=1e-12)


def test_gradient_of_a_projection_of_a_batch_of_sequences():
    x = RNG.standard_normal((2, 3, 4, 5))
    w0 = RNG.standard_normal((5, 3))

    def loss_of_w(wflat):
        return np.sum(np.tanh(x @ wflat.reshape(5, 3)) ** 2)

    def loss_of_x(xflat):
        return np.sum(np.tanh(xflat.reshape(x.shape) @ w0) ** 2)

    gw = zp.gradient(loss_of_w, w0.ravel())[0]
    np.testing.assert_allclose(gw, fd_gradient(loss_of_w, w0.ravel()), rtol=1e-6, atol=1e-9)
    gx = zp.gradient(loss_of_x, x.ravel())[0]
    np.testing.assert_allclose(gx, fd_gradient(loss_of_x, x.ravel()), rtol=1e-6, atol=1e-9)
