"""The base's cotangent of a ** b (b a float) as y / a where that is exact to rounding
(zygote_py/rules/operators.py: _quotient_is_slope), and as a ** (b - 1) everywhere the
two could differ: zeros, infinities, overflow, underflow, subnormals, nan, mixed signs,
small arrays and Python numbers."""

import numpy as np
import pytest
from derivative_checks import assert_hessian, fd_gradient

import zygote_py as zp
from zygote_py.rules import operators

RNG = np.random.default_rng(23)


def power_slope(a, b):
    """d(a ** b)/da as the textbook formula computes it."""
    return b * a ** (b - 1)


def test_the_quotient_is_taken_for_large_normal_arrays():
    a = RNG.random(400) + 0.1
    assert operators._quotient_is_slope(a ** -1.5, a)
    neg = -(RNG.random(400) + 0.1)
    assert operators._quotient_is_slope(neg ** 3.0, neg)  # all negative, normal: exact too
    assert operators._quotient_is_slope((a ** 0.5).astype(np.float32), a.astype(np.float32))
    whole = np.arange(1, 401)  # an integer base: y is float64, y / a divides by it exactly
    assert operators._quotient_is_slope(whole ** 1.5, whole)


@pytest.mark.parametrize("case", [
    "small", "zero", "negative_zero", "inf", "nan", "overflow", "underflow", "subnormal",
    "mixed_signs", "complex", "python_float", "shapes_differ"])
def test_the_power_is_taken_wherever_the_quotient_could_differ(case):
    a = RNG.random(400) + 0.1
    if case == "small":
        a = a[:10]
    elif case == "zero":
        a[7] = 0.0
    elif case == "negative_zero":
        a[7] = -0.0
    elif case == "inf":
        a[7] = np.inf
    elif case == "nan":
        a[7] = np.nan
    elif case == "overflow":
        a[7] = 1e200  # a ** 2.5 overflows where a ** 1.5 does not
    elif case == "underflow":
        a[7] = 1e-200  # a ** 2.5 underflows to 0 where a ** 1.5 does not
    elif case == "subnormal":
        a[7] = 1e-130  # a ** 2.5 is subnormal: digits lost
    elif case == "mixed_signs":
        a[7] = -a[7]
    elif case == "complex":
        a = a + 0.5j
    with np.errstate(all="ignore"):
        if case == "python_float":
            assert not operators._quotient_is_slope(2.0 ** 2.5, 2.0)
            return
        y = a ** 2.5
        if case == "shapes_differ":
            assert not operators._quotient_is_slope(y, a[None, :])
            return
        assert not operators._quotient_is_slope(y, a)


def test_gradient_against_central_differences():
    def f(a):
        return np.sum(np.cos(a) * a ** -1.5)

    a = RNG.random(300) + 0.2
    g = zp.gradient(f, a)[0]
    np.testing.assert_allclose(g, fd_gradient(f, a), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, -np.sin(a) * a ** -1.5 + np.cos(a) * power_slope(a, -1.5),
                               rtol=1e-13)


@pytest.mark.parametrize("special, slope", [
    (0.0, 0.0),  # 2.5 * 0 ** 1.5
    (1e200, 2.5e300),  # a ** 2.5 overflows: the quotient would give inf
    (1e-200, 2.5e-300),  # a ** 2.5 underflows to 0; the quotient would give 0
])
def test_gradient_at_points_where_the_quotient_differs(special, slope):
    def f(a):
        return np.sum(a ** 2.5)

    a = RNG.random(300) + 0.2
    a[3] = special
    with np.errstate(all="ignore"):
        g = zp.gradient(f, a)[0]
        want = power_slope(a, 2.5)
    np.testing.assert_array_equal(g, want)  # the power itself, not the quotient
    assert g[3] == pytest.approx(slope, rel=1e-12)


def test_gradient_of_a_negative_base_with_a_whole_float_exponent():
    def f(a):
        return np.sum(a ** 3.0)

    a = -(RNG.random(300) + 0.2)
    g = zp.gradient(f, a)[0]
    np.testing.assert_allclose(g, 3.0 * a * a, rtol=1e-13)
    np.testing.assert_allclose(g, fd_gradient(f, a), rtol=1e-6)


def test_hessian_through_the_quotient():
    def f(a):
        return np.sum(np.sin(a) * a ** -1.5)

    assert_hessian(f, RNG.random(260) + 0.5, atol=1e-4)


def _power_then_written(a):
    a = a.copy()
    y = a ** 1.5
    y += 1.0  # y is written after the power: the adjoint must see the power's y
    y *= 2.0
    return np.sum(y * a)


def _base_written_after(a):
    a = a.copy()
    y = a ** -0.5
    a[:] = 3.0  # and the base
    a *= y
    return np.sum(y * np.sin(a))


def _power_into_an_output_array(a):
    y = np.empty_like(a)
    np.power(a, 2.5, out=y)
    y[0:5] = 0.0
    return np.sum(y ** 1.5)


@pytest.mark.parametrize("f", [_power_then_written, _base_written_after, _power_into_an_output_array])
def test_writes_after_the_power(f):
    a = RNG.random(300) + 0.3
    np.testing.assert_allclose(zp.gradient(f, a)[0], fd_gradient(f, a), rtol=1e-6, atol=1e-7)
