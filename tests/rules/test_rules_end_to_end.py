"""Rules spliced into generated code: `zp.gradient` of small functions that use
them, against central finite differences.

The numeric table (test_rules_numeric.py) calls each rule directly; splice
bugs (a parameter bound to the wrong value, a dropped cotangent, a tuple
output's cotangent in the wrong form) only show end to end, so every family
of rules has at least one function here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient, to_scalar

import zygote_py as zp

RNG = np.random.default_rng(7)


def _r(*shape):
    return RNG.standard_normal(shape)


def _pos(*shape):
    return RNG.uniform(0.5, 2.0, shape)


def _spd(n):
    x = RNG.standard_normal((n, n))
    return x @ x.T + n * np.eye(n)


# --- elementwise and math -----------------------------------------------------


def f_elementwise(x, y):
    a = np.copysign(x, -1.0) * np.ldexp(y, 2)
    b = np.nan_to_num(np.log(np.abs(x))) + np.real(y) * np.hypot(x, y)
    return np.sum(a + b + np.arctan2(x, y) + np.logaddexp2(x, y)) + np.sum(x.conj() * y.conjugate())


def f_power_family(x, p):
    return np.sum(np.power(x, p) + np.float_power(x, -1.5) + x ** -2 + np.cbrt(x) + np.sinc(x))


def f_math(a, b):
    return (math.gamma(a) + math.lgamma(b) + math.dist((a, b), (1.0, 2.0)) + math.prod([a, b, 3.0])
            + math.remainder(a * 7.0, b) + math.modf(a * 3.0)[0] + math.frexp(b)[0] + math.erf(a))


def f_builtins(a, b):
    return abs(a - b) + max(a, b, 0.1) + min([a, b]) + pow(a, 2.5) + float(np.sqrt(b)) + sum([a, b])


# --- reductions, statistics, scans -----------------------------------------------


def f_reductions(x, w):
    return (np.sum(np.prod(x, axis=1)) + np.sum(np.cumprod(x, axis=0)) + np.ptp(x) + x.cumprod().sum()
            + np.average(x, axis=1, weights=w).sum() + np.median(x) + np.sum(np.quantile(x, [0.2, 0.9], axis=0))
            + np.percentile(x, 30) + np.std(x, ddof=1) + np.var(x, axis=0).sum())


def f_nan_reductions(x):
    z = np.where(x > 1.2, np.nan, x)
    return (np.nansum(z, axis=0).sum() + np.nanmean(z) + np.nanmax(z) + np.nanmin(z, axis=1).sum()
            + np.nanprod(z) + np.nanvar(z) + np.nanstd(z, axis=0).sum() + np.nancumsum(z).sum()
            + np.nancumprod(z, axis=1).sum())


def f_scans(x, v):
    d = np.diff(x, 2) @ np.diff(x, prepend=0.5)[:3]
    return (d + np.sum(np.convolve(x, v, "same") ** 2) + np.sum(np.correlate(x, v, "full") ** 2)
            + np.sum(np.ediff1d(x, to_begin=v[:1])) + np.trapezoid(x ** 2, dx=0.3)
            + np.sum(np.interp(np.linspace(-1.0, 1.0, 7), np.linspace(-2.0, 2.0, 5), x))
            + np.sum(np.polyval(v, x)) + np.sum(np.cumulative_sum(x) * x))


# --- shapes and gathers ---------------------------------------------------------


def f_structure(a, b):
    s = np.fliplr(a) * np.flipud(a) + np.rot90(np.rot90(a))
    t = np.dstack([a, a]).sum(axis=2) + np.column_stack([b, b, b, b])[:, :4] * 0.5
    p1, p2 = np.hsplit(a, 2)
    u = np.append(p1, p2, axis=0).sum() + np.delete(a, 1, axis=1).sum() + np.insert(b, 1, a[0, 0]).sum()
    idx = np.argsort(a, axis=1)
    ranked = np.take_along_axis(a, idx, axis=1) * np.arange(4.0)
    parts = np.unstack(a)
    return (np.sum(s * t) + u + np.sum(ranked) + np.sum(parts[0] * parts[2])
            + np.sum(np.partition(b, 1) * np.arange(3.0)) + np.sum(np.compress([True, False, True], a, axis=0))
            + np.sum(np.extract(a > 0, a) ** 2) + np.sum(np.diagflat(b) @ a[:, :3]))


def f_selection(a, b):
    c = np.select([a < -0.5, a < 0.5], [a * 2.0, b], default=np.sin(a))
    d = np.choose(np.array([[0, 1, 0], [1, 1, 0]]), [a, b])
    bx, by = np.broadcast_arrays(a[:, :1], b[:1])
    gx, gy = np.meshgrid(a[0], b[1])
    return (np.sum(c * d) + np.sum(bx * by) + np.sum(gx * gy ** 2) + np.sum(np.resize(a, (3, 3)))
            + np.sum(np.rollaxis(a[None], 0, 3)[..., 0] * b))


def f_indexing(x):
    idx = np.array([0, 2, 2, 2, -1])
    return np.sum(x[idx] ** 2) + np.sum(np.take(x, [1, 1, 3])) + np.sum(x[::-2]) + x[x > 0].sum()


# --- products and linalg ---------------------------------------------------------


def f_products(a, b, c):
    return (np.sum(np.kron(a, b)) + np.sum(np.cross(c, c[::-1] + 1.0) ** 2)
            + np.sum(np.linalg.multi_dot([a, b, a])) + np.sum(np.linalg.matrix_power(b, 3))
            + np.sum(np.einsum("ij,jk->ik", a, b) * np.einsum("ii->i", b)[None, :])
            + np.einsum("i,i", c, c) + np.einsum("...j,jk", a, b).sum() + np.trace(a @ b)
            + np.linalg.norm(a, 1) + np.linalg.norm(b, np.inf))


def f_array_api_linalg(a, b, c):
    return (np.linalg.trace(a @ b) + np.linalg.matrix_norm(a, ord="nuc")
            + np.linalg.vector_norm(c, ord=3) + np.sum(np.linalg.svdvals(a @ b)))


def f_factorizations(a, s):
    q, r = np.linalg.qr(a)
    w, v = np.linalg.eigh(s)
    u, sv, vh = np.linalg.svd(a, full_matrices=False)
    chol = np.linalg.cholesky(s)
    return (np.sum(q * np.arange(3.0)) + np.sum(np.diag(r) ** 2) + np.sum(w * np.arange(3.0))
            + np.sum(np.abs(v[:, 0]) * 2.0) + np.sum(sv ** 2) + np.abs(u[0, 0] * vh[0, 0])
            + np.sum(chol) + np.sum(np.linalg.eigvalsh(s) ** 3)
            + np.sum(np.linalg.pinv(a) ** 2))


def f_solves(a, b):
    x, res, rank, sv = np.linalg.lstsq(a, b, rcond=None)
    return np.sum(x ** 2) + np.sum(res) + np.linalg.slogdet(a.T @ a)[1] + np.sum(np.linalg.inv(a.T @ a))


def f_named_results(s):
    # the named tuple's fields, read as attributes
    res = np.linalg.eigh(s)
    return np.sum(res.eigenvalues ** 2) + np.linalg.slogdet(s).logabsdet


# np.linalg.trace, matrix_norm, vector_norm and svdvals are new in NumPy 2.0; np.cumulative_sum
# and np.unstack in 2.1
NUMPY_2_0 = pytest.mark.skipif(not hasattr(np.linalg, "svdvals"), reason="needs NumPy 2.0")
NUMPY_2_1 = pytest.mark.skipif(not hasattr(np, "unstack"), reason="needs NumPy 2.1")

CASES = [
    (f_elementwise, (_pos(3, 4), _pos(3, 4))),
    (f_power_family, (_pos(5), 1.7)),
    (f_math, (1.3, 2.2)),
    (f_builtins, (0.7, 1.9)),
    (f_reductions, (RNG.uniform(0.5, 1.5, (3, 4)) * np.array([1.0, -1.0, 1.0, 1.0]), _pos(4))),
    (f_nan_reductions, (RNG.uniform(-1.0, 2.0, (3, 4)),)),
    pytest.param(f_scans, (_r(5), _r(3)), marks=NUMPY_2_1),
    pytest.param(f_structure, (_r(3, 4), _r(3)), marks=NUMPY_2_1),
    (f_selection, (_r(2, 3), _r(2, 3))),
    (f_indexing, (_r(5),)),
    (f_products, (_r(3, 3), _r(3, 3), _r(3))),
    pytest.param(f_array_api_linalg, (_r(3, 3), _r(3, 3), _r(3)), marks=NUMPY_2_0),
    (f_factorizations, (_r(4, 3), _spd(3))),
    (f_solves, (_r(5, 3), _r(5))),
    (f_named_results, (_spd(3),)),
]


@pytest.mark.parametrize("f,args", CASES, ids=[(c.values if hasattr(c, "values") else c)[0].__name__
                                               for c in CASES])
def test_gradient_matches_finite_differences(f, args):
    grads = zp.gradient(f, *args)
    y = to_scalar(f(*args))
    fd = numerical_gradient(f, args)
    for i, (g, want, arg) in enumerate(zip(grads, fd, args)):
        assert_gradient_matches(g, want, arg, f"arg{i}", atol=1e-6 * max(1.0, abs(y)), rtol=1e-5)


# --- conventions end to end -------------------------------------------------------


def test_repeated_indices_accumulate_end_to_end():
    def f(x):
        return np.sum(x[np.array([0, 0, 0, 2])] * np.array([1.0, 2.0, 3.0, 4.0]))

    (g,) = zp.gradient(f, np.arange(3.0))
    np.testing.assert_array_equal(g, [6.0, 0.0, 4.0])


def test_max_ties_split_evenly_end_to_end():
    (g,) = zp.gradient(lambda x: np.max(x), np.array([1.0, 3.0, 3.0, 3.0]))
    np.testing.assert_allclose(g, [0.0, 1 / 3, 1 / 3, 1 / 3])
    (g,) = zp.gradient(lambda x: np.sum(np.min(x, axis=0)), np.array([[1.0, 2.0], [1.0, 0.0]]))
    np.testing.assert_allclose(g, [[0.5, 0.0], [0.5, 1.0]])


def test_maximum_ties_go_to_first_argument_end_to_end():
    ga, gb = zp.gradient(lambda a, b: np.sum(np.maximum(a, b)), np.ones(3), np.ones(3))
    np.testing.assert_array_equal(ga, [1.0, 1.0, 1.0])
    assert gb is None or not np.any(gb)


def test_prod_with_several_zeros_end_to_end():
    (g,) = zp.gradient(lambda x: np.prod(x), np.array([2.0, 0.0, 3.0]))
    np.testing.assert_array_equal(g, [0.0, 6.0, 0.0])
    (g,) = zp.gradient(lambda x: np.prod(x), np.array([2.0, 0.0, 0.0]))
    np.testing.assert_array_equal(g, [0.0, 0.0, 0.0])
    (g,) = zp.gradient(lambda x: np.sum(np.cumprod(x)), np.array([2.0, 0.0, 3.0, 0.0]))
    np.testing.assert_array_equal(g, [1.0, 2.0 + 6.0, 0.0, 0.0])


def test_svd_loss_is_sign_invariant_end_to_end():
    # |u_1|^2 summed is invariant to the sign LAPACK picks; the gradient is well defined
    a = _r(4, 3)

    def f(a):
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        return np.sum(u[:, 0] ** 2 * np.arange(4.0)) + np.sum(s)

    (g,) = zp.gradient(f, a)
    (fd,) = numerical_gradient(f, (a,))
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-7)


def test_eigh_gradient_of_symmetric_construction():
    # A = X X^T is symmetric, so the triangle convention cannot show in dX
    def f(x):
        w, v = np.linalg.eigh(x @ x.T + np.eye(3))
        return np.sum(w ** 2) + v[0, 2] ** 2

    x = _r(3, 3)
    (g,) = zp.gradient(f, x)
    (fd,) = numerical_gradient(f, (x,))
    np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-7)
