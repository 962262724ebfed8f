"""runtime/helpers.py: unbroadcast sums a run of middle axes as a product with ones (NumPy's
reduction over a middle axis is several times slower).  The sums agree with np.sum to
rounding, keep dtypes, non-finite entries and shapes; the N-body gradient that uses them
is checked against central differences."""

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.runtime.helpers import unbroadcast


def reference(g, xshape):
    extra = g.ndim - len(xshape)
    out = np.sum(g, axis=tuple(range(extra))) if extra else g
    axes = tuple(i for i, n in enumerate(xshape) if n == 1 and out.shape[i] != 1)
    return np.sum(out, axis=axes, keepdims=True) if axes else out


@pytest.mark.parametrize("gshape, xshape", [
    ((32, 32, 3), (32, 1, 3)),      # N-body: the middle axis (the product path)
    ((4, 5, 6, 7), (4, 1, 1, 7)),   # a run of two middle axes
    ((3, 32, 32, 3), (32, 1, 3)),   # leading axes first, then the middle one
    ((32, 32, 3), (1, 32, 1)),      # not one run between kept axes: np.sum
    ((2, 3, 4), (2, 1, 4)),         # too small to pay: np.sum
    ((8, 64, 128), (128,)),         # leading axes only
])
def test_unbroadcast_sums_as_np_sum_does(gshape, xshape):
    g = np.random.default_rng(0).standard_normal(gshape)
    out = unbroadcast(g, np.zeros(xshape))
    assert out.shape == xshape and out.dtype == g.dtype
    np.testing.assert_allclose(out, reference(g, xshape), rtol=1e-13, atol=1e-13)


def test_float32_strided_and_non_finite_cotangents():
    rng = np.random.default_rng(1)
    g32 = rng.standard_normal((16, 16, 4)).astype(np.float32)
    out = unbroadcast(g32, np.zeros((16, 1, 4), np.float32))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, g32.sum(axis=1, keepdims=True), rtol=1e-5)
    strided = rng.standard_normal((16, 32, 8))[:, ::2, :]  # not contiguous: np.sum
    np.testing.assert_allclose(unbroadcast(strided, np.zeros((16, 1, 8))),
                               strided.sum(axis=1, keepdims=True), rtol=1e-13)
    g = rng.standard_normal((8, 8, 4))
    g[1, 2, 3], g[5, 0, 0], g[5, 3, 0], g[6, 1, 2] = np.inf, np.inf, -np.inf, np.nan
    out = unbroadcast(g, np.zeros((8, 1, 4)))
    expected = g.sum(axis=1, keepdims=True)
    assert out[1, 0, 3] == np.inf and np.isnan(out[5, 0, 0]) and np.isnan(out[6, 0, 2])
    finite = np.isfinite(expected)
    np.testing.assert_allclose(out[finite], expected[finite], rtol=1e-13)


def pairwise(pos):
    d = pos[None, :, :] - pos[:, None, :]
    r2 = np.sum(d * d, axis=-1) + 0.1
    return np.sum(np.sum(d, axis=1) ** 2) + np.sum(1.0 / r2)


def test_a_pairwise_gradient_through_the_middle_axis_sum():
    pos = np.random.default_rng(2).standard_normal((20, 3))
    (g,) = zp.gradient(pairwise, pos)
    h = 1e-6
    fd = np.zeros_like(pos)
    for i in np.ndindex(pos.shape):
        up, down = pos.copy(), pos.copy()
        up[i] += h
        down[i] -= h
        fd[i] = (pairwise(up) - pairwise(down)) / (2 * h)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-6)
