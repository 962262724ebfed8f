"""Writes through a view of an array whose memory is not in C order (a transpose, a
Fortran-ordered array, swapped axes): the cotangent (reverse) and the tangent (forward)
of the other names that share the written elements.  Both modes once lost the write when
the other name's cotangent or tangent was itself F-ordered: the helpers zero or fill flat C
positions through reshape(-1), which on an F-ordered copy is a second copy."""

import numpy as np
import pytest
from write_checks import check_writes, fd_gradient

import zygote_py as zp

W = np.array([[1.0, 2.0], [3.0, -4.0]])
W3 = np.arange(1.0, 13.0).reshape(2, 3, 2) / 7.0


def row_of_transpose_scaled(a, c):
    buf = np.stack([a, a]).T
    row = buf[0]
    row *= c
    return np.sum(buf)


def row_of_transpose_weighted(a, c):
    buf = np.stack([a, a]).T
    row = buf[0]
    row *= c
    return np.sum(buf.T * W)  # buf's cotangent arrives F-ordered


def fortran_copy_column_set(a, c):
    buf = np.asfortranarray(np.stack([a, 2.0 * a]))
    col = buf[:, 1]
    col[:] = c * col
    return np.sum(np.sin(buf) * W)


def swapped_axes_slice_added(x, c):
    buf = np.swapaxes(x * 1.0, 0, 2)  # (2, 3, 2) view of a fresh array
    part = buf[1]
    part += c * part
    return np.sum(np.cos(buf) * W3) + np.sum(x ** 2)


CASES = [
    (row_of_transpose_scaled, (np.array([0.3, -0.5]), 1.7)),
    (row_of_transpose_weighted, (np.array([0.3, -0.5]), 1.7)),
    (fortran_copy_column_set, (np.array([0.3, -0.5]), 0.9)),
    (swapped_axes_slice_added, (np.linspace(-1.0, 1.0, 12).reshape(2, 3, 2), 0.4)),
]


@pytest.mark.parametrize("f, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_follows_the_write(f, args):
    check_writes(f, *args)


@pytest.mark.parametrize("f, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_jvp_follows_the_write(f, args):
    rng = np.random.default_rng(7)
    tangents = tuple(rng.standard_normal(np.shape(a)) if np.ndim(a) else 0.8 for a in args)
    _, out_dot = zp.jvp(f, args, tangents)
    expected = sum(np.sum(fd_gradient(f, args, k) * t) for k, t in enumerate(tangents))
    np.testing.assert_allclose(out_dot, expected, rtol=1e-6, atol=1e-7)
