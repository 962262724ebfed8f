"""The SciPy rules spliced into generated code (zp.gradient against finite differences),
the arguments they refuse, and frozen distributions built from active parameters."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))

special = pytest.importorskip("scipy.special")
stats = pytest.importorskip("scipy.stats")
linalg = pytest.importorskip("scipy.linalg")

from jvp_harness import _inner_tangent
from scipy_check import check_gradient

import zygote_py as zp
from zygote_py.rules import registry

RNG = np.random.default_rng(3)


def _spd(n):
    x = RNG.standard_normal((n, n))
    return x @ x.T + n * np.eye(n)


# --- scipy.special ---------------------------------------------------------------


def f_special(x, y):
    a = special.gammaln(y) + special.digamma(y) * special.erf(x) + special.expit(x) * special.logit(y / 3.0)
    b = special.xlogy(y, y) + special.rel_entr(y, y + 1.0) + special.iv(1.5, y) + special.log_ndtr(x)
    return np.sum(a + b) + special.logsumexp(x) + np.sum(special.softmax(x) * y) + special.betaln(2.0, y[0])


def f_logsumexp_options(x, w):
    r, s = special.logsumexp(x, axis=1, b=w, return_sign=True)
    return np.sum(r * s) + np.sum(special.logsumexp(x, axis=0, keepdims=True)) \
        + np.sum(special.log_softmax(x, axis=1)[:, 0])


def test_special_functions_end_to_end():
    check_gradient(f_special, RNG.standard_normal(4), RNG.uniform(0.5, 2.0, 4))


def test_logsumexp_axis_weights_sign_keepdims():
    check_gradient(f_logsumexp_options, RNG.standard_normal((3, 4)), RNG.uniform(0.5, 2.0, (3, 4)))


def test_special_on_python_floats():
    got = check_gradient(lambda a, b: special.gammaln(a) * special.beta(a, b) + special.erfinv(b / 3.0), 1.3, 0.7)
    assert all(type(g) is float for g in got)


@pytest.mark.parametrize("fn, call", [
    (special.iv, lambda v, x: special.iv(v, x)),
    (special.jv, lambda v, x: special.jv(v, x)),
    (special.gammainc, lambda a, x: special.gammainc(a, x)),
    (special.zeta, lambda s, q: special.zeta(s, q)),
])
def test_an_underived_parameter_is_refused_when_active(fn, call):
    def f(p, x):
        return np.sum(call(p, x))
    with pytest.raises(zp.NoDerivativeRule, match="no derivative with respect to"):
        zp.gradient(f, 1.5, np.array([0.5, 1.5]))
    # constant, it is fine
    check_gradient(lambda x: np.sum(call(1.5, x)), np.array([0.5, 1.5]))


def test_riemann_zeta_in_its_argument_is_refused():
    with pytest.raises(zp.NoDerivativeRule):
        zp.gradient(lambda s: special.zeta(s), 2.5)


# --- scipy.stats -------------------------------------------------------------------


def f_stats(x, mu, s):
    return (np.sum(stats.norm.logpdf(x, mu, s)) + np.sum(stats.t.logpdf(x, 4.0, loc=mu, scale=s))
            + np.sum(stats.cauchy.cdf(x, mu)) + np.sum(stats.laplace.logsf(x, scale=s))
            + np.sum(stats.logistic.pdf(x, loc=mu)) + np.sum(stats.gamma.logpdf(x * x + 0.5, s))
            + np.sum(stats.beta.logpdf(stats.norm.cdf(x), s, 2.0)) + np.sum(stats.expon.logcdf(x * x + 0.1, scale=s)))


def test_stats_methods_end_to_end():
    check_gradient(f_stats, RNG.standard_normal(5), 0.3, 1.4)


def test_discrete_and_multivariate_end_to_end():
    k = np.array([0.0, 1.0, 3.0, 4.0])

    def f(mu, p, mean, cov, alpha):
        return (np.sum(stats.poisson.logpmf(k, mu)) + np.sum(stats.binom.cdf(k, 6, p))
                + np.sum(stats.bernoulli.logpmf(np.array([0.0, 1.0]), p))
                + np.sum(stats.multivariate_normal.logpdf(np.ones((3, 2)), mean, cov))
                + stats.dirichlet.logpdf(np.array([0.2, 0.3]), alpha))

    check_gradient(f, 2.5, 0.4, np.array([0.1, -0.3]), _spd(2), np.array([1.5, 2.0, 3.0]))


def test_a_shape_parameter_of_a_cdf_is_refused():
    with pytest.raises(zp.NoDerivativeRule, match="df"):
        zp.gradient(lambda x, df: stats.t.cdf(x, df), 0.3, 4.0)
    with pytest.raises(zp.NoDerivativeRule, match="'n'"):
        zp.gradient(lambda n, p: stats.binom.logpmf(2.0, n, p), 5.0, 0.3)


def test_frozen_distributions_from_active_parameters():
    def f(x, mu, s, df):
        d = stats.norm(mu, scale=s)
        return (np.sum(d.logpdf(x)) + np.sum(d.cdf(x)) + np.sum(stats.t(df, mu).logpdf(x))
                + np.sum(stats.gamma(2.0, loc=-3.0, scale=s).logsf(x)) + np.sum(stats.poisson(s).logpmf(np.array([1.0, 2.0]))))

    check_gradient(f, RNG.standard_normal(4), 0.2, 1.3, 3.5)


def test_frozen_multivariate_normal_and_dirichlet():
    def f(x, mean, cov, alpha):
        return (np.sum(stats.multivariate_normal(mean, cov).logpdf(x)) + stats.dirichlet(alpha).pdf(np.array([0.2, 0.5])))

    check_gradient(f, RNG.standard_normal((4, 2)), np.array([0.1, -0.3]), _spd(2), np.array([1.5, 2.0, 3.0]))


def test_frozen_cdf_in_a_shape_parameter_is_nan_not_a_number():
    # the frozen form cannot refuse an active df at the call (the object holds it); its
    # derivative there is unknown, and it says so with NaN instead of a plausible number
    g = zp.gradient(lambda x, df: stats.t(df).cdf(x), 0.3, 4.0)
    assert np.isfinite(g[0]) and np.isnan(g[1])


def test_frozen_jvp_moves_the_objects_parameters():
    frozen = stats.norm(0.3, 1.2)
    rule = registry.method_rule(type(frozen), "logpdf")
    x = np.array([0.1, 0.5, -0.7])
    y = frozen.logpdf(x)
    d = {"args": (0.4, -0.2), "kwds": {}}
    eps = 1e-6
    fd = (stats.norm(0.3 + eps * 0.4, 1.2 - eps * 0.2).logpdf(x)
          - stats.norm(0.3 - eps * 0.4, 1.2 + eps * 0.2).logpdf(x)) / (2 * eps)
    np.testing.assert_allclose(rule.jvp(d, None, y, frozen, x), fd, rtol=1e-6)
    mvn = stats.multivariate_normal([0.1, 0.2], [[2.0, 0.3], [0.3, 1.0]])
    rule = registry.method_rule(type(mvn), "logpdf")
    pts = RNG.standard_normal((3, 2))
    dmean, dcov = np.array([0.3, -0.1]), np.array([[0.2, 0.0], [0.1, -0.3]])
    moved = [stats.multivariate_normal(mvn.mean + s * dmean, mvn.cov + s * np.tril(dcov) + s * np.tril(dcov, -1).T)
             for s in (eps, -eps)]
    fd = (moved[0].logpdf(pts) - moved[1].logpdf(pts)) / (2 * eps)
    got = rule.jvp({"mean": dmean, "cov": dcov}, None, mvn.logpdf(pts), mvn, pts)
    assert abs(_inner_tangent(np.ones(3), got) - np.sum(fd)) < 1e-6


# --- scipy.linalg ------------------------------------------------------------------


def f_linalg(a, b):
    c = linalg.cho_factor(a)
    lu = linalg.lu_factor(a + np.eye(3))
    x = linalg.solve_triangular(linalg.cholesky(a, lower=True), b, lower=True)
    return (np.sum(linalg.cho_solve(c, b)) + np.sum(linalg.lu_solve(lu, b)) + np.sum(x * x)
            + np.sum(linalg.solve(a, b, assume_a="pos")) + linalg.det(a) + np.sum(linalg.inv(a))
            + np.sum(linalg.expm(0.1 * a)) + np.sum(linalg.sqrtm(a)) + np.sum(linalg.logm(a))
            + np.sum(linalg.eigh(a)[0]) + np.sum(linalg.block_diag(a, b[:2]) ** 2))


def test_linalg_end_to_end():
    # a symmetric perturbation of the SPD argument: every function reads the same matrix
    a = _spd(3)

    def f(s, b):
        return f_linalg(a + s @ s.T * 0.1, b)

    check_gradient(f, RNG.standard_normal((3, 3)), RNG.standard_normal(3))


def test_linalg_refusals():
    a = _spd(3)
    with pytest.raises(zp.NoDerivativeRule, match="b= given"):
        zp.gradient(lambda m: np.sum(linalg.eigh(m, np.eye(3))[0]), a)
    with pytest.raises(zp.NoDerivativeRule, match="assume_a= given"):
        zp.gradient(lambda m: np.sum(linalg.inv(m, assume_a="pos")), a)


def test_method_calls_by_any_name_refuse_underived_arguments():
    from scipy.stats import t

    cdf = stats.t.cdf
    for f in (lambda x, df: t.cdf(x, df),  # one lambda a line: Python 3.10 has no columns
              lambda x, df: cdf(x, df),
              lambda x, df: stats.t.sf(x, df=df)):
        with pytest.raises(zp.NoDerivativeRule, match="'df'"):
            zp.gradient(f, 0.3, 4.0)
    check_gradient(lambda x: cdf(x, 4.0) + t.logsf(x, 3.0), 0.3)


def test_a_bound_method_with_a_rule_is_not_transformed_from_source():
    pdf = stats.norm.pdf
    check_gradient(lambda x, s: np.sum(pdf(x, scale=s)), np.array([0.1, 0.7]), 1.3)


def test_frozen_discrete_count_and_n_are_nan():
    g = zp.gradient(lambda k, n, p: np.sum(stats.binom(n, p).logpmf(k)), np.array([1.0, 2.0]), 5.0, 0.3)
    assert np.all(np.isnan(g[0])) and np.isnan(g[1]) and np.isfinite(g[2])


def test_solve_banded_end_to_end():
    ab = RNG.standard_normal((3, 5)) * 0.3 + np.array([[0.0], [2.0], [0.0]])
    check_gradient(lambda band, b: np.sum(linalg.solve_banded((1, 1), band, b) ** 2), ab, RNG.standard_normal(5))


@pytest.mark.parametrize("name", __import__("zygote_py.rules.scipy_special", fromlist=["x"]).HOLOMORPHIC)
def test_holomorphic_special_functions_on_complex_values(name):
    from corpus.finite_diff import assert_gradient_matches, numerical_gradient

    fn = getattr(special, name)
    z = RNG.uniform(0.5, 1.5, 3) + 1j * RNG.uniform(-0.3, 0.3, 3)
    w = RNG.standard_normal(3) + 1j * RNG.standard_normal(3)

    def loss(a):
        return np.real(np.sum(fn(a) * w))

    got = zp.gradient(loss, z)[0]
    assert_gradient_matches(got, numerical_gradient(loss, (z,))[0], z, name, atol=1e-6, rtol=1e-5)


def _cdf_of(dist, x, df):
    return dist.cdf(x, df)


def _logpmf_of(dist, k, mu):
    return np.sum(dist.logpmf(k, mu))


def test_a_distribution_decided_while_running_gives_nan_for_an_underived_argument():
    # the receiver is an argument: the rule applies while running, where a constant and an
    # active df look alike; the derivative it does not know is NaN, never a plausible number
    g = zp.gradient(_cdf_of, stats.t, 0.3, 4.0)
    assert np.isclose(g[1], stats.t.pdf(0.3, 4.0)) and np.isnan(g[2])
    g = zp.gradient(_logpmf_of, stats.poisson, np.array([1.0, 2.0]), 2.5)
    assert np.all(np.isnan(g[1])) and np.isclose(g[2], np.sum(np.array([1.0, 2.0]) / 2.5 - 1.0))


# --- multivariate_normal with a singular covariance (allow_singular=True) -----------

SINGULAR_COV = np.diag([1.5, 0.7, 0.0, 0.0])


def f_mvn_singular(x, mean):
    # x moves only along the covariance's range (elsewhere the density is zero)
    point = np.concatenate([x[:2], mean[2:]])
    return stats.multivariate_normal.logpdf(point, mean, SINGULAR_COV, allow_singular=True) \
        + stats.multivariate_normal.pdf(point, mean, SINGULAR_COV, allow_singular=True)


def test_mvn_singular_covariance_gradient_along_its_range():
    x = np.array([0.3, -0.4, 0.0, 0.0])
    mean = np.array([0.1, 0.2, 0.5, -0.5])
    got = check_gradient(f_mvn_singular, x, mean)
    assert got[0][2:].tolist() == [0.0, 0.0]  # x's last entries are not read


def f_mvn_singular_cov(cov, x):
    return stats.multivariate_normal.logpdf(x, np.zeros(4), cov, allow_singular=True)


def test_mvn_singular_covariance_has_no_cov_derivative():
    """The density jumps where cov's rank changes: cov's gradient is NaN, never a number."""
    grad_cov, grad_x = zp.gradient(f_mvn_singular_cov, SINGULAR_COV, np.array([0.3, -0.4, 0.0, 0.0]))
    assert np.isnan(grad_cov).any()
    np.testing.assert_allclose(grad_x, [-0.3 / 1.5, 0.4 / 0.7, 0.0, 0.0])


def f_mvn_frozen_singular(x, mean):
    point = np.concatenate([x[:2], mean[2:]])
    return stats.multivariate_normal(mean, SINGULAR_COV, allow_singular=True).logpdf(point)


def test_frozen_mvn_singular_covariance_gradient_along_its_range():
    check_gradient(f_mvn_frozen_singular, np.array([0.3, -0.4, 0.0, 0.0]), np.array([0.1, 0.2, 0.5, -0.5]))


def test_a_singular_cov_that_does_not_move_gives_a_finite_jvp():
    """autograd's test_scipy.py::test_mvn_sing_cov (rev/rev): with allow_singular=True and a
    singular cov, a cov tangent of zeros (the cov passed through code that gives it one)
    contributes zero; a moving cov still gives NaN (no derivative where the rank may change)."""
    cov = np.zeros((4, 4))
    cov[0, 0] = cov[1, 1] = 1.0
    x = np.array([1.85, -0.01, 0.0, 0.0])
    mean = np.array([-1.05, 0.82, 0.0, 0.0])
    dx = np.array([0.3, -0.2, 0.0, 0.0])

    def logpdf(x, c):
        return stats.multivariate_normal.logpdf(x, mean, c, allow_singular=True)

    _, with_zeros = zp.jvp(logpdf, (x, cov), (dx, np.zeros((4, 4))))
    _, without = zp.jvp(logpdf, (x, cov), (dx, None))
    numeric = (logpdf(x + 1e-6 * dx, cov) - logpdf(x - 1e-6 * dx, cov)) / 2e-6
    assert np.isclose(with_zeros, numeric, rtol=1e-6) and np.isclose(without, numeric, rtol=1e-6)
    _, moving = zp.jvp(logpdf, (x, cov), (dx, np.eye(4)))
    assert np.isnan(moving)

    def vjp_of(xs, g):  # the vjp function autograd's check differentiates again
        return zp.pullback(lambda p: logpdf(np.concatenate([p[0][:2], p[1][2:]]), cov) +
                           0.0 * np.sum(p[1]), xs)[1](g)[0]

    xs, g = (x, mean), -1.48
    r = (np.array([0.3, -0.2, 0.1, 0.5]), np.array([0.1, 0.4, -0.3, 0.2]))
    _, back = zp.pullback(vjp_of, xs, g)
    _, g_bar = back(r)

    def paired(h):
        return sum(np.sum(a * b) for a, b in zip(vjp_of(xs, h), r))

    assert np.isclose(g_bar, (paired(g + 1e-6) - paired(g - 1e-6)) / 2e-6, rtol=1e-6)
