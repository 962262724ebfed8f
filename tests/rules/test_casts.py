"""NumPy's scalar types called as casts: np.float64(x) is the identity (its cotangent in
x's own form), np.int64(x) and the other integer and boolean types carry no derivative
(autograd's test_cast_to_int indexes with one)."""

import numpy as np
import pytest
from corpus.finite_diff import numerical_gradient

import zygote_py as zp


def float_casts(x, v):
    return np.float64(x) * 2.0 + np.sum(np.float64(v) ** 2) + np.float64(v[0]) * x


def index_by_cast(W):
    inds = np.int64(W[:, -1])  # integers: an index, no derivative
    return W[inds, 0].sum() * 2.0 + np.sum(W * np.int32(3.7)) + float(np.bool_(W[0, 0]))


def test_float64_is_the_identity():
    x, v = 0.7, np.array([0.3, -1.2])
    gx, gv = zp.gradient(float_casts, x, v)
    fx, fv = numerical_gradient(float_casts, (x, v))
    assert type(gx) is float and gx == pytest.approx(fx, rel=1e-7)
    np.testing.assert_allclose(gv, fv, rtol=1e-7)


def test_integer_casts_carry_no_derivative():
    W = np.array([[0.5, 1.0], [0.3, 0.0]])
    (g,) = zp.gradient(index_by_cast, W)
    np.testing.assert_allclose(g, [[5.0, 3.0], [5.0, 3.0]])


def test_hessian_through_a_float64_cast():
    # forward mode over the cast's rule, which returns the cotangent as a NumPy scalar
    h = zp.hessian(lambda x: np.float64(x[0]) ** 2 * x[1], np.array([0.5, 2.0]))
    np.testing.assert_allclose(h, [[4.0, 1.0], [1.0, 0.0]])


class Scaled:
    def __init__(self, W):
        self.W = W

    def __call__(self, v):
        return v * np.float64(self.W[1, 1])  # a cast of a NumPy scalar inside a method


SCALED = [Scaled(np.array([[0.1, 0.2], [0.3, 0.4]]))]


def through_a_called_object(a):
    for layer in SCALED:  # resolved while running: the cast's cotangent helper runs there
        a = a + np.sum(layer(a * np.array([1.0, 2.0])))
    return np.sin(a) * a


def test_hessian_through_the_cast_of_a_numpy_scalar():
    # forward mode over the gradient runs the cast's cotangent helper, which once called
    # np.float64 through a dtype's attribute (`x.dtype.type(g)`): refused, found by the
    # fuzzer (seed 20261301)
    a = 0.7
    h = zp.hessian(through_a_called_object, a)
    step = 1e-5
    want = (zp.gradient(through_a_called_object, a + step)[0]
            - zp.gradient(through_a_called_object, a - step)[0]) / (2 * step)
    assert h == pytest.approx(want, rel=1e-6)
    (g,) = zp.gradient(through_a_called_object, a)
    assert g == pytest.approx(numerical_gradient(through_a_called_object, (a,))[0], rel=1e-7)
