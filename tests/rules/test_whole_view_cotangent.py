"""The cotangent of a view of a whole array with unit axes inserted (`a[None]`,
`a[:, None, :]`, `a[..., None]`) is the incoming cotangent with those axes taken out
(zygote_py/rules/indexing.py: _whole_view_shape), checked against the general rule (zeros
with the cotangent assigned) and central differences, also where the result is accumulated
into, written into, or read twice."""

import numpy as np
import pytest
from derivative_checks import fd_gradient

import zygote_py as zp
from zygote_py.rules import indexing
from zygote_py.runtime.helpers import array_shape

RNG = np.random.default_rng(29)
S = slice(None)

WHOLE_VIEWS = [None, (None, S, S), (S, None, S), (S, S, None), (Ellipsis, None), (None, Ellipsis),
               (S,), (S, S), (None, None, Ellipsis, None), (S, Ellipsis, None), Ellipsis]
NOT_WHOLE = [(S, S, S), (Ellipsis, Ellipsis), (slice(1, None),), (slice(None, None, -1),), 0,
             (S, 0), (slice(0, None), None), (np.array([0, 1]),), True]


@pytest.mark.parametrize("index", WHOLE_VIEWS)
def test_the_shape_is_numpys(index):
    a = np.zeros((4, 3))
    assert indexing._whole_view_shape(index, a.shape) == a[index].shape


@pytest.mark.parametrize("index", NOT_WHOLE)
def test_other_indices_are_not_whole_views(index):
    assert indexing._whole_view_shape(index, (4, 3)) is None


@pytest.mark.parametrize("index", WHOLE_VIEWS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("saved", ["array", "shape"])
def test_equals_zeros_with_the_cotangent_assigned(index, dtype, saved):
    a = (10 * RNG.standard_normal((4, 3))).astype(dtype)
    g = RNG.standard_normal(a[index].shape).astype(np.float32 if dtype is np.float32 else np.float64)
    want = np.zeros(a.shape, dtype=g.dtype)
    want[index] = g
    got = indexing._index_cotangent(g, a if saved == "array" else array_shape(a), index)
    assert got.shape == a.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_a_complex_cotangent_of_a_real_array_keeps_the_general_rule():
    a = RNG.standard_normal((4, 3))
    g = RNG.standard_normal((1, 4, 3)) + 1j
    got = indexing._index_cotangent(g, a, (None, S, S))
    assert got.dtype == np.float64  # the real part, as the general rule gives
    np.testing.assert_array_equal(got, g.real[0])


def _pairwise(x):
    p = np.reshape(x, (6, 2))
    d = p[None, :, :] - p[:, None, :]
    return np.sum(np.tanh(d) * d[..., :1])


def _read_twice(x):
    y = x[None, :]
    return np.sum(y * np.cos(x)) + np.sum(y[0] ** 3) + np.sum(x[:, None] * x[None, :])


def _accumulated_in_a_loop(x):
    total = 0.0
    for k in range(4):
        total = total + np.sum(np.sin(k * x[None, :]) * x[:, None])
    return total


def _written_after(x):
    u = x * 1.0
    v = u[None, :]
    u[2] = 5.0  # writes through the view as well
    u[3:6] = u[3:6] * v[0, :3]
    return np.sum(v * v) + np.sum(u)


@pytest.mark.parametrize("f", [_pairwise, _read_twice, _accumulated_in_a_loop, _written_after])
def test_gradients_against_central_differences(f):
    x = RNG.standard_normal(12)
    np.testing.assert_allclose(zp.gradient(f, x)[0], fd_gradient(f, x), rtol=1e-6, atol=1e-8)
