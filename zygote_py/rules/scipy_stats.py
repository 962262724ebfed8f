"""Rules for scipy.stats distributions: logpdf/pdf/cdf/logcdf/sf/logsf of continuous
distributions with loc and scale, logpmf/pmf/cdf/logcdf/sf/logsf of discrete ones,
multivariate_normal and dirichlet, and the same methods of frozen distributions
(`norm(loc, scale).logpdf(x)`).

Imported on demand when SciPy is (see scipy_support.py).  A method is registered
for the distribution's class (`type(scipy.stats.norm)`), so a call resolves from
the object that is there; the rules of one signature (no shape parameters; `df`;
`a`; `a, b`) are one function each, and the helpers pick the distribution's
standardised log density from the object's type (`_FAMILIES`).

Continuous distributions: with z = (x - loc) / scale and lp the standardised log
density, d logpdf = lp'(z) (dx - dloc - z dscale) / scale - dscale / scale + d lp / d shape;
a CDF's derivative in x, loc and scale is the density (times the same factors).
Derivatives of a CDF in a shape parameter (t's df, gamma's a, beta's a and b) are
not given: those parameters are refused when active (NoDerivativeRule).  Outside the
support the derivative is zero.

Discrete distributions are differentiable in their real parameters (poisson's mu,
binom's and bernoulli's p); the count k, binom's n and the integer shift loc are
not (an active k or n is refused).
"""

from __future__ import annotations

import math

import numpy as np

from zygote_py.rules.factorizations import _fold_triangle
from zygote_py.rules.scipy_support import Library, optional_module
from zygote_py.runtime import unbroadcast

LIB = Library("scipy.stats")
special = optional_module("scipy.special")

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_LOG_PI = math.log(math.pi)
_LOG_2 = math.log(2.0)
_HALF_LOG_2_OVER_PI = 0.5 * math.log(2.0 / math.pi)


# ---------------------------------------------------------------------------
# standardised log densities: lp(z, *shapes) -> (lp, d lp / dz, (d lp / d shape, ...))


def _norm(z):
    return -0.5 * z * z - _LOG_SQRT_2PI, -z, ()


def _cauchy(z):
    return -_LOG_PI - np.log1p(z * z), -2.0 * z / (1.0 + z * z), ()


def _laplace(z):
    return -_LOG_2 - np.abs(z), -np.sign(z), ()


def _logistic(z):
    return -np.abs(z) - 2.0 * np.log1p(np.exp(-np.abs(z))), -np.tanh(z / 2.0), ()


def _on_positive(z, lp, dz):
    """lp and dz where z > 0 (z >= 0: closed), -inf and 0 elsewhere."""
    inside = z > 0
    return np.where(inside, lp, -np.inf), np.where(inside, dz, 0.0)


def _expon(z):
    inside = z >= 0
    return np.where(inside, -z, -np.inf), np.where(inside, -1.0, 0.0), ()


def _halfnorm(z):
    inside = z >= 0
    return np.where(inside, _HALF_LOG_2_OVER_PI - 0.5 * z * z, -np.inf), np.where(inside, -z, 0.0), ()


def _rayleigh(z):
    safe = np.where(z > 0, z, 1.0)
    lp, dz = _on_positive(z, np.log(safe) - 0.5 * z * z, 1.0 / safe - z)
    return lp, dz, ()


def _gumbel_r(z):
    return -z - np.exp(-z), np.expm1(-z), ()


def _gumbel_l(z):
    return z - np.exp(z), -np.expm1(z), ()


def _uniform(z):
    inside = (z >= 0) & (z <= 1)
    return np.where(inside, 0.0, -np.inf), np.zeros(np.shape(z)), ()


def _t(z, df):
    ratio = z * z / df
    lp = special.gammaln((df + 1.0) / 2.0) - special.gammaln(df / 2.0) - 0.5 * np.log(df * math.pi) \
        - (df + 1.0) / 2.0 * np.log1p(ratio)
    dz = -(df + 1.0) * z / (df + z * z)
    ddf = 0.5 * (special.psi((df + 1.0) / 2.0) - special.psi(df / 2.0)) - 0.5 / df \
        - 0.5 * np.log1p(ratio) + (df + 1.0) * z * z / (2.0 * df * (df + z * z))
    return lp, dz, (ddf,)


def _chi2(z, df):
    half = df / 2.0
    safe = np.where(z > 0, z, 1.0)
    lp, dz = _on_positive(z, (half - 1.0) * np.log(safe) - z / 2.0 - half * _LOG_2 - special.gammaln(half),
                          (half - 1.0) / safe - 0.5)
    ddf = np.where(z > 0, 0.5 * (np.log(safe) - _LOG_2 - special.psi(half)), 0.0)
    return lp, dz, (ddf,)


def _gamma(z, a):
    safe = np.where(z > 0, z, 1.0)
    lp, dz = _on_positive(z, (a - 1.0) * np.log(safe) - z - special.gammaln(a), (a - 1.0) / safe - 1.0)
    return lp, dz, (np.where(z > 0, np.log(safe) - special.psi(a), 0.0),)


def _beta(z, a, b):
    inside = (z > 0) & (z < 1)
    safe = np.where(inside, z, 0.5)
    both = special.psi(a + b)
    lp = np.where(inside, (a - 1.0) * np.log(safe) + (b - 1.0) * np.log1p(-safe) - special.betaln(a, b), -np.inf)
    dz = np.where(inside, (a - 1.0) / safe - (b - 1.0) / (1.0 - safe), 0.0)
    da = np.where(inside, np.log(safe) - special.psi(a) + both, 0.0)
    db = np.where(inside, np.log1p(-safe) - special.psi(b) + both, 0.0)
    return lp, dz, (da, db)


_FAMILIES = {}
if LIB.module is not None:
    _FAMILIES = {type(getattr(LIB.module, name)): fn for name, fn in [
        ("norm", _norm), ("cauchy", _cauchy), ("laplace", _laplace), ("logistic", _logistic),
        ("expon", _expon), ("halfnorm", _halfnorm), ("rayleigh", _rayleigh), ("gumbel_r", _gumbel_r),
        ("gumbel_l", _gumbel_l), ("uniform", _uniform), ("t", _t), ("chi2", _chi2), ("gamma", _gamma),
        ("beta", _beta)]}


# ---------------------------------------------------------------------------
# helpers (called from rule bodies)


def _like(v, arg):
    """v shaped as the argument's cotangent: summed over broadcasting, a float for a number."""
    if v is None:
        return None
    out = unbroadcast(v, arg)
    if not isinstance(arg, np.ndarray) and np.ndim(out) == 0:
        return float(out)
    return out


def _family(dist):
    """The standardised log density of the distribution object's own class."""
    fn = _FAMILIES.get(type(dist))
    if fn is None:
        raise NotImplementedError(f"zygote_py: no derivative rule for the methods of {type(dist).__name__}")
    return fn


def _continuous_cotangents(dist, method, g, y, x, shapes, loc, scale):
    """(x_bar, *shape_bars, loc_bar, scale_bar) of dist.method(x, *shapes, loc, scale)."""
    x = np.asarray(x, dtype=float)
    z = (x - loc) / scale
    lp, dz, dshapes = _family(dist)(z, *shapes)
    inside = np.isfinite(lp)
    if method in ("logpdf", "pdf"):
        weight = g if method == "logpdf" else g * y
        weight = np.where(inside, weight, 0.0)
        gx = weight * dz / scale
        gscale = -weight * (dz * z + 1.0) / scale
        gshapes = tuple(weight * d for d in dshapes)
    else:
        density = np.exp(lp) if method in ("cdf", "sf") else np.exp(lp - y)
        sign = 1.0 if method in ("cdf", "logcdf") else -1.0
        weight = np.where(inside, sign * g * density, 0.0)
        gx = weight / scale
        gscale = -weight * z / scale
        gshapes = ()
    parts = (_like(gx, x),) + tuple(_like(d, s) for d, s in zip(gshapes, shapes))
    return parts + (_like(-gx, loc), _like(gscale, scale))


def _density_method(method):
    return method in ("logpdf", "pdf")


def _continuous_tangent(dist, method, dx, dshapes, dloc, dscale, y, x, shapes, loc, scale):
    """The forward-mode rule: the reverse one's weights applied to the tangents."""
    ones = np.ones(np.broadcast_shapes(np.shape(x), np.shape(loc), np.shape(scale),
                                       *(np.shape(s) for s in shapes)))
    parts = _continuous_cotangents(dist, method, ones, y, ones * x, tuple(ones * s for s in shapes),
                                   ones * loc, ones * scale)
    tangents = (dx,) + (tuple(dshapes) if _density_method(method) else ()) + (dloc, dscale)
    total = 0.0
    for part, d in zip(parts, tangents):
        if d is not None and part is not None:
            total = total + part * d
    return total * ones


# ---------------------------------------------------------------------------
# continuous distributions, one rule function per signature and method; each is
# registered for every distribution of that signature (the helper reads the family
# from the object's type)


def _continuous(names, method, shapes, **options):
    """Register a rule for `method` of the distributions `names` (shape parameters
    `shapes`: differentiable in the densities, refused when active in the CDFs)."""
    density = method in ("logpdf", "pdf")
    diff = ("x",) + (shapes if density else ()) + ("loc", "scale")
    underived = () if density else shapes

    def register(fn):
        for name in names:
            LIB.method_rule(LIB.type_of(name), name, method, diff=diff, underived=underived,
                            **options)(fn)
        return fn
    return register

_PLAIN = ('norm', 'cauchy', 'laplace', 'logistic', 'expon', 'halfnorm', 'rayleigh', 'gumbel_r', 'gumbel_l', 'uniform')

_DF = ('t', 'chi2')

_A = ('gamma',)

_AB = ('beta',)

def _plain_logpdf_tangent(dx, dloc, dscale, y, self, x, loc=0, scale=1):
    return _continuous_tangent(self, "logpdf", dx, (), dloc, dscale, y, x, (), loc, scale)


@_continuous(_PLAIN, "logpdf", (), jvp=_plain_logpdf_tangent)
def plain_logpdf(g, y, self, x, loc=0, scale=1):
    """In x, loc and scale."""
    return _continuous_cotangents(self, "logpdf", g, y, x, (), loc, scale)


def _plain_pdf_tangent(dx, dloc, dscale, y, self, x, loc=0, scale=1):
    return _continuous_tangent(self, "pdf", dx, (), dloc, dscale, y, x, (), loc, scale)


@_continuous(_PLAIN, "pdf", (), jvp=_plain_pdf_tangent)
def plain_pdf(g, y, self, x, loc=0, scale=1):
    """In x, loc and scale."""
    return _continuous_cotangents(self, "pdf", g, y, x, (), loc, scale)


def _plain_cdf_tangent(dx, dloc, dscale, y, self, x, loc=0, scale=1):
    return _continuous_tangent(self, "cdf", dx, (), dloc, dscale, y, x, (), loc, scale)


@_continuous(_PLAIN, "cdf", (), jvp=_plain_cdf_tangent)
def plain_cdf(g, y, self, x, loc=0, scale=1):
    """In x, loc and scale."""
    return _continuous_cotangents(self, "cdf", g, y, x, (), loc, scale)


def _plain_logcdf_tangent(dx, dloc, dscale, y, self, x, loc=0, scale=1):
    return _continuous_tangent(self, "logcdf", dx, (), dloc, dscale, y, x, (), loc, scale)


@_continuous(_PLAIN, "logcdf", (), jvp=_plain_logcdf_tangent)
def plain_logcdf(g, y, self, x, loc=0, scale=1):
    """In x, loc and scale."""
    return _continuous_cotangents(self, "logcdf", g, y, x, (), loc, scale)


def _plain_sf_tangent(dx, dloc, dscale, y, self, x, loc=0, scale=1):
    return _continuous_tangent(self, "sf", dx, (), dloc, dscale, y, x, (), loc, scale)


@_continuous(_PLAIN, "sf", (), jvp=_plain_sf_tangent)
def plain_sf(g, y, self, x, loc=0, scale=1):
    """In x, loc and scale."""
    return _continuous_cotangents(self, "sf", g, y, x, (), loc, scale)


def _plain_logsf_tangent(dx, dloc, dscale, y, self, x, loc=0, scale=1):
    return _continuous_tangent(self, "logsf", dx, (), dloc, dscale, y, x, (), loc, scale)


@_continuous(_PLAIN, "logsf", (), jvp=_plain_logsf_tangent)
def plain_logsf(g, y, self, x, loc=0, scale=1):
    """In x, loc and scale."""
    return _continuous_cotangents(self, "logsf", g, y, x, (), loc, scale)


def _df_logpdf_tangent(dx, ddf, dloc, dscale, y, self, x, df, loc=0, scale=1):
    return _continuous_tangent(self, "logpdf", dx, (ddf, ), dloc, dscale, y, x, (df, ), loc, scale)


@_continuous(_DF, "logpdf", ('df',), jvp=_df_logpdf_tangent)
def df_logpdf(g, y, self, x, df, loc=0, scale=1):
    """In x, df, loc and scale."""
    return _continuous_cotangents(self, "logpdf", g, y, x, (df, ), loc, scale)


def _df_pdf_tangent(dx, ddf, dloc, dscale, y, self, x, df, loc=0, scale=1):
    return _continuous_tangent(self, "pdf", dx, (ddf, ), dloc, dscale, y, x, (df, ), loc, scale)


@_continuous(_DF, "pdf", ('df',), jvp=_df_pdf_tangent)
def df_pdf(g, y, self, x, df, loc=0, scale=1):
    """In x, df, loc and scale."""
    return _continuous_cotangents(self, "pdf", g, y, x, (df, ), loc, scale)


def _df_cdf_tangent(dx, dloc, dscale, y, self, x, df, loc=0, scale=1):
    return _continuous_tangent(self, "cdf", dx, (None, ), dloc, dscale, y, x, (df, ), loc, scale)


@_continuous(_DF, "cdf", ('df',), jvp=_df_cdf_tangent)
def df_cdf(g, y, self, x, df, loc=0, scale=1):
    """In x, loc and scale."""
    return _continuous_cotangents(self, "cdf", g, y, x, (df, ), loc, scale)


def _df_logcdf_tangent(dx, dloc, dscale, y, self, x, df, loc=0, scale=1):
    return _continuous_tangent(self, "logcdf", dx, (None, ), dloc, dscale, y, x, (df, ), loc, scale)


@_continuous(_DF, "logcdf", ('df',), jvp=_df_logcdf_tangent)
def df_logcdf(g, y, self, x, df, loc=0, scale=1):
    """In x, loc and scale."""
    return _continuous_cotangents(self, "logcdf", g, y, x, (df, ), loc, scale)


def _df_sf_tangent(dx, dloc, dscale, y, self, x, df, loc=0, scale=1):
    return _continuous_tangent(self, "sf", dx, (None, ), dloc, dscale, y, x, (df, ), loc, scale)


@_continuous(_DF, "sf", ('df',), jvp=_df_sf_tangent)
def df_sf(g, y, self, x, df, loc=0, scale=1):
    """In x, loc and scale."""
    return _continuous_cotangents(self, "sf", g, y, x, (df, ), loc, scale)


def _df_logsf_tangent(dx, dloc, dscale, y, self, x, df, loc=0, scale=1):
    return _continuous_tangent(self, "logsf", dx, (None, ), dloc, dscale, y, x, (df, ), loc, scale)


@_continuous(_DF, "logsf", ('df',), jvp=_df_logsf_tangent)
def df_logsf(g, y, self, x, df, loc=0, scale=1):
    """In x, loc and scale."""
    return _continuous_cotangents(self, "logsf", g, y, x, (df, ), loc, scale)


def _a_logpdf_tangent(dx, da, dloc, dscale, y, self, x, a, loc=0, scale=1):
    return _continuous_tangent(self, "logpdf", dx, (da, ), dloc, dscale, y, x, (a, ), loc, scale)


@_continuous(_A, "logpdf", ('a',), jvp=_a_logpdf_tangent)
def a_logpdf(g, y, self, x, a, loc=0, scale=1):
    """In x, a, loc and scale."""
    return _continuous_cotangents(self, "logpdf", g, y, x, (a, ), loc, scale)


def _a_pdf_tangent(dx, da, dloc, dscale, y, self, x, a, loc=0, scale=1):
    return _continuous_tangent(self, "pdf", dx, (da, ), dloc, dscale, y, x, (a, ), loc, scale)


@_continuous(_A, "pdf", ('a',), jvp=_a_pdf_tangent)
def a_pdf(g, y, self, x, a, loc=0, scale=1):
    """In x, a, loc and scale."""
    return _continuous_cotangents(self, "pdf", g, y, x, (a, ), loc, scale)


def _a_cdf_tangent(dx, dloc, dscale, y, self, x, a, loc=0, scale=1):
    return _continuous_tangent(self, "cdf", dx, (None, ), dloc, dscale, y, x, (a, ), loc, scale)


@_continuous(_A, "cdf", ('a',), jvp=_a_cdf_tangent)
def a_cdf(g, y, self, x, a, loc=0, scale=1):
    """In x, loc and scale."""
    return _continuous_cotangents(self, "cdf", g, y, x, (a, ), loc, scale)


def _a_logcdf_tangent(dx, dloc, dscale, y, self, x, a, loc=0, scale=1):
    return _continuous_tangent(self, "logcdf", dx, (None, ), dloc, dscale, y, x, (a, ), loc, scale)


@_continuous(_A, "logcdf", ('a',), jvp=_a_logcdf_tangent)
def a_logcdf(g, y, self, x, a, loc=0, scale=1):
    """In x, loc and scale."""
    return _continuous_cotangents(self, "logcdf", g, y, x, (a, ), loc, scale)


def _a_sf_tangent(dx, dloc, dscale, y, self, x, a, loc=0, scale=1):
    return _continuous_tangent(self, "sf", dx, (None, ), dloc, dscale, y, x, (a, ), loc, scale)


@_continuous(_A, "sf", ('a',), jvp=_a_sf_tangent)
def a_sf(g, y, self, x, a, loc=0, scale=1):
    """In x, loc and scale."""
    return _continuous_cotangents(self, "sf", g, y, x, (a, ), loc, scale)


def _a_logsf_tangent(dx, dloc, dscale, y, self, x, a, loc=0, scale=1):
    return _continuous_tangent(self, "logsf", dx, (None, ), dloc, dscale, y, x, (a, ), loc, scale)


@_continuous(_A, "logsf", ('a',), jvp=_a_logsf_tangent)
def a_logsf(g, y, self, x, a, loc=0, scale=1):
    """In x, loc and scale."""
    return _continuous_cotangents(self, "logsf", g, y, x, (a, ), loc, scale)


def _ab_logpdf_tangent(dx, da, db, dloc, dscale, y, self, x, a, b, loc=0, scale=1):
    return _continuous_tangent(self, "logpdf", dx, (da, db, ), dloc, dscale, y, x, (a, b, ), loc, scale)


@_continuous(_AB, "logpdf", ('a', 'b'), jvp=_ab_logpdf_tangent)
def ab_logpdf(g, y, self, x, a, b, loc=0, scale=1):
    """In x, a, b, loc and scale."""
    return _continuous_cotangents(self, "logpdf", g, y, x, (a, b, ), loc, scale)


def _ab_pdf_tangent(dx, da, db, dloc, dscale, y, self, x, a, b, loc=0, scale=1):
    return _continuous_tangent(self, "pdf", dx, (da, db, ), dloc, dscale, y, x, (a, b, ), loc, scale)


@_continuous(_AB, "pdf", ('a', 'b'), jvp=_ab_pdf_tangent)
def ab_pdf(g, y, self, x, a, b, loc=0, scale=1):
    """In x, a, b, loc and scale."""
    return _continuous_cotangents(self, "pdf", g, y, x, (a, b, ), loc, scale)


def _ab_cdf_tangent(dx, dloc, dscale, y, self, x, a, b, loc=0, scale=1):
    return _continuous_tangent(self, "cdf", dx, (None, None, ), dloc, dscale, y, x, (a, b, ), loc, scale)


@_continuous(_AB, "cdf", ('a', 'b'), jvp=_ab_cdf_tangent)
def ab_cdf(g, y, self, x, a, b, loc=0, scale=1):
    """In x, loc and scale."""
    return _continuous_cotangents(self, "cdf", g, y, x, (a, b, ), loc, scale)


def _ab_logcdf_tangent(dx, dloc, dscale, y, self, x, a, b, loc=0, scale=1):
    return _continuous_tangent(self, "logcdf", dx, (None, None, ), dloc, dscale, y, x, (a, b, ), loc, scale)


@_continuous(_AB, "logcdf", ('a', 'b'), jvp=_ab_logcdf_tangent)
def ab_logcdf(g, y, self, x, a, b, loc=0, scale=1):
    """In x, loc and scale."""
    return _continuous_cotangents(self, "logcdf", g, y, x, (a, b, ), loc, scale)


def _ab_sf_tangent(dx, dloc, dscale, y, self, x, a, b, loc=0, scale=1):
    return _continuous_tangent(self, "sf", dx, (None, None, ), dloc, dscale, y, x, (a, b, ), loc, scale)


@_continuous(_AB, "sf", ('a', 'b'), jvp=_ab_sf_tangent)
def ab_sf(g, y, self, x, a, b, loc=0, scale=1):
    """In x, loc and scale."""
    return _continuous_cotangents(self, "sf", g, y, x, (a, b, ), loc, scale)


def _ab_logsf_tangent(dx, dloc, dscale, y, self, x, a, b, loc=0, scale=1):
    return _continuous_tangent(self, "logsf", dx, (None, None, ), dloc, dscale, y, x, (a, b, ), loc, scale)


@_continuous(_AB, "logsf", ('a', 'b'), jvp=_ab_logsf_tangent)
def ab_logsf(g, y, self, x, a, b, loc=0, scale=1):
    """In x, loc and scale."""
    return _continuous_cotangents(self, "logsf", g, y, x, (a, b, ), loc, scale)


# ---------------------------------------------------------------------------
# discrete distributions: poisson (mu), binom (n, p), bernoulli (p)


def _poisson(k, mu):
    """(d logpmf / d mu, d cdf / d mu) at the shifted count k."""
    return k / mu - 1.0, -LIB.module.poisson.pmf(np.floor(k), mu)


def _binom(k, n, p):
    return k / p - (n - k) / (1.0 - p), -n * LIB.module.binom.pmf(np.floor(k), n - 1, p)


def _bernoulli(k, p):
    return k / p - (1.0 - k) / (1.0 - p), -LIB.module.binom.pmf(np.floor(k), 0, p)


_DISCRETE = {}
if LIB.module is not None:
    _DISCRETE = {type(LIB.module.poisson): _poisson, type(LIB.module.binom): _binom,
                 type(LIB.module.bernoulli): _bernoulli}


def _discrete_weight(dist, method, g, y, k, params, loc):
    """g times the derivative of dist.method(k, *params, loc) in its last parameter
    (the real one: mu or p)."""
    fn = _DISCRETE.get(type(dist))
    if fn is None:
        raise NotImplementedError(f"zygote_py: no derivative rule for the methods of {type(dist).__name__}")
    shifted = np.asarray(k, dtype=float) - loc
    dlogpmf, dcdf = fn(shifted, *params)
    y = np.asarray(y, dtype=float)
    if method in ("logpmf", "pmf"):
        inside = np.isfinite(y) if method == "logpmf" else y != 0
        weight = g if method == "logpmf" else g * y
        return np.where(inside, weight * np.where(inside, dlogpmf, 0.0), 0.0)
    sign = 1.0 if method in ("cdf", "logcdf") else -1.0
    finite = np.isfinite(y)
    scale = 1.0 if method in ("cdf", "sf") else np.exp(-np.where(finite, y, 0.0))
    return np.where(finite, sign * g * dcdf * scale, 0.0)


def _discrete_cotangent(dist, method, g, y, k, params, loc):
    return _like(_discrete_weight(dist, method, g, y, k, params, loc), params[-1])


def _discrete_tangent(dist, method, dparam, y, k, params, loc):
    ones = np.ones(np.broadcast_shapes(np.shape(k), *(np.shape(p) for p in params), np.shape(loc)))
    return _discrete_weight(dist, method, ones, y, k, params, loc) * dparam


def _discrete(name, method, param, underived, forward):
    """Register a rule for dist.method, differentiable in `param`, with `underived`
    (the count k, binom's n) refused when active."""
    def register(fn):
        LIB.method_rule(LIB.type_of(name), name, method, diff=(param,), underived=underived,
                        jvp=forward)(fn)
        return fn
    return register


def _poisson_logpmf_tangent(dmu, y, self, k, mu, loc=0):
    return _discrete_tangent(self, "logpmf", dmu, y, k, (mu,), loc)


@_discrete("poisson", "logpmf", "mu", ('k',), _poisson_logpmf_tangent)
def poisson_logpmf(g, y, self, k, mu, loc=0):
    """In mu."""
    return _discrete_cotangent(self, "logpmf", g, y, k, (mu,), loc)


def _poisson_pmf_tangent(dmu, y, self, k, mu, loc=0):
    return _discrete_tangent(self, "pmf", dmu, y, k, (mu,), loc)


@_discrete("poisson", "pmf", "mu", ('k',), _poisson_pmf_tangent)
def poisson_pmf(g, y, self, k, mu, loc=0):
    """In mu."""
    return _discrete_cotangent(self, "pmf", g, y, k, (mu,), loc)


def _poisson_cdf_tangent(dmu, y, self, k, mu, loc=0):
    return _discrete_tangent(self, "cdf", dmu, y, k, (mu,), loc)


@_discrete("poisson", "cdf", "mu", ('k',), _poisson_cdf_tangent)
def poisson_cdf(g, y, self, k, mu, loc=0):
    """In mu."""
    return _discrete_cotangent(self, "cdf", g, y, k, (mu,), loc)


def _poisson_logcdf_tangent(dmu, y, self, k, mu, loc=0):
    return _discrete_tangent(self, "logcdf", dmu, y, k, (mu,), loc)


@_discrete("poisson", "logcdf", "mu", ('k',), _poisson_logcdf_tangent)
def poisson_logcdf(g, y, self, k, mu, loc=0):
    """In mu."""
    return _discrete_cotangent(self, "logcdf", g, y, k, (mu,), loc)


def _poisson_sf_tangent(dmu, y, self, k, mu, loc=0):
    return _discrete_tangent(self, "sf", dmu, y, k, (mu,), loc)


@_discrete("poisson", "sf", "mu", ('k',), _poisson_sf_tangent)
def poisson_sf(g, y, self, k, mu, loc=0):
    """In mu."""
    return _discrete_cotangent(self, "sf", g, y, k, (mu,), loc)


def _poisson_logsf_tangent(dmu, y, self, k, mu, loc=0):
    return _discrete_tangent(self, "logsf", dmu, y, k, (mu,), loc)


@_discrete("poisson", "logsf", "mu", ('k',), _poisson_logsf_tangent)
def poisson_logsf(g, y, self, k, mu, loc=0):
    """In mu."""
    return _discrete_cotangent(self, "logsf", g, y, k, (mu,), loc)


def _binom_logpmf_tangent(dp, y, self, k, n, p, loc=0):
    return _discrete_tangent(self, "logpmf", dp, y, k, (n, p,), loc)


@_discrete("binom", "logpmf", "p", ('k', 'n'), _binom_logpmf_tangent)
def binom_logpmf(g, y, self, k, n, p, loc=0):
    """In p."""
    return _discrete_cotangent(self, "logpmf", g, y, k, (n, p,), loc)


def _binom_pmf_tangent(dp, y, self, k, n, p, loc=0):
    return _discrete_tangent(self, "pmf", dp, y, k, (n, p,), loc)


@_discrete("binom", "pmf", "p", ('k', 'n'), _binom_pmf_tangent)
def binom_pmf(g, y, self, k, n, p, loc=0):
    """In p."""
    return _discrete_cotangent(self, "pmf", g, y, k, (n, p,), loc)


def _binom_cdf_tangent(dp, y, self, k, n, p, loc=0):
    return _discrete_tangent(self, "cdf", dp, y, k, (n, p,), loc)


@_discrete("binom", "cdf", "p", ('k', 'n'), _binom_cdf_tangent)
def binom_cdf(g, y, self, k, n, p, loc=0):
    """In p."""
    return _discrete_cotangent(self, "cdf", g, y, k, (n, p,), loc)


def _binom_logcdf_tangent(dp, y, self, k, n, p, loc=0):
    return _discrete_tangent(self, "logcdf", dp, y, k, (n, p,), loc)


@_discrete("binom", "logcdf", "p", ('k', 'n'), _binom_logcdf_tangent)
def binom_logcdf(g, y, self, k, n, p, loc=0):
    """In p."""
    return _discrete_cotangent(self, "logcdf", g, y, k, (n, p,), loc)


def _binom_sf_tangent(dp, y, self, k, n, p, loc=0):
    return _discrete_tangent(self, "sf", dp, y, k, (n, p,), loc)


@_discrete("binom", "sf", "p", ('k', 'n'), _binom_sf_tangent)
def binom_sf(g, y, self, k, n, p, loc=0):
    """In p."""
    return _discrete_cotangent(self, "sf", g, y, k, (n, p,), loc)


def _binom_logsf_tangent(dp, y, self, k, n, p, loc=0):
    return _discrete_tangent(self, "logsf", dp, y, k, (n, p,), loc)


@_discrete("binom", "logsf", "p", ('k', 'n'), _binom_logsf_tangent)
def binom_logsf(g, y, self, k, n, p, loc=0):
    """In p."""
    return _discrete_cotangent(self, "logsf", g, y, k, (n, p,), loc)


def _bernoulli_logpmf_tangent(dp, y, self, k, p, loc=0):
    return _discrete_tangent(self, "logpmf", dp, y, k, (p,), loc)


@_discrete("bernoulli", "logpmf", "p", ('k',), _bernoulli_logpmf_tangent)
def bernoulli_logpmf(g, y, self, k, p, loc=0):
    """In p."""
    return _discrete_cotangent(self, "logpmf", g, y, k, (p,), loc)


def _bernoulli_pmf_tangent(dp, y, self, k, p, loc=0):
    return _discrete_tangent(self, "pmf", dp, y, k, (p,), loc)


@_discrete("bernoulli", "pmf", "p", ('k',), _bernoulli_pmf_tangent)
def bernoulli_pmf(g, y, self, k, p, loc=0):
    """In p."""
    return _discrete_cotangent(self, "pmf", g, y, k, (p,), loc)


def _bernoulli_cdf_tangent(dp, y, self, k, p, loc=0):
    return _discrete_tangent(self, "cdf", dp, y, k, (p,), loc)


@_discrete("bernoulli", "cdf", "p", ('k',), _bernoulli_cdf_tangent)
def bernoulli_cdf(g, y, self, k, p, loc=0):
    """In p."""
    return _discrete_cotangent(self, "cdf", g, y, k, (p,), loc)


def _bernoulli_logcdf_tangent(dp, y, self, k, p, loc=0):
    return _discrete_tangent(self, "logcdf", dp, y, k, (p,), loc)


@_discrete("bernoulli", "logcdf", "p", ('k',), _bernoulli_logcdf_tangent)
def bernoulli_logcdf(g, y, self, k, p, loc=0):
    """In p."""
    return _discrete_cotangent(self, "logcdf", g, y, k, (p,), loc)


def _bernoulli_sf_tangent(dp, y, self, k, p, loc=0):
    return _discrete_tangent(self, "sf", dp, y, k, (p,), loc)


@_discrete("bernoulli", "sf", "p", ('k',), _bernoulli_sf_tangent)
def bernoulli_sf(g, y, self, k, p, loc=0):
    """In p."""
    return _discrete_cotangent(self, "sf", g, y, k, (p,), loc)


def _bernoulli_logsf_tangent(dp, y, self, k, p, loc=0):
    return _discrete_tangent(self, "logsf", dp, y, k, (p,), loc)


@_discrete("bernoulli", "logsf", "p", ('k',), _bernoulli_logsf_tangent)
def bernoulli_logsf(g, y, self, k, p, loc=0):
    """In p."""
    return _discrete_cotangent(self, "logsf", g, y, k, (p,), loc)
