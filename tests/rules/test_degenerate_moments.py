"""np.var/np.std (functions, methods, complex, nan-) over degenerate axes: the value is
NumPy's, and the gradient is finite and right where the value is (a size-1 axis: 0;
equal entries, whose spread is rounding noise: 0, as central differences say) and
nan/inf where the value is (no ZeroDivisionError, no number where NumPy has none)."""

import warnings

import numpy as np
import pytest
from corpus.finite_diff import numerical_gradient

import zygote_py as zp

ROW = np.array([[0.3, 0.5, 0.9]])


def _sum_of(fn, **kw):
    return lambda x: np.sum(fn(x, **kw))


def _std_method(x):
    return np.sum(x.std(axis=0))


def _var_method(x):
    return np.sum(x.var(ddof=2))


DEFINED = [  # (label, function, argument): value and gradient are numbers
    ("std over a size-1 axis", _sum_of(np.std, axis=0), ROW),
    ("var over a size-1 axis", _sum_of(np.var, axis=0), ROW),
    ("std of one entry", _sum_of(np.std), np.array([0.4])),
    ("std method over a size-1 axis", _std_method, ROW),
    ("nanstd with one valid entry", _sum_of(np.nanstd, axis=1), np.array([[0.4, np.nan]])),
]
UNDEFINED = [  # the value is nan or inf: so is the gradient
    ("std, ddof=1 over a size-1 axis", _sum_of(np.std, axis=0, ddof=1), ROW),
    ("var, ddof=1 over a size-1 axis", _sum_of(np.var, axis=0, ddof=1), ROW),
    ("var method, ddof=2 of two", _var_method, np.array([0.4, 0.7])),
    ("std, ddof=3 of two", _sum_of(np.std, ddof=3), np.array([0.4, 0.7])),
    ("var of a complex row, ddof=1", _sum_of(np.var, axis=0, ddof=1), ROW * (1 + 1j)),
]


@pytest.mark.parametrize("label,f,x", DEFINED, ids=[c[0] for c in DEFINED])
def test_degenerate_but_defined(label, f, x):
    value, (g,) = zp.withgradient(f, x)
    assert value == f(x)
    np.testing.assert_array_equal(g, np.zeros_like(x))


@pytest.mark.parametrize("label,f,x", UNDEFINED, ids=[c[0] for c in UNDEFINED])
def test_undefined_where_numpy_is(label, f, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        value, (g,) = zp.withgradient(f, x)
        expected = f(x)
    assert not np.isfinite(expected) and np.array_equal(value, expected, equal_nan=True)
    assert not np.all(np.isfinite(g))


def test_an_empty_axis_gives_numpys_nan_and_an_empty_gradient():
    x = np.zeros((0, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for fn in (np.std, np.var):
            value, (g,) = zp.withgradient(_sum_of(fn, axis=0), x)
            assert np.isnan(value) and g.shape == (0, 3)


def equal_entries(a):
    return np.std([a, a, a]) + np.std(np.array([a, a]) * 3.0, ddof=1) + a


@pytest.mark.parametrize("a", [0.368, -1.7, 1e-3])
def test_equal_entries_have_zero_spread_up_to_rounding(a):
    # np.std([a, a, a]) is about 1e-17, not 0: the rule must not divide noise by noise
    g = zp.gradient(equal_entries, a)[0]
    assert g == pytest.approx(numerical_gradient(equal_entries, (a,))[0], abs=1e-6)
    assert g == pytest.approx(1.0, abs=1e-12)


def test_float32_data_keeps_float32_cotangents():
    x = np.array([0.3, 0.5, 0.9], dtype=np.float32)
    (g,) = zp.gradient(_sum_of(np.var, ddof=1), x)
    assert g.dtype == np.float32
