"""The numeric checks of the SciPy rules (rules/scipy_*.py); empty without SciPy.

rule_specs.py adds these to its table, so test_rules_numeric checks each against
central finite differences and test_registry demands one per registered rule,
as for every other rule.  Generators keep each function inside its domain and
away from kinks and poles.
"""

from __future__ import annotations

import numpy as np
from rule_harness import CUSTOM, PS, F, M, P, R, S

try:
    from scipy import linalg, special, stats
except ImportError:  # SciPy is optional: no SciPy rules, no specs
    special = linalg = stats = None


def _unit(*shape, lo=0.05, hi=0.95):
    return R(*shape, lo=lo, hi=hi)


def special_specs():
    sp = special
    x = R(3, 4)
    pos = P(3, 4)
    unit = _unit(3, 4)
    specs = [
        F(sp.logsumexp, R(5)), F(sp.logsumexp, R(3, 4), axis=1), F(sp.logsumexp, R(3, 4), axis=0, keepdims=True),
        F(sp.logsumexp, R(2, 3, 4), axis=(0, 2)), F(sp.logsumexp, R(3, 4), axis=-1, b=P(3, 4)),
        F(sp.logsumexp, R(3, 4), axis=1, b=P(4)), F(sp.logsumexp, R(3, 4), b=P(3, 4), return_sign=True,
                                                    g=lambda y, rng: (float(rng.standard_normal()), None)),
        F(sp.logsumexp, R(3, 4), axis=0, b=MIXED_SIGNS, return_sign=True, keepdims=True,
          g=lambda y, rng: (rng.standard_normal(y[0].shape), None)),
        F(sp.logsumexp, S()),
        F(sp.softmax, R(5)), F(sp.softmax, R(3, 4), axis=1), F(sp.softmax, R(3, 4), axis=0),
        F(sp.softmax, R(2, 3)), F(sp.log_softmax, R(5)), F(sp.log_softmax, R(3, 4), axis=-1),
        F(sp.log_softmax, R(2, 3, 4), axis=(0, 1)),
    ]
    anywhere = [sp.expit, sp.log_expit, sp.softplus, sp.erf, sp.erfc, sp.erfi, sp.erfcx, sp.dawsn, sp.ndtr,
                sp.log_ndtr, sp.wrightomega, sp.sindg, sp.cosdg, sp.cosm1, sp.exprel, sp.exp10, sp.exp2,
                sp.expm1, sp.i0, sp.i1, sp.j0, sp.j1]
    positive = [sp.gammaln, sp.loggamma, sp.gamma, sp.rgamma, sp.digamma, sp.entr, sp.exp1, sp.y0, sp.y1,
                sp.k0, sp.k1, sp.k0e, sp.k1e, sp.log1p, sp.cbrt, sp.expi, sp.spence]
    for fn in anywhere:
        specs += [F(fn, x), F(fn, S(-1.5, 1.5))]
    for fn in positive:
        specs += [F(fn, pos), F(fn, PS())]
    specs += [
        F(sp.i0e, R(3, 4, lo=0.2, hi=2.0)), F(sp.i0e, R(3, lo=-2.0, hi=-0.2)),
        F(sp.i1e, R(3, 4, lo=0.2, hi=2.0)), F(sp.i1e, R(3, lo=-2.0, hi=-0.2)),
        F(sp.logit, unit), F(sp.logit, S(0.1, 0.9)), F(sp.erfinv, R(3, 4, lo=-0.9, hi=0.9)),
        F(sp.erfcinv, R(3, 4, lo=0.1, hi=1.9)), F(sp.ndtri, unit), F(sp.ndtri_exp, R(3, 4, lo=-3.0, hi=-0.1)),
        F(sp.ellipk, unit), F(sp.ellipe, unit), F(sp.tandg, R(3, 4, lo=-60.0, hi=60.0)),
        F(sp.cotdg, R(3, 4, lo=20.0, hi=160.0)), F(sp.exprel, 0.0, note="at 0"),
        F(sp.gammaln, R(3, lo=-2.9, hi=-2.1)), F(sp.digamma, R(3, lo=-1.9, hi=-1.1)),
        F(sp.polygamma, 1, pos), F(sp.polygamma, 2, PS()), F(sp.polygamma, np.array([0, 1, 2]), P(2, 3)),
        F(sp.multigammaln, R(3, lo=2.0, hi=4.0), 3),
        F(sp.multigammaln, S(2.0, 4.0), 2),
        F(sp.iv, 1.5, pos), F(sp.iv, np.array([0.0, 1.0, 2.5, -0.5]), P(3, 4)), F(sp.iv, 2.0, x),
        F(sp.ive, 0.5, pos), F(sp.ive, 2.0, R(3, lo=-2.0, hi=-0.2)),
        F(sp.jv, 1.5, pos), F(sp.jv, np.array([0.0, 1.0, 2.5, -0.5]), P(3, 4)), F(sp.jve, 2.0, pos),
        F(sp.yv, 0.5, pos), F(sp.yve, 1.0, pos), F(sp.kv, 1.5, pos), F(sp.kve, 0.5, pos),
        F(sp.yn, 2, pos), F(sp.yn, np.array([0, 1, 3, 2]), P(3, 4)), F(sp.kn, 1, pos),
        F(sp.gammainc, 2.5, pos), F(sp.gammaincc, P(4), P(3, 4)), F(sp.gammaincinv, 1.5, unit),
        F(sp.gammainccinv, 3.0, unit), F(sp.betainc, 2.0, 3.0, unit), F(sp.betaincc, P(4), 2.5, unit),
        F(sp.stdtr, 4.0, x), F(sp.stdtr, R(3, 4, lo=1.5, hi=6.0), S()),
        F(sp.zeta, 2.5, pos), F(sp.zeta, np.array([2.0, 3.0, 4.5]), P(2, 3)),
        F(sp.boxcox, pos, 0.5), F(sp.boxcox, pos, 0.0), F(sp.boxcox1p, pos, -0.5),
        F(sp.inv_boxcox, P(3, 4), 0.5), F(sp.inv_boxcox1p, P(3, 4), 1.5),
        F(sp.xlogy, x, pos), F(sp.xlogy, R(3, 1), P(4)), F(sp.xlogy, S(), PS()),
        F(sp.xlogy, np.array([0.0, 1.0]), np.array([0.5, 2.0]), note="x = 0"),
        F(sp.xlog1py, x, pos), F(sp.xlog1py, R(3), S(-0.5, 2.0)),
        F(sp.rel_entr, pos, P(3, 4)), F(sp.rel_entr, P(3, 1), P(4)),
        F(sp.kl_div, pos, P(3, 4)), F(sp.kl_div, PS(), P(3)),
        F(sp.beta, pos, P(3, 4)), F(sp.beta, P(3, 1), PS()), F(sp.betaln, pos, P(4)), F(sp.betaln, PS(), PS()),
        F(sp.poch, pos, P(3, 4)), F(sp.poch, PS(), R(3, lo=-0.4, hi=2.0)),
        F(sp.binom, R(3, 4, lo=4.0, hi=6.0), R(3, 4, lo=0.5, hi=3.0)), F(sp.binom, S(4.0, 6.0), P(3)),
        F(sp.powm1, pos, R(3, 4)), F(sp.powm1, PS(), S()),
        F(sp.huber, R(3, 4, lo=1.0, hi=2.0), R(3, 4, lo=-0.5, hi=0.5), note="inside"), F(sp.huber, 0.2, NOT_NEAR(0.2, 3, 4)),
        F(sp.pseudo_huber, pos, x), F(sp.pseudo_huber, PS(), R(4)),
    ]
    return specs


MIXED_SIGNS = CUSTOM(lambda rng: rng.uniform(-1.0, -0.5, (3, 4)) * np.array([[1.0], [1.0], [-6.0]]),
                     "mixed signs")


def NOT_NEAR(delta, *shape):
    """Values with |r| at least 0.1 away from delta (huber's kink)."""
    def draw(rng):
        r = rng.uniform(0.0, 2.0, shape)
        r = np.where(np.abs(r - delta) < 0.1, r + 0.3, r)
        return r * rng.choice([-1.0, 1.0], shape)
    return CUSTOM(draw, f"R!~{delta}")


def _spd(n):
    def draw(rng):
        x = rng.standard_normal((n, n))
        return x @ x.T + n * np.eye(n)
    return CUSTOM(draw, f"SPD{n}")


def _sym(n):
    def draw(rng):
        x = rng.standard_normal((n, n))
        return x + x.T
    return CUSTOM(draw, f"SYM{n}")


def _triangular(n, lower):
    def draw(rng):
        x = rng.standard_normal((n, n)) * 0.3 + np.eye(n) * 2.0
        return np.tril(x) if lower else np.triu(x)
    return CUSTOM(draw, f"TRI{n}{'L' if lower else 'U'}")


def _well(n, scale=0.3):
    """Well-conditioned, eigenvalues near 2 (positive: real logm and sqrtm)."""
    return CUSTOM(lambda rng: rng.standard_normal((n, n)) * scale + np.eye(n) * 2.0, f"WC{n}")


def _negative_eigenvalue(n):
    """Real, with one eigenvalue near -1: its principal sqrtm and logm are complex."""
    def draw(rng):
        return rng.standard_normal((n, n)) * 0.2 + np.diag([-1.0] + [2.0] * (n - 1))
    return CUSTOM(draw, f"NEG{n}")


def _cho(n, lower):
    return CUSTOM(lambda rng: linalg.cho_factor(_spd(n)(rng), lower=lower), f"CHO{n}{lower}")


def _lu(n):
    def draw(rng):
        a = rng.standard_normal((n, n))
        a[0] *= 0.1  # make the pivots move rows
        return linalg.lu_factor(a)
    return CUSTOM(draw, f"LU{n}")


def _first_part(y, rng):
    return (rng.standard_normal(np.shape(y[0])), None)


BANDED = CUSTOM(lambda rng: rng.standard_normal((3, 4)) * 0.3 + np.array([[0.0], [2.0], [0.0]]), "AB(1,1)4")
BANDED_LOWER = CUSTOM(lambda rng: rng.standard_normal((3, 4)) * 0.3 + np.array([[2.0], [0.0], [0.0]]), "AB(2,0)4")


def linalg_specs():
    la = linalg
    specs = [
        F(la.solve_triangular, _triangular(3, False), R(3)), F(la.solve_triangular, _triangular(3, True), R(3, 2), lower=True),
        F(la.solve_triangular, _well(3), R(3, 2), lower=True, note="full a, lower triangle read"),
        F(la.solve_triangular, _well(3), R(3), trans=1), F(la.solve_triangular, _well(3), R(3, 2), trans="T", lower=True),
        F(la.solve_triangular, _well(4), R(4), unit_diagonal=True, lower=True),
        F(la.solve_triangular, _well(3), R(3, 2), trans=2, unit_diagonal=True),
        F(la.cholesky, _spd(3)), F(la.cholesky, _spd(4), lower=True),
        F(la.cho_factor, _spd(3), g=_first_part), F(la.cho_factor, _spd(3), lower=True, g=_first_part),
        F(la.cho_solve, _cho(3, False), R(3)), F(la.cho_solve, _cho(3, True), R(3, 2)),
        F(la.lu_factor, _well(3, 1.0), g=_first_part), F(la.lu_factor, R(4, 4), g=_first_part),
        F(la.lu_solve, _lu(3), R(3)), F(la.lu_solve, _lu(4), R(4, 2), trans=1),
        F(la.solve, _well(3), R(3)), F(la.solve, _well(3), R(3, 2), transposed=True),
        F(la.solve, _spd(3), R(3, 2), assume_a="pos"), F(la.solve, _spd(3), R(3), assume_a="sym", lower=True),
        F(la.solve_banded, (1, 1), BANDED, R(4)), F(la.solve_banded, (2, 0), BANDED_LOWER, R(4, 2)),
        F(la.inv, _well(3)), F(la.det, _well(3)), F(la.det, R(4, 4)),
        F(la.expm, R(3, 3)), F(la.expm, R(2, 3, 3)), F(la.sqrtm, _spd(3)), F(la.sqrtm, _well(3)),
        F(la.logm, _spd(2)),
        F(la.sqrtm, _negative_eigenvalue(3), note="complex result"),
        F(la.logm, _negative_eigenvalue(3), note="complex result"),
        F(la.cosm, R(2, 2)), F(la.sinm, R(2, 2)), F(la.tanm, R(2, 2, lo=-0.2, hi=0.2)),
        F(la.coshm, R(2, 2)), F(la.sinhm, R(2, 2)), F(la.tanhm, R(2, 2)),
        F(la.eigh, _sym(4), driver="evd"), F(la.eigh, _sym(3), lower=False, driver="evd"), F(la.eigh, _sym(4), eigvals_only=True),
        F(la.eigvalsh, _sym(3)), F(la.eigvalsh, _sym(3), lower=False),
        F(la.solve_sylvester, _well(3), _well(2), R(3, 2)),
        F(la.solve_continuous_lyapunov, _well(3), R(3, 3)),
        F(la.block_diag, R(2, 2), R(3), S(), R(1, 2)), F(la.block_diag, R(2, 3)),
    ]
    return specs


def _method(dist, method, *args, **kwargs):
    name = getattr(dist, "name", type(dist).__name__)
    return M(type(dist), method, CUSTOM(lambda rng: dist, name), *args, **kwargs)


def stats_specs():
    st = stats
    specs = []
    methods = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
    for name in ("norm", "cauchy", "laplace", "logistic", "gumbel_r", "gumbel_l"):
        dist = getattr(st, name)
        for method in methods:
            specs += [_method(dist, method, R(3, 4), loc=R(4), scale=P(3, 1)), _method(dist, method, S(), S(), PS())]
    for name in ("expon", "halfnorm", "rayleigh"):
        dist = getattr(st, name)
        for method in methods:
            specs += [_method(dist, method, P(3, 4)), _method(dist, method, R(3, 4, lo=1.0, hi=3.0), loc=R(4, lo=-0.5, hi=0.5), scale=P(3, 1))]
    for method in methods:
        specs += [_method(st.uniform, method, R(3, 4, lo=0.6, hi=1.4), loc=R(4, lo=0.0, hi=0.4), scale=R(3, 1, lo=1.5, hi=2.0))]
        cdf_like = method not in ("logpdf", "pdf")
        specs += [_method(st.t, method, R(3, 4), R(4, lo=1.5, hi=5.0), loc=S(), scale=PS()),
                  _method(st.t, method, S(), 3.0, loc=R(3), scale=P(3)),
                  _method(st.chi2, method, R(3, 4, lo=0.5, hi=3.0), R(4, lo=1.5, hi=5.0)),
                  _method(st.gamma, method, R(3, 4, lo=0.5, hi=3.0), R(4, lo=1.5, hi=4.0), loc=S(-0.2, 0.2), scale=PS()),
                  _method(st.beta, method, R(3, 4, lo=0.2, hi=0.8), R(4, lo=1.5, hi=3.0), R(3, 1, lo=1.5, hi=3.0))]
        if cdf_like:
            specs += [_method(st.gamma, method, P(3), 2.5), _method(st.beta, method, R(3, lo=0.2, hi=0.8), 2.0, 3.0)]
    counts = CUSTOM(lambda rng: np.array([0.0, 1.0, 2.0, 4.0, 7.0]), "k")
    for method in ("logpmf", "pmf", "cdf", "logcdf", "sf", "logsf"):
        specs += [_method(st.poisson, method, counts, R(5, lo=1.0, hi=4.0)),
                  _method(st.poisson, method, 3.0, PS()),
                  _method(st.binom, method, counts, 9, R(5, lo=0.2, hi=0.8)),
                  _method(st.binom, method, np.array([1.0, 3.0]), 6, S(0.2, 0.8), loc=1),
                  _method(st.bernoulli, method, np.array([0.0, 1.0, 0.0] if method != "logsf" else [0.0, 0.0]),
                          R(3 if method != "logsf" else 2, lo=0.2, hi=0.8))]
    mvn, dirichlet = st.multivariate_normal, st.dirichlet
    specs += [_method(mvn, "entropy", R(3), _spd(3)), _method(mvn, "entropy", cov=_spd(2)),
              _method(mvn, "entropy", R(3), P(3)), _method(mvn, "entropy", R(2), PS())]
    for method in ("logpdf", "pdf"):
        specs += [_method(mvn, method, R(3), R(3), _spd(3)), _method(mvn, method, R(4, 2), R(2), _spd(2)),
                  _method(mvn, method, R(3), R(3), cov=P(3)), _method(mvn, method, R(5, 3), R(3), cov=PS()),
                  _method(mvn, method, R(1, 2), mean=R(2), cov=_spd(2)),
                  _method(dirichlet, method, R(2, lo=0.2, hi=0.4), R(3, lo=1.5, hi=3.0)),
                  _method(dirichlet, method, R(2, 4, lo=0.1, hi=0.45), R(3, lo=0.5, hi=3.0))]
    specs += frozen_specs()
    return specs


def _frozen(label, make):
    return CUSTOM(lambda rng: make(), label)


def _args_kwds_g(y, rng):
    """A random cotangent for a frozen distribution: one per argument it holds."""
    def like(v):
        return float(rng.standard_normal()) if np.ndim(v) == 0 else rng.standard_normal(np.shape(v))
    return {"args": tuple(like(v) for v in y.args), "kwds": {k: like(v) for k, v in y.kwds.items()}}


def frozen_specs():
    st = stats
    cont = type(st.norm())
    disc = type(st.poisson(1.0))
    mvn_frozen = type(st.multivariate_normal())
    dir_frozen = type(st.dirichlet(np.ones(2)))
    specs = [F(cont, st.norm, R(3), P(3), g=_args_kwds_g), F(cont, st.t, PS(), loc=S(), scale=PS(), g=_args_kwds_g),
             F(disc, st.poisson, P(3), g=_args_kwds_g), F(disc, st.binom, 5, R(2, lo=0.2, hi=0.8), g=_args_kwds_g),
             F(mvn_frozen, R(2), _spd(2), g=lambda y, rng: {"mean": rng.standard_normal(2), "cov": None}),
             F(dir_frozen, P(3), g=lambda y, rng: {"alpha": rng.standard_normal(3)})]
    for method in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
        specs += [M(cont, method, _frozen("norm(0.3,1.2)", lambda: st.norm(0.3, 1.2)), R(3)),
                  M(cont, method, _frozen("gamma(2.5,scale=0.7)", lambda: st.gamma(2.5, scale=0.7)), P(3))]
    for method in ("logpmf", "pmf", "cdf", "logcdf", "sf", "logsf"):
        specs += [M(disc, method, _frozen("poisson(2.5)", lambda: st.poisson(2.5)), np.array([0, 2, 5]),
                    note="the object only (checked end to end)")]
    for method in ("logpdf", "pdf"):
        specs += [M(mvn_frozen, method, _frozen("mvn", lambda: st.multivariate_normal([0.1, 0.2], [[2.0, 0.3], [0.3, 1.0]])),
                    R(4, 2)),
                  M(dir_frozen, method, _frozen("dirichlet", lambda: st.dirichlet([1.5, 2.0, 3.0])), R(2, lo=0.2, hi=0.4))]
    return specs


def scipy_specs():
    """Every SciPy spec, or [] without SciPy."""
    if special is None:
        return []
    return special_specs() + linalg_specs() + stats_specs()


__all__ = ["scipy_specs"]
