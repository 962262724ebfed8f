"""The issue-15 NumPy rules through zp.gradient, against central finite differences:
hand-written convolutions (sliding_window_view, as_strided), np.interp with active knots,
np.cov / np.corrcoef, np.block, np.trapezoid, np.polyval and np.linalg.eig / eigvals (whose
results are complex: docs/complex.md); and the refusals (as_strided outside its argument,
eigenvectors at a repeated eigenvalue)."""

from __future__ import annotations

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient
from numpy.lib.stride_tricks import as_strided, sliding_window_view

import zygote_py as zp

RNG = np.random.default_rng(11)


def _check(loss, *args):
    grads = zp.gradient(loss, *args)
    want = numerical_gradient(loss, args)
    for i, (g, fd, a) in enumerate(zip(grads, want, args)):
        assert_gradient_matches(g, fd, a, f"arg{i}", atol=1e-6, rtol=1e-5)
    return grads


def test_convolution_written_with_sliding_windows():
    def loss(x, kernel):
        windows = sliding_window_view(x, kernel.shape)  # (6, 4, 3, 2): overlapping reads
        out = np.einsum("ijkl,kl->ij", windows, kernel)
        return np.sum(np.tanh(out) ** 2)

    _check(loss, RNG.standard_normal((8, 5)), RNG.standard_normal((3, 2)))


def test_convolution_written_with_as_strided():
    def loss(x, kernel):
        n = x.shape[0] - kernel.shape[0] + 1
        step = x.strides[0]
        windows = as_strided(x, shape=(n, kernel.shape[0]), strides=(step, step))
        return np.sum((windows @ kernel) ** 2)

    _check(loss, RNG.standard_normal(9), RNG.standard_normal(3))


def test_as_strided_reading_outside_its_argument_is_refused():
    def loss(x):
        return np.sum(as_strided(x, shape=(3,), strides=(x.strides[0] * 2,)))

    with pytest.raises(zp.NoDerivativeRule, match="outside"):
        zp.gradient(loss, np.arange(4.0))


def test_as_strided_of_a_broadcast_view_is_refused():
    def loss(x):
        wide = np.broadcast_to(x, (3, 2))
        return np.sum(as_strided(wide, shape=(2, 2), strides=wide.strides))

    with pytest.raises(zp.NoDerivativeRule, match="overlap"):
        zp.gradient(loss, np.arange(2.0))


def test_interp_with_active_knots():
    def loss(knots_raw, values, x):
        knots = np.cumsum(np.exp(knots_raw))  # increasing, and depending on the inputs
        return np.sum(np.interp(x, knots, values ** 2, left=0.1) * np.arange(x.size))

    _check(loss, RNG.standard_normal(5) * 0.3, RNG.standard_normal(5),
           np.array([0.5, 1.7, 2.9, 4.1, 7.5, 0.9]))


def test_covariance_and_correlation_in_a_loss():
    def loss(data, other):
        c = np.cov(data, rowvar=False)
        r = np.corrcoef(data[:, 0], other)
        return np.sum(np.linalg.inv(c + np.eye(3)) * c) + np.sum(r ** 3) + np.cov(other, data[:, 1])[0, 1]

    _check(loss, RNG.standard_normal((7, 3)), RNG.standard_normal(7))


def test_cov_with_frequency_weights_and_a_keyword_operand():
    weights = np.array([1, 2, 1, 3, 1])

    def loss(a, b):
        return np.sum(np.cov(a, y=b, fweights=weights, ddof=0) ** 2) + np.corrcoef(a, y=b)[0, 1]

    _check(loss, RNG.standard_normal(5), RNG.standard_normal(5))


def test_cov_with_active_weights_is_refused():
    def loss(a, w):
        return np.sum(np.cov(a, aweights=w))

    with pytest.raises(zp.NoDerivativeRule, match="aweights"):
        zp.gradient(loss, RNG.standard_normal(4), np.ones(4))


def test_block_matrix():
    def loss(a, b, s):
        m = np.block([[a, b], [b.T, s * np.eye(2)]])
        return np.sum(m @ m) + np.trace(np.block([[a, a], [a, a]]))

    _check(loss, RNG.standard_normal((2, 2)), RNG.standard_normal((2, 2)), 0.7)


@pytest.mark.skipif(not hasattr(np, "trapezoid"), reason="np.trapezoid needs NumPy 2.0")
def test_trapezoid_and_polyval():
    def loss(coeffs, t):
        samples = np.polyval(coeffs, t)
        return np.trapezoid(samples ** 2, t) + np.trapezoid(samples, dx=0.1)

    _check(loss, RNG.standard_normal(4), np.sort(RNG.uniform(0, 2, 6)))


def test_eigenvalues_of_a_non_symmetric_matrix():
    def loss(a):
        w = np.linalg.eigvals(a)
        return np.sum(np.abs(w) ** 2) + np.max(np.real(w))

    _check(loss, RNG.standard_normal((4, 4)))


def test_eig_spectral_radius_and_a_gauge_invariant_eigenvector_loss():
    def loss(a):
        w, v = np.linalg.eig(a)
        return np.sum(np.abs(w)) + np.sum(np.abs(v[0]) ** 2) + np.real(np.sum(w * w))

    blocks = np.zeros((4, 4))
    blocks[:2, :2] = [[1.0, 2.0], [-2.0, 1.0]]
    blocks[2:, 2:] = [[-1.5, 0.0], [0.0, 0.5]]
    basis = np.eye(4) + 0.3 * RNG.standard_normal((4, 4))
    _check(loss, basis @ blocks @ np.linalg.inv(basis))


def test_eig_of_a_complex_matrix():
    def loss(a):
        result = np.linalg.eig(a)
        return np.sum(np.abs(result.eigenvectors[1:]) ** 2) + np.sum(np.imag(result.eigenvalues))

    _check(loss, RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3)))


def test_eig_eigenvalues_feed_a_real_only_rule_guarded():
    """A real matrix's eigenvalues may be complex: a real-only rule is guarded, not fooled."""
    def loss(a):
        return np.real(np.sum(np.maximum(np.linalg.eigvals(a), 0.0)))

    rotation = np.array([[0.0, -1.0], [1.0, 0.0]])
    with pytest.raises(zp.NoDerivativeRule, match="maximum"):
        zp.gradient(loss, rotation)


def test_eigenvectors_at_a_repeated_eigenvalue_are_refused():
    def loss(a):
        _, v = np.linalg.eig(a)
        return np.sum(np.abs(v[0]))

    with pytest.raises(zp.NoDerivativeRule, match="repeated"):
        zp.gradient(loss, np.diag([1.0, 1.0, 2.0]))


# --- np.gradient inside a loss, np.real_if_close of a nearly real array ---------------


def finite_difference_energy(u, h):
    du_dx, du_dy = np.gradient(u, h, 2.0 * h)
    return np.sum(du_dx ** 2 + np.sin(du_dy)) + np.sum(np.gradient(u[0], edge_order=2) ** 3)


def test_gradient_of_a_grid_function():
    _check(lambda u: finite_difference_energy(u, 0.25), RNG.standard_normal((5, 4)))


def nearly_real_energy(x):
    z = x * np.exp(1e-300j)  # complex dtype, imaginary parts far below real_if_close's tol
    return np.sum(np.real_if_close(z) ** 2)


def test_real_if_close_of_a_nearly_real_array_is_its_real_part():
    x = RNG.standard_normal(4)
    got = _check(nearly_real_energy, x)
    np.testing.assert_allclose(got[0], 2.0 * x)
