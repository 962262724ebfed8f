"""The shim's autograd.scipy.signal.convolve (autograd's generalised convolution, in plain
NumPy): its values against scipy.signal.convolve and tensordot, and zygote_py's gradient of
it (differentiated from source) against central finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp

scipy_signal = pytest.importorskip("scipy.signal")

from peers.autograd.shim.autograd.scipy import signal as shim_signal  # noqa: E402

RNG = np.random.default_rng(5)


@pytest.mark.parametrize("shapes", [((4,), (2,)), ((2,), (5,)), ((4, 3), (2, 2)), ((3, 3), (4, 5)),
                                    ((6, 7), (4, 1))])
@pytest.mark.parametrize("mode", ["full", "valid", "same"])
def test_plain_convolution_is_scipys(shapes, mode):
    a, b = RNG.standard_normal(shapes[0]), RNG.standard_normal(shapes[1])
    if mode == "valid" and not (all(x >= y for x, y in zip(*shapes)) or all(y >= x for x, y in zip(*shapes))):
        with pytest.raises(ValueError, match="valid"):
            shim_signal.convolve(a, b, mode=mode)
        return
    np.testing.assert_allclose(shim_signal.convolve(a, b, mode=mode), scipy_signal.convolve(a, b, mode),
                               atol=1e-12)


def test_axes_and_dot_axes_as_autograd_documents_them():
    a35, a34, a342 = RNG.standard_normal((3, 5)), RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4, 2))
    for mode in ("full", "valid"):
        np.testing.assert_allclose(shim_signal.convolve(a35, a34, axes=([1], [0]), mode=mode)[1, 2],
                                   scipy_signal.convolve(a35[1], a34[:, 2], mode))
        np.testing.assert_allclose(shim_signal.convolve(a35, a34, axes=([], []), dot_axes=([0], [0]), mode=mode),
                                   np.tensordot(a35, a34, axes=([0], [0])))
        np.testing.assert_allclose(
            shim_signal.convolve(a35, a342, axes=([1], [2]), dot_axes=([0], [0]), mode=mode)[2],
            sum(scipy_signal.convolve(a35[i], a342[i, 2], mode) for i in range(3)))


@pytest.mark.parametrize("mode", ["full", "valid", "same"])
def test_gradient_matches_finite_differences(mode):
    a, b = RNG.standard_normal((4, 3)), RNG.standard_normal((2, 3))
    weights = RNG.standard_normal(shim_signal.convolve(a, b, axes=([0], [1]), mode=mode).shape)

    def loss(a, b):
        return np.sum(shim_signal.convolve(a, b, axes=([0], [1]), mode=mode) * weights)

    got = zp.gradient(loss, a, b)
    for g, n, x in zip(got, numerical_gradient(loss, (a, b)), (a, b)):
        assert_gradient_matches(g, n, x, f"convolve {mode}", atol=1e-7, rtol=1e-6)
