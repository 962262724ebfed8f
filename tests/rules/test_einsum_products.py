"""Einsum cotangent steps that sum nothing and are lettered like one operand run as one
broadcasting multiply (zygote_py/rules/linalg.py: _broadcast_product): the same numbers
as np.einsum, for transposed letters, size-1 axes, views, dtypes and non-arrays."""

import numpy as np
import pytest
from derivative_checks import fd_gradient

import zygote_py as zp
from zygote_py.rules import linalg

RNG = np.random.default_rng(31)


@pytest.mark.parametrize("subscripts, recipe", [
    ("ij,ijk->ijk", (1, None, (slice(None), slice(None), None))),
    ("ijk,ij->ijk", (0, None, (slice(None), slice(None), None))),
    ("j,ij->ij", (1, None, (None, slice(None)))),
    ("ji,ijk->ijk", (1, (1, 0), (slice(None), slice(None), None))),
    ("ki,ijk->ijk", (1, (1, 0), (slice(None), None, slice(None)))),
    (",ij->ij", (1, None, (None, None))),
])
def test_recipes(subscripts, recipe):
    assert linalg._broadcast_product(subscripts) == recipe


@pytest.mark.parametrize("subscripts", [
    "ij,ik->ijk",  # an outer product: neither operand is lettered like the result
    "ij,jk->ik",  # a sum
    "ii,i->i",  # a diagonal
    "ij,ij->ji",  # the result in another order than both
    "...i,...i->...i",  # an ellipsis
    "ij,ijk->ij",  # k summed
])
def test_einsum_stays_where_the_product_does_not_apply(subscripts):
    assert linalg._broadcast_product(subscripts) is None


def _operand(letters, size, dtype, transposed):
    shape = tuple(size[c] for c in letters)
    x = (3 * RNG.standard_normal(shape)).astype(dtype)
    if transposed and x.ndim >= 2:
        x = np.ascontiguousarray(np.swapaxes(x, 0, 1)).swapaxes(0, 1)  # same values, other strides
    return x


@pytest.mark.parametrize("subscripts", ["ij,ijk->ijk", "ijk,ij->ijk", "j,ij->ij", "ji,ijk->ijk",
                                        "ki,ijk->ijk", "k,ijk->ijk"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.int64])
@pytest.mark.parametrize("transposed", [False, True])
def test_the_product_equals_einsum(subscripts, dtype, transposed):
    size = {"i": 4, "j": 5, "k": 3}
    ins, _ = subscripts.split("->")
    a, b = (_operand(spec, size, dtype, transposed) for spec in ins.split(","))
    steps = ((0, 1, subscripts, linalg._broadcast_product(subscripts)),)
    got = linalg._contract_pairwise(steps, [a, b])
    want = np.einsum(subscripts, a, b)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_size_one_axes_broadcast_as_einsum_broadcasts_them():
    a = RNG.standard_normal((4, 1))
    b = RNG.standard_normal((4, 5, 3))
    steps = ((0, 1, "ij,ijk->ijk", linalg._broadcast_product("ij,ijk->ijk")),)
    np.testing.assert_array_equal(linalg._contract_pairwise(steps, [a, b]),
                                  np.einsum("ij,ijk->ijk", a, b))


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_non_arrays_go_to_einsum():
    steps = ((0, 1, "j,ij->ij", linalg._broadcast_product("j,ij->ij")),)
    b = RNG.standard_normal((2, 3))
    np.testing.assert_array_equal(linalg._contract_pairwise(steps, [[1.0, 2.0, 3.0], b]),
                                  np.einsum("j,ij->ij", [1.0, 2.0, 3.0], b))
    m = np.matrix(RNG.standard_normal((2, 3)))  # `*` is a matrix product for np.matrix
    got = linalg._contract_pairwise(((0, 1, "ij,ij->ij", (0, None, (slice(None), slice(None)))),),
                                    [m, np.asarray(m)])
    np.testing.assert_array_equal(np.asarray(got), np.asarray(m) ** 2)


@pytest.mark.parametrize("k", [0, 1, 2])
def test_nbody_cotangents_equal_the_one_loop_einsum(k):
    a, d, w = RNG.standard_normal((6, 6)), RNG.standard_normal((6, 6, 3)), RNG.standard_normal(6)
    g = RNG.standard_normal((6, 3))
    direct = [np.einsum("ik,ijk,j->ij", g, d, w), np.einsum("ik,ij,j->ijk", g, a, w),
              np.einsum("ik,ij,ijk->j", g, a, d)][k]
    np.testing.assert_allclose(linalg.einsum_operand_cotangent(g, k, "ij,ijk,j->ik", a, d, w),
                               direct, rtol=1e-12, atol=1e-12)
    v = RNG.standard_normal((6, 6))
    np.testing.assert_array_equal(linalg.einsum_operand_cotangent(v, 0, "ijk,ijk->ij", d, d),
                                  np.einsum("ij,ijk->ijk", v, d))


def test_gradient_against_central_differences():
    m = RNG.random(5) + 0.5

    def accel(x):
        p = np.reshape(x, (5, 3))
        d = p[None, :, :] - p[:, None, :]
        r2 = np.einsum("ijk,ijk->ij", d, d) + 0.01
        return np.sum(np.einsum("ij,ijk,j->ik", r2 ** -1.5, d, m) ** 2)

    x = RNG.standard_normal(15)
    np.testing.assert_allclose(zp.gradient(accel, x)[0], fd_gradient(accel, x), rtol=1e-6, atol=1e-7)
