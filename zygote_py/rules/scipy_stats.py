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
        gshapes = tuple(np.full(np.shape(gx), np.nan) for _ in shapes)  # not known: never used
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
    tangents = (dx,) + tuple(dshapes) + (dloc, dscale)
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
    `shapes`: differentiable in the densities, refused when active in the CDFs, NaN there)."""
    density = method in ("logpdf", "pdf")
    diff = ("x",) + shapes + ("loc", "scale")
    # a CDF's shape parameters: refused where the call is known while compiling; where it
    # is decided while running (the distribution is an argument), their cotangent is NaN
    underived = () if density else shapes

    def register(fn):
        for name in names:
            LIB.method_rule(LIB.type_of(name), name, method, diff=diff, underived=underived,
                            **options)(fn)
        return fn
    return register


_PLAIN = ("norm", "cauchy", "laplace", "logistic", "expon", "halfnorm", "rayleigh", "gumbel_r",
          "gumbel_l", "uniform")
_DF = ("t", "chi2")
_A = ("gamma",)
_AB = ("beta",)


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


def _df_cdf_tangent(dx, ddf, dloc, dscale, y, self, x, df, loc=0, scale=1):
    return _continuous_tangent(self, "cdf", dx, (ddf, ), dloc, dscale, y, x, (df, ), loc, scale)


@_continuous(_DF, "cdf", ('df',), jvp=_df_cdf_tangent)
def df_cdf(g, y, self, x, df, loc=0, scale=1):
    """In x, loc and scale; NaN for df (refused when active where the call is known)."""
    return _continuous_cotangents(self, "cdf", g, y, x, (df, ), loc, scale)


def _df_logcdf_tangent(dx, ddf, dloc, dscale, y, self, x, df, loc=0, scale=1):
    return _continuous_tangent(self, "logcdf", dx, (ddf, ), dloc, dscale, y, x, (df, ), loc, scale)


@_continuous(_DF, "logcdf", ('df',), jvp=_df_logcdf_tangent)
def df_logcdf(g, y, self, x, df, loc=0, scale=1):
    """In x, loc and scale; NaN for df (refused when active where the call is known)."""
    return _continuous_cotangents(self, "logcdf", g, y, x, (df, ), loc, scale)


def _df_sf_tangent(dx, ddf, dloc, dscale, y, self, x, df, loc=0, scale=1):
    return _continuous_tangent(self, "sf", dx, (ddf, ), dloc, dscale, y, x, (df, ), loc, scale)


@_continuous(_DF, "sf", ('df',), jvp=_df_sf_tangent)
def df_sf(g, y, self, x, df, loc=0, scale=1):
    """In x, loc and scale; NaN for df (refused when active where the call is known)."""
    return _continuous_cotangents(self, "sf", g, y, x, (df, ), loc, scale)


def _df_logsf_tangent(dx, ddf, dloc, dscale, y, self, x, df, loc=0, scale=1):
    return _continuous_tangent(self, "logsf", dx, (ddf, ), dloc, dscale, y, x, (df, ), loc, scale)


@_continuous(_DF, "logsf", ('df',), jvp=_df_logsf_tangent)
def df_logsf(g, y, self, x, df, loc=0, scale=1):
    """In x, loc and scale; NaN for df (refused when active where the call is known)."""
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


def _a_cdf_tangent(dx, da, dloc, dscale, y, self, x, a, loc=0, scale=1):
    return _continuous_tangent(self, "cdf", dx, (da, ), dloc, dscale, y, x, (a, ), loc, scale)


@_continuous(_A, "cdf", ('a',), jvp=_a_cdf_tangent)
def a_cdf(g, y, self, x, a, loc=0, scale=1):
    """In x, loc and scale; NaN for a (refused when active where the call is known)."""
    return _continuous_cotangents(self, "cdf", g, y, x, (a, ), loc, scale)


def _a_logcdf_tangent(dx, da, dloc, dscale, y, self, x, a, loc=0, scale=1):
    return _continuous_tangent(self, "logcdf", dx, (da, ), dloc, dscale, y, x, (a, ), loc, scale)


@_continuous(_A, "logcdf", ('a',), jvp=_a_logcdf_tangent)
def a_logcdf(g, y, self, x, a, loc=0, scale=1):
    """In x, loc and scale; NaN for a (refused when active where the call is known)."""
    return _continuous_cotangents(self, "logcdf", g, y, x, (a, ), loc, scale)


def _a_sf_tangent(dx, da, dloc, dscale, y, self, x, a, loc=0, scale=1):
    return _continuous_tangent(self, "sf", dx, (da, ), dloc, dscale, y, x, (a, ), loc, scale)


@_continuous(_A, "sf", ('a',), jvp=_a_sf_tangent)
def a_sf(g, y, self, x, a, loc=0, scale=1):
    """In x, loc and scale; NaN for a (refused when active where the call is known)."""
    return _continuous_cotangents(self, "sf", g, y, x, (a, ), loc, scale)


def _a_logsf_tangent(dx, da, dloc, dscale, y, self, x, a, loc=0, scale=1):
    return _continuous_tangent(self, "logsf", dx, (da, ), dloc, dscale, y, x, (a, ), loc, scale)


@_continuous(_A, "logsf", ('a',), jvp=_a_logsf_tangent)
def a_logsf(g, y, self, x, a, loc=0, scale=1):
    """In x, loc and scale; NaN for a (refused when active where the call is known)."""
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


def _ab_cdf_tangent(dx, da, db, dloc, dscale, y, self, x, a, b, loc=0, scale=1):
    return _continuous_tangent(self, "cdf", dx, (da, db, ), dloc, dscale, y, x, (a, b, ), loc, scale)


@_continuous(_AB, "cdf", ('a', 'b'), jvp=_ab_cdf_tangent)
def ab_cdf(g, y, self, x, a, b, loc=0, scale=1):
    """In x, loc and scale; NaN for a, b (refused when active where the call is known)."""
    return _continuous_cotangents(self, "cdf", g, y, x, (a, b, ), loc, scale)


def _ab_logcdf_tangent(dx, da, db, dloc, dscale, y, self, x, a, b, loc=0, scale=1):
    return _continuous_tangent(self, "logcdf", dx, (da, db, ), dloc, dscale, y, x, (a, b, ), loc, scale)


@_continuous(_AB, "logcdf", ('a', 'b'), jvp=_ab_logcdf_tangent)
def ab_logcdf(g, y, self, x, a, b, loc=0, scale=1):
    """In x, loc and scale; NaN for a, b (refused when active where the call is known)."""
    return _continuous_cotangents(self, "logcdf", g, y, x, (a, b, ), loc, scale)


def _ab_sf_tangent(dx, da, db, dloc, dscale, y, self, x, a, b, loc=0, scale=1):
    return _continuous_tangent(self, "sf", dx, (da, db, ), dloc, dscale, y, x, (a, b, ), loc, scale)


@_continuous(_AB, "sf", ('a', 'b'), jvp=_ab_sf_tangent)
def ab_sf(g, y, self, x, a, b, loc=0, scale=1):
    """In x, loc and scale; NaN for a, b (refused when active where the call is known)."""
    return _continuous_cotangents(self, "sf", g, y, x, (a, b, ), loc, scale)


def _ab_logsf_tangent(dx, da, db, dloc, dscale, y, self, x, a, b, loc=0, scale=1):
    return _continuous_tangent(self, "logsf", dx, (da, db, ), dloc, dscale, y, x, (a, b, ), loc, scale)


@_continuous(_AB, "logsf", ('a', 'b'), jvp=_ab_logsf_tangent)
def ab_logsf(g, y, self, x, a, b, loc=0, scale=1):
    """In x, loc and scale; NaN for a, b (refused when active where the call is known)."""
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
    """Register a rule for dist.method, differentiable in `param`; the count k and binom's n
    (`underived`) are refused when active where the call is known while compiling, and their
    cotangent is NaN where it is decided while running."""
    def register(fn):
        LIB.method_rule(LIB.type_of(name), name, method, diff=(*underived, param),
                        underived=underived, jvp=forward)(fn)
        return fn
    return register


def _with_unknown(tangent, *unknown_tangents):
    """A tangent that is NaN where an argument without a derivative moves."""
    return tangent + np.nan if any(d is not None for d in unknown_tangents) else tangent


def _poisson_logpmf_tangent(dk, dmu, y, self, k, mu, loc=0):
    return _with_unknown(_discrete_tangent(self, "logpmf", dmu, y, k, (mu,), loc), dk)


@_discrete("poisson", "logpmf", "mu", ('k',), _poisson_logpmf_tangent)
def poisson_logpmf(g, y, self, k, mu, loc=0):
    """In mu; NaN for k (refused when active where the call is known)."""
    return _unknown_like(k), _discrete_cotangent(self, "logpmf", g, y, k, (mu,), loc)


def _poisson_pmf_tangent(dk, dmu, y, self, k, mu, loc=0):
    return _with_unknown(_discrete_tangent(self, "pmf", dmu, y, k, (mu,), loc), dk)


@_discrete("poisson", "pmf", "mu", ('k',), _poisson_pmf_tangent)
def poisson_pmf(g, y, self, k, mu, loc=0):
    """In mu; NaN for k (refused when active where the call is known)."""
    return _unknown_like(k), _discrete_cotangent(self, "pmf", g, y, k, (mu,), loc)


def _poisson_cdf_tangent(dk, dmu, y, self, k, mu, loc=0):
    return _with_unknown(_discrete_tangent(self, "cdf", dmu, y, k, (mu,), loc), dk)


@_discrete("poisson", "cdf", "mu", ('k',), _poisson_cdf_tangent)
def poisson_cdf(g, y, self, k, mu, loc=0):
    """In mu; NaN for k (refused when active where the call is known)."""
    return _unknown_like(k), _discrete_cotangent(self, "cdf", g, y, k, (mu,), loc)


def _poisson_logcdf_tangent(dk, dmu, y, self, k, mu, loc=0):
    return _with_unknown(_discrete_tangent(self, "logcdf", dmu, y, k, (mu,), loc), dk)


@_discrete("poisson", "logcdf", "mu", ('k',), _poisson_logcdf_tangent)
def poisson_logcdf(g, y, self, k, mu, loc=0):
    """In mu; NaN for k (refused when active where the call is known)."""
    return _unknown_like(k), _discrete_cotangent(self, "logcdf", g, y, k, (mu,), loc)


def _poisson_sf_tangent(dk, dmu, y, self, k, mu, loc=0):
    return _with_unknown(_discrete_tangent(self, "sf", dmu, y, k, (mu,), loc), dk)


@_discrete("poisson", "sf", "mu", ('k',), _poisson_sf_tangent)
def poisson_sf(g, y, self, k, mu, loc=0):
    """In mu; NaN for k (refused when active where the call is known)."""
    return _unknown_like(k), _discrete_cotangent(self, "sf", g, y, k, (mu,), loc)


def _poisson_logsf_tangent(dk, dmu, y, self, k, mu, loc=0):
    return _with_unknown(_discrete_tangent(self, "logsf", dmu, y, k, (mu,), loc), dk)


@_discrete("poisson", "logsf", "mu", ('k',), _poisson_logsf_tangent)
def poisson_logsf(g, y, self, k, mu, loc=0):
    """In mu; NaN for k (refused when active where the call is known)."""
    return _unknown_like(k), _discrete_cotangent(self, "logsf", g, y, k, (mu,), loc)


def _binom_logpmf_tangent(dk, dn, dp, y, self, k, n, p, loc=0):
    return _with_unknown(_discrete_tangent(self, "logpmf", dp, y, k, (n, p,), loc), dk, dn)


@_discrete("binom", "logpmf", "p", ('k', 'n'), _binom_logpmf_tangent)
def binom_logpmf(g, y, self, k, n, p, loc=0):
    """In p; NaN for k and n (refused when active where the call is known)."""
    return _unknown_like(k), _unknown_like(n), _discrete_cotangent(self, "logpmf", g, y, k, (n, p,), loc)


def _binom_pmf_tangent(dk, dn, dp, y, self, k, n, p, loc=0):
    return _with_unknown(_discrete_tangent(self, "pmf", dp, y, k, (n, p,), loc), dk, dn)


@_discrete("binom", "pmf", "p", ('k', 'n'), _binom_pmf_tangent)
def binom_pmf(g, y, self, k, n, p, loc=0):
    """In p; NaN for k and n (refused when active where the call is known)."""
    return _unknown_like(k), _unknown_like(n), _discrete_cotangent(self, "pmf", g, y, k, (n, p,), loc)


def _binom_cdf_tangent(dk, dn, dp, y, self, k, n, p, loc=0):
    return _with_unknown(_discrete_tangent(self, "cdf", dp, y, k, (n, p,), loc), dk, dn)


@_discrete("binom", "cdf", "p", ('k', 'n'), _binom_cdf_tangent)
def binom_cdf(g, y, self, k, n, p, loc=0):
    """In p; NaN for k and n (refused when active where the call is known)."""
    return _unknown_like(k), _unknown_like(n), _discrete_cotangent(self, "cdf", g, y, k, (n, p,), loc)


def _binom_logcdf_tangent(dk, dn, dp, y, self, k, n, p, loc=0):
    return _with_unknown(_discrete_tangent(self, "logcdf", dp, y, k, (n, p,), loc), dk, dn)


@_discrete("binom", "logcdf", "p", ('k', 'n'), _binom_logcdf_tangent)
def binom_logcdf(g, y, self, k, n, p, loc=0):
    """In p; NaN for k and n (refused when active where the call is known)."""
    return _unknown_like(k), _unknown_like(n), _discrete_cotangent(self, "logcdf", g, y, k, (n, p,), loc)


def _binom_sf_tangent(dk, dn, dp, y, self, k, n, p, loc=0):
    return _with_unknown(_discrete_tangent(self, "sf", dp, y, k, (n, p,), loc), dk, dn)


@_discrete("binom", "sf", "p", ('k', 'n'), _binom_sf_tangent)
def binom_sf(g, y, self, k, n, p, loc=0):
    """In p; NaN for k and n (refused when active where the call is known)."""
    return _unknown_like(k), _unknown_like(n), _discrete_cotangent(self, "sf", g, y, k, (n, p,), loc)


def _binom_logsf_tangent(dk, dn, dp, y, self, k, n, p, loc=0):
    return _with_unknown(_discrete_tangent(self, "logsf", dp, y, k, (n, p,), loc), dk, dn)


@_discrete("binom", "logsf", "p", ('k', 'n'), _binom_logsf_tangent)
def binom_logsf(g, y, self, k, n, p, loc=0):
    """In p; NaN for k and n (refused when active where the call is known)."""
    return _unknown_like(k), _unknown_like(n), _discrete_cotangent(self, "logsf", g, y, k, (n, p,), loc)


def _bernoulli_logpmf_tangent(dk, dp, y, self, k, p, loc=0):
    return _with_unknown(_discrete_tangent(self, "logpmf", dp, y, k, (p,), loc), dk)


@_discrete("bernoulli", "logpmf", "p", ('k',), _bernoulli_logpmf_tangent)
def bernoulli_logpmf(g, y, self, k, p, loc=0):
    """In p; NaN for k (refused when active where the call is known)."""
    return _unknown_like(k), _discrete_cotangent(self, "logpmf", g, y, k, (p,), loc)


def _bernoulli_pmf_tangent(dk, dp, y, self, k, p, loc=0):
    return _with_unknown(_discrete_tangent(self, "pmf", dp, y, k, (p,), loc), dk)


@_discrete("bernoulli", "pmf", "p", ('k',), _bernoulli_pmf_tangent)
def bernoulli_pmf(g, y, self, k, p, loc=0):
    """In p; NaN for k (refused when active where the call is known)."""
    return _unknown_like(k), _discrete_cotangent(self, "pmf", g, y, k, (p,), loc)


def _bernoulli_cdf_tangent(dk, dp, y, self, k, p, loc=0):
    return _with_unknown(_discrete_tangent(self, "cdf", dp, y, k, (p,), loc), dk)


@_discrete("bernoulli", "cdf", "p", ('k',), _bernoulli_cdf_tangent)
def bernoulli_cdf(g, y, self, k, p, loc=0):
    """In p; NaN for k (refused when active where the call is known)."""
    return _unknown_like(k), _discrete_cotangent(self, "cdf", g, y, k, (p,), loc)


def _bernoulli_logcdf_tangent(dk, dp, y, self, k, p, loc=0):
    return _with_unknown(_discrete_tangent(self, "logcdf", dp, y, k, (p,), loc), dk)


@_discrete("bernoulli", "logcdf", "p", ('k',), _bernoulli_logcdf_tangent)
def bernoulli_logcdf(g, y, self, k, p, loc=0):
    """In p; NaN for k (refused when active where the call is known)."""
    return _unknown_like(k), _discrete_cotangent(self, "logcdf", g, y, k, (p,), loc)


def _bernoulli_sf_tangent(dk, dp, y, self, k, p, loc=0):
    return _with_unknown(_discrete_tangent(self, "sf", dp, y, k, (p,), loc), dk)


@_discrete("bernoulli", "sf", "p", ('k',), _bernoulli_sf_tangent)
def bernoulli_sf(g, y, self, k, p, loc=0):
    """In p; NaN for k (refused when active where the call is known)."""
    return _unknown_like(k), _discrete_cotangent(self, "sf", g, y, k, (p,), loc)


def _bernoulli_logsf_tangent(dk, dp, y, self, k, p, loc=0):
    return _with_unknown(_discrete_tangent(self, "logsf", dp, y, k, (p,), loc), dk)


@_discrete("bernoulli", "logsf", "p", ('k',), _bernoulli_logsf_tangent)
def bernoulli_logsf(g, y, self, k, p, loc=0):
    """In p; NaN for k (refused when active where the call is known)."""
    return _unknown_like(k), _discrete_cotangent(self, "logsf", g, y, k, (p,), loc)


# ---------------------------------------------------------------------------
# multivariate_normal (in x, mean and cov; SciPy reads cov's lower triangle) and dirichlet


def _mvn_sigma(mean, cov):
    """cov (a scalar, a diagonal or a matrix whose lower triangle is read) as the matrix SciPy uses."""
    cov_arr = np.asarray(cov, dtype=float)
    dim = np.size(mean) if mean is not None else (cov_arr.shape[0] if cov_arr.ndim else 1)
    if cov_arr.ndim == 0:
        return cov_arr * np.eye(dim)
    if cov_arr.ndim == 1:
        return np.diag(cov_arr)
    return np.tril(cov_arr) + np.tril(cov_arr, -1).T


def _mvn_singular(sigma) -> bool:
    """Whether SciPy's allow_singular=True treats sigma as singular (its _PSD cutoff)."""
    spectrum = np.linalg.eigvalsh(sigma)
    return bool(np.min(spectrum) <= 1e6 * np.finfo(float).eps * np.max(np.abs(spectrum)))


def _mvn_setup(x, mean, cov, allow_singular=False):
    """(samples (n, d), cov as a matrix, its inverse applied to the residuals, singular).

    A singular cov (allowed by allow_singular=True) is inverted on its range, as
    SciPy's density is: pinv applied to the residuals, which give the derivative
    along the support; `singular` tells the caller that cov itself has none."""
    sigma = _mvn_sigma(mean, cov)
    dim = sigma.shape[0]
    samples = np.asarray(x, dtype=float).reshape(-1, dim)
    resid = samples - (0.0 if mean is None else np.reshape(np.asarray(mean, dtype=float), dim))
    singular = bool(allow_singular) and _mvn_singular(sigma)
    if singular:
        alpha = (np.linalg.pinv(sigma, hermitian=True) @ resid.T).T
    else:
        alpha = np.linalg.solve(sigma, resid.T).T
    return samples, sigma, alpha, singular


def _cov_cotangent(full, cov):
    """A cotangent against the full (symmetric) matrix, as one of the cov SciPy was given."""
    cov_arr = np.asarray(cov)
    if cov_arr.ndim == 0:
        return _like(np.trace(full), cov)
    if cov_arr.ndim == 1:
        return np.diagonal(full).copy()
    return _fold_triangle(full, True)


def _mvn_cotangents(method, g, y, x, mean, cov, allow_singular=False):
    _, sigma, alpha, singular = _mvn_setup(x, mean, cov, allow_singular)
    w = np.reshape(g if method == "logpdf" else g * y, -1)
    gx = -(w[:, None] * alpha)
    gmean = None if mean is None else _like(np.reshape(np.sum(-gx, axis=0), np.shape(mean)), mean)
    if singular:  # the density jumps where cov's rank changes: NaN, never a silent number
        full = np.full(sigma.shape, np.nan)
    else:
        full = -0.5 * np.sum(w) * np.linalg.inv(sigma) + 0.5 * (alpha.T * w) @ alpha
    return _like(np.reshape(gx, np.shape(x)), x), gmean, _cov_cotangent(full, cov)


def _mvn_tangent_of(method, dx, dmean, dcov, y, x, mean, cov, allow_singular=False):
    samples, sigma, alpha, singular = _mvn_setup(x, mean, cov, allow_singular)
    d = np.zeros(samples.shape[0])
    if dx is not None:
        d = d - np.sum(alpha * np.reshape(dx, samples.shape), axis=1)
    if dmean is not None:
        d = d + alpha @ np.reshape(dmean, -1)
    if dcov is not None and singular:
        # no derivative along cov where its rank may change (NaN, never a silent number); a
        # zero tangent (a cov that does not move, passed through code that gives it one)
        # contributes zero, as a strong zero does
        if np.any(np.asarray(dcov) != 0):
            d = d + np.nan
    elif dcov is not None:
        dsigma = _mvn_sigma(mean, dcov)
        d = d - 0.5 * np.trace(np.linalg.solve(sigma, dsigma)) + 0.5 * np.sum((alpha @ dsigma) * alpha, axis=1)
    d = np.reshape(d, np.shape(y))
    return d if method == "logpdf" else y * d


def _mvn_logpdf_tangent(dx, dmean, dcov, y, self, x, mean=None, cov=1, allow_singular=False):
    return _mvn_tangent_of("logpdf", dx, dmean, dcov, y, x, mean, cov, allow_singular)


@LIB.method_rule(LIB.type_of("multivariate_normal"), "multivariate_normal", "logpdf",
                 diff=("x", "mean", "cov"), jvp=_mvn_logpdf_tangent)
def multivariate_normal_logpdf(g, y, self, x, mean=None, cov=1, allow_singular=False):
    """In x, mean and cov (a scalar, a diagonal or a matrix; the lower triangle is read); a
    singular cov (allow_singular=True): x and mean along its range, NaN for cov."""
    return _mvn_cotangents("logpdf", g, y, x, mean, cov, allow_singular)


def _mvn_pdf_tangent(dx, dmean, dcov, y, self, x, mean=None, cov=1, allow_singular=False):
    return _mvn_tangent_of("pdf", dx, dmean, dcov, y, x, mean, cov, allow_singular)


@LIB.method_rule(LIB.type_of("multivariate_normal"), "multivariate_normal", "pdf",
                 diff=("x", "mean", "cov"), jvp=_mvn_pdf_tangent)
def multivariate_normal_pdf(g, y, self, x, mean=None, cov=1, allow_singular=False):
    """In x, mean and cov (a scalar, a diagonal or a matrix; the lower triangle is read); a
    singular cov (allow_singular=True): x and mean along its range, NaN for cov."""
    return _mvn_cotangents("pdf", g, y, x, mean, cov, allow_singular)


def _mvn_entropy_cotangent(g, mean, cov):
    """entropy = (d log(2 pi e) + log det cov) / 2: g cov^-1 / 2 against the full matrix."""
    return _cov_cotangent(0.5 * g * np.linalg.inv(_mvn_sigma(mean, cov)), cov)


def _mvn_entropy_tangent(dcov, y, self, mean=None, cov=1):
    sigma = _mvn_sigma(mean, cov)
    return 0.5 * np.trace(np.linalg.solve(sigma, _mvn_sigma(mean, dcov)))


@LIB.method_rule(LIB.type_of("multivariate_normal"), "multivariate_normal", "entropy", diff=("cov",),
                 jvp=_mvn_entropy_tangent)
def multivariate_normal_entropy(g, y, self, mean=None, cov=1):
    """In cov (the mean does not change it)."""
    return _mvn_entropy_cotangent(g, mean, cov)


def _dirichlet_parts(x, alpha):
    """(components (K, ...) with the last one filled in when x has K - 1, d lp / d alpha,
    d lp / d x for the x given)."""
    x = np.asarray(x, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    reduced = x.shape[0] + 1 == alpha.shape[0]
    full = np.concatenate([x, 1.0 - np.sum(x, axis=0, keepdims=True)]) if reduced else x
    shape = (-1,) + (1,) * (full.ndim - 1)
    a = alpha.reshape(shape)
    dalpha = np.log(full) + special.psi(np.sum(alpha)) - special.psi(a)
    dx = (a - 1.0) / full
    if reduced:
        dx = dx[:-1] - dx[-1:]
    return dalpha, dx


def _dirichlet_cotangents(method, g, y, x, alpha):
    w = g if method == "logpdf" else g * y
    dalpha, dx = _dirichlet_parts(x, alpha)
    gx = _like(w * dx, x)
    galpha = np.sum(np.reshape(w * dalpha, (np.shape(alpha)[0], -1)), axis=1)
    return gx, galpha


def _dirichlet_tangent_of(method, dx, dalpha, y, x, alpha):
    parts_alpha, parts_x = _dirichlet_parts(x, alpha)
    total = 0.0
    if dx is not None:
        total = total + np.sum(parts_x * dx, axis=0)
    if dalpha is not None:
        total = total + np.sum(parts_alpha * np.reshape(dalpha, (-1,) + (1,) * (parts_alpha.ndim - 1)), axis=0)
    total = np.reshape(total, np.shape(y))
    return total if method == "logpdf" else y * total


def _dirichlet_logpdf_tangent(dx, dalpha, y, self, x, alpha):
    return _dirichlet_tangent_of("logpdf", dx, dalpha, y, x, alpha)


@LIB.method_rule(LIB.type_of("dirichlet"), "dirichlet", "logpdf", diff=("x", "alpha"),
                 jvp=_dirichlet_logpdf_tangent)
def dirichlet_logpdf(g, y, self, x, alpha):
    """In x (components along the first axis; with K - 1 of them the last is 1 - their sum)
    and alpha."""
    return _dirichlet_cotangents("logpdf", g, y, x, alpha)


def _dirichlet_pdf_tangent(dx, dalpha, y, self, x, alpha):
    return _dirichlet_tangent_of("pdf", dx, dalpha, y, x, alpha)


@LIB.method_rule(LIB.type_of("dirichlet"), "dirichlet", "pdf", diff=("x", "alpha"),
                 jvp=_dirichlet_pdf_tangent)
def dirichlet_pdf(g, y, self, x, alpha):
    """In x and alpha (as logpdf)."""
    return _dirichlet_cotangents("pdf", g, y, x, alpha)


# ---------------------------------------------------------------------------
# frozen distributions: `norm(loc, scale)` builds an rv_continuous_frozen holding its
# arguments (`args`, `kwds`); a method's rule gives the object's cotangent as the dict
# {"args": ..., "kwds": ...} of those attributes, and the construction's rule hands it
# back to the arguments.  multivariate_normal(mean, cov) and dirichlet(alpha) hold theirs
# as {"mean": ..., "cov": ...} (cov: the gradient against the full matrix) and {"alpha": ...}.


def _frozen_type(name, *args):
    return None if LIB.module is None else type(getattr(LIB.module, name)(*args))


_CONTINUOUS_FROZEN = _frozen_type("norm")
_DISCRETE_FROZEN = _frozen_type("poisson", 1.0)
_MVN_FROZEN = _frozen_type("multivariate_normal")
_DIRICHLET_FROZEN = _frozen_type("dirichlet", np.ones(2))


def _shape_names(dist):
    return tuple(name.strip() for name in (dist.shapes or "").split(",") if name.strip())


def _frozen_parameters(frozen, names):
    """The frozen object's arguments by parameter name."""
    bound = dict(zip(names, frozen.args))
    bound.update(frozen.kwds)
    return bound


def _spread(frozen, names, bars):
    """{"args": ..., "kwds": ...}: each argument's cotangent from the per-name ones."""
    bound = _frozen_parameters(frozen, names)
    by_name = {name: _like(bars.get(name), bound[name]) for name in names if name in bound}
    args = tuple(by_name.get(name) for name in names[:len(frozen.args)])
    return {"args": args, "kwds": {key: by_name.get(key) for key in frozen.kwds}}


def _continuous_frozen_parts(frozen, method, g, y, x):
    dist = frozen.dist
    shapes = _shape_names(dist)
    names = shapes + ("loc", "scale")
    bound = _frozen_parameters(frozen, names)
    values = tuple(bound[name] for name in shapes)
    parts = _continuous_cotangents(dist, method, g, y, x, values, bound.get("loc", 0.0),
                                   bound.get("scale", 1.0))
    return names, parts


def _continuous_frozen_self(frozen, method, g, y, x):
    """The frozen object's cotangent.  A CDF's derivative in a shape parameter (t's df,
    gamma's a, ...) is not known: that slot is NaN, never a number that looks right (the
    rule cannot tell a constant df, whose slot is dropped, from an active one)."""
    names, parts = _continuous_frozen_parts(frozen, method, g, y, x)
    return _spread(frozen, names, dict(zip(names, parts[1:])))


def _continuous_frozen_x(frozen, method, g, y, x):
    return _continuous_frozen_parts(frozen, method, g, y, x)[1][0]


def _frozen_tangent_total(frozen, names, parts, dself, dx, ones):
    """sum of part * tangent over x and the object's arguments (dself as its cotangent is)."""
    total = 0.0 if dx is None else parts[0] * dx
    if dself is not None:
        bound = _frozen_parameters(frozen, names)
        tangents = dict(zip(names, dself.get("args") or ()))
        tangents.update(dself.get("kwds") or {})
        by_name = dict(zip(names, parts[1:]))
        for name in names:
            if name in bound and tangents.get(name) is not None:
                total = total + by_name[name] * tangents[name]
    return total * ones


def _continuous_frozen_tangent(frozen, method, dself, dx, y, x):
    dist = frozen.dist
    shapes = _shape_names(dist)
    names = shapes + ("loc", "scale")
    bound = _frozen_parameters(frozen, names)
    ones = np.ones(np.broadcast_shapes(np.shape(x), *(np.shape(v) for v in bound.values())))
    values = tuple(bound[name] for name in shapes)
    parts = _continuous_cotangents(dist, method, ones, y, ones * x, tuple(ones * v for v in values),
                                   ones * bound.get("loc", 0.0), ones * bound.get("scale", 1.0))
    return _frozen_tangent_total(frozen, names, parts, dself, dx, ones)


def _discrete_frozen_parts(frozen):
    dist = frozen.dist
    names = _shape_names(dist) + ("loc",)
    bound = _frozen_parameters(frozen, names)
    return dist, names, bound, tuple(bound[name] for name in names[:-1]), bound.get("loc", 0)


def _discrete_frozen_self(frozen, method, g, y, k):
    """The frozen object's cotangent: in its real parameter (mu, p); binom's n has none
    (NaN: the rule cannot tell a constant n, whose slot is dropped, from an active one)."""
    dist, names, _, params, loc = _discrete_frozen_parts(frozen)
    weight = _discrete_weight(dist, method, g, y, k, params, loc)
    bars = {name: np.full(np.shape(weight), np.nan) for name in names[:-2]}
    bars[names[-2]] = weight
    return _spread(frozen, names, bars)


def _unknown_like(k):
    """NaN shaped as k: a count has no derivative (see _discrete_frozen_self)."""
    return _like(np.full(np.shape(k), np.nan), k)


def _discrete_frozen_tangent(frozen, method, dself, dk, y, k):
    dist, names, _, params, loc = _discrete_frozen_parts(frozen)
    tangents = dict(zip(names, (dself or {}).get("args") or ()))
    tangents.update((dself or {}).get("kwds") or {})
    d = tangents.get(names[-2])
    ones = np.ones(np.broadcast_shapes(np.shape(k), *(np.shape(p) for p in params)))
    out = 0.0 * ones if d is None else _discrete_weight(dist, method, ones, y, k, params, loc) * d
    unknown = dk is not None or any(tangents.get(name) is not None for name in names[:-2])
    return out + np.nan if unknown else out


def _frozen_args_cotangent(g):
    return None if g is None else g.get("args")


def _frozen_kwds_cotangent(g):
    return None if g is None else g.get("kwds")


@LIB.rule_on(_CONTINUOUS_FROZEN, "rv_continuous_frozen", diff=("args", "kwds"))
def continuous_frozen(g, y, dist, *args, **kwds):
    """Building a frozen distribution (`norm(loc, scale)`): its arguments' cotangents."""
    return _frozen_args_cotangent(g), _frozen_kwds_cotangent(g)


@LIB.rule_on(_DISCRETE_FROZEN, "rv_discrete_frozen", diff=("args", "kwds"))
def discrete_frozen(g, y, dist, *args, **kwds):
    """Building a frozen distribution (`poisson(mu)`): its arguments' cotangents."""
    return _frozen_args_cotangent(g), _frozen_kwds_cotangent(g)


def _frozen_logpdf_tangent(dself, dx, y, self, x):
    return _continuous_frozen_tangent(self, "logpdf", dself, dx, y, x)


@LIB.method_rule(_CONTINUOUS_FROZEN, "rv_continuous_frozen", "logpdf", diff=("self", "x"),
                 jvp=_frozen_logpdf_tangent)
def frozen_logpdf(g, y, self, x):
    """In x and the frozen distribution's parameters."""
    return _continuous_frozen_self(self, "logpdf", g, y, x), _continuous_frozen_x(self, "logpdf", g, y, x)


def _frozen_pdf_tangent(dself, dx, y, self, x):
    return _continuous_frozen_tangent(self, "pdf", dself, dx, y, x)


@LIB.method_rule(_CONTINUOUS_FROZEN, "rv_continuous_frozen", "pdf", diff=("self", "x"),
                 jvp=_frozen_pdf_tangent)
def frozen_pdf(g, y, self, x):
    """In x and the frozen distribution's parameters."""
    return _continuous_frozen_self(self, "pdf", g, y, x), _continuous_frozen_x(self, "pdf", g, y, x)


def _frozen_cdf_tangent(dself, dx, y, self, x):
    return _continuous_frozen_tangent(self, "cdf", dself, dx, y, x)


@LIB.method_rule(_CONTINUOUS_FROZEN, "rv_continuous_frozen", "cdf", diff=("self", "x"),
                 jvp=_frozen_cdf_tangent)
def frozen_cdf(g, y, self, x):
    """In x and the frozen distribution's parameters (loc and scale only: shape parameters refused)."""
    return _continuous_frozen_self(self, "cdf", g, y, x), _continuous_frozen_x(self, "cdf", g, y, x)


def _frozen_logcdf_tangent(dself, dx, y, self, x):
    return _continuous_frozen_tangent(self, "logcdf", dself, dx, y, x)


@LIB.method_rule(_CONTINUOUS_FROZEN, "rv_continuous_frozen", "logcdf", diff=("self", "x"),
                 jvp=_frozen_logcdf_tangent)
def frozen_logcdf(g, y, self, x):
    """In x and the frozen distribution's parameters (loc and scale only: shape parameters refused)."""
    return _continuous_frozen_self(self, "logcdf", g, y, x), _continuous_frozen_x(self, "logcdf", g, y, x)


def _frozen_sf_tangent(dself, dx, y, self, x):
    return _continuous_frozen_tangent(self, "sf", dself, dx, y, x)


@LIB.method_rule(_CONTINUOUS_FROZEN, "rv_continuous_frozen", "sf", diff=("self", "x"),
                 jvp=_frozen_sf_tangent)
def frozen_sf(g, y, self, x):
    """In x and the frozen distribution's parameters (loc and scale only: shape parameters refused)."""
    return _continuous_frozen_self(self, "sf", g, y, x), _continuous_frozen_x(self, "sf", g, y, x)


def _frozen_logsf_tangent(dself, dx, y, self, x):
    return _continuous_frozen_tangent(self, "logsf", dself, dx, y, x)


@LIB.method_rule(_CONTINUOUS_FROZEN, "rv_continuous_frozen", "logsf", diff=("self", "x"),
                 jvp=_frozen_logsf_tangent)
def frozen_logsf(g, y, self, x):
    """In x and the frozen distribution's parameters (loc and scale only: shape parameters refused)."""
    return _continuous_frozen_self(self, "logsf", g, y, x), _continuous_frozen_x(self, "logsf", g, y, x)


def _frozen_discrete_logpmf_tangent(dself, dk, y, self, k):
    return _discrete_frozen_tangent(self, "logpmf", dself, dk, y, k)


@LIB.method_rule(_DISCRETE_FROZEN, "rv_discrete_frozen", "logpmf", diff=("self", "k"),
                 jvp=_frozen_discrete_logpmf_tangent)
def frozen_discrete_logpmf(g, y, self, k):
    """In the frozen distribution's real parameter (mu, p); NaN for a count or binom's n."""
    return _discrete_frozen_self(self, "logpmf", g, y, k), _unknown_like(k)


def _frozen_discrete_pmf_tangent(dself, dk, y, self, k):
    return _discrete_frozen_tangent(self, "pmf", dself, dk, y, k)


@LIB.method_rule(_DISCRETE_FROZEN, "rv_discrete_frozen", "pmf", diff=("self", "k"),
                 jvp=_frozen_discrete_pmf_tangent)
def frozen_discrete_pmf(g, y, self, k):
    """In the frozen distribution's real parameter (mu, p); NaN for a count or binom's n."""
    return _discrete_frozen_self(self, "pmf", g, y, k), _unknown_like(k)


def _frozen_discrete_cdf_tangent(dself, dk, y, self, k):
    return _discrete_frozen_tangent(self, "cdf", dself, dk, y, k)


@LIB.method_rule(_DISCRETE_FROZEN, "rv_discrete_frozen", "cdf", diff=("self", "k"),
                 jvp=_frozen_discrete_cdf_tangent)
def frozen_discrete_cdf(g, y, self, k):
    """In the frozen distribution's real parameter (mu, p); NaN for a count or binom's n."""
    return _discrete_frozen_self(self, "cdf", g, y, k), _unknown_like(k)


def _frozen_discrete_logcdf_tangent(dself, dk, y, self, k):
    return _discrete_frozen_tangent(self, "logcdf", dself, dk, y, k)


@LIB.method_rule(_DISCRETE_FROZEN, "rv_discrete_frozen", "logcdf", diff=("self", "k"),
                 jvp=_frozen_discrete_logcdf_tangent)
def frozen_discrete_logcdf(g, y, self, k):
    """In the frozen distribution's real parameter (mu, p); NaN for a count or binom's n."""
    return _discrete_frozen_self(self, "logcdf", g, y, k), _unknown_like(k)


def _frozen_discrete_sf_tangent(dself, dk, y, self, k):
    return _discrete_frozen_tangent(self, "sf", dself, dk, y, k)


@LIB.method_rule(_DISCRETE_FROZEN, "rv_discrete_frozen", "sf", diff=("self", "k"),
                 jvp=_frozen_discrete_sf_tangent)
def frozen_discrete_sf(g, y, self, k):
    """In the frozen distribution's real parameter (mu, p); NaN for a count or binom's n."""
    return _discrete_frozen_self(self, "sf", g, y, k), _unknown_like(k)


def _frozen_discrete_logsf_tangent(dself, dk, y, self, k):
    return _discrete_frozen_tangent(self, "logsf", dself, dk, y, k)


@LIB.method_rule(_DISCRETE_FROZEN, "rv_discrete_frozen", "logsf", diff=("self", "k"),
                 jvp=_frozen_discrete_logsf_tangent)
def frozen_discrete_logsf(g, y, self, k):
    """In the frozen distribution's real parameter (mu, p); NaN for a count or binom's n."""
    return _discrete_frozen_self(self, "logsf", g, y, k), _unknown_like(k)


def _frozen_allows_singular(frozen) -> bool:
    return bool(getattr(frozen, "allow_singular", False))


def _mvn_frozen_self(frozen, method, g, y, x):
    mean, cov = frozen.mean, frozen.cov
    allow = _frozen_allows_singular(frozen)
    _, gmean, _ = _mvn_cotangents(method, g, y, x, mean, cov, allow)
    _, sigma, alpha, singular = _mvn_setup(x, mean, cov, allow)
    w = np.reshape(g if method == "logpdf" else g * y, -1)
    if singular:  # no derivative in a singular covariance (see _mvn_cotangents)
        full = np.full(sigma.shape, np.nan)
    else:
        full = -0.5 * np.sum(w) * np.linalg.inv(sigma) + 0.5 * (alpha.T * w) @ alpha
    return {"mean": gmean, "cov": full}


def _mvn_frozen_x(frozen, method, g, y, x):
    return _mvn_cotangents(method, g, y, x, frozen.mean, frozen.cov, _frozen_allows_singular(frozen))[0]


def _mvn_frozen_tangent(frozen, method, dself, dx, y, x):
    dself = dself or {}
    return _mvn_tangent_of(method, dx, dself.get("mean"), dself.get("cov"), y, x, frozen.mean, frozen.cov,
                           _frozen_allows_singular(frozen))


def _mvn_frozen_logpdf_tangent(dself, dx, y, self, x):
    return _mvn_frozen_tangent(self, "logpdf", dself, dx, y, x)


@LIB.method_rule(_MVN_FROZEN, "multivariate_normal_frozen", "logpdf", diff=("self", "x"),
                 jvp=_mvn_frozen_logpdf_tangent)
def mvn_frozen_logpdf(g, y, self, x):
    """In x, the mean and the covariance it was built with."""
    return _mvn_frozen_self(self, "logpdf", g, y, x), _mvn_frozen_x(self, "logpdf", g, y, x)


def _mvn_frozen_pdf_tangent(dself, dx, y, self, x):
    return _mvn_frozen_tangent(self, "pdf", dself, dx, y, x)


@LIB.method_rule(_MVN_FROZEN, "multivariate_normal_frozen", "pdf", diff=("self", "x"),
                 jvp=_mvn_frozen_pdf_tangent)
def mvn_frozen_pdf(g, y, self, x):
    """In x, the mean and the covariance it was built with."""
    return _mvn_frozen_self(self, "pdf", g, y, x), _mvn_frozen_x(self, "pdf", g, y, x)


def _mvn_frozen_mean_cotangent(g, mean):
    if g is None or g.get("mean") is None or mean is None:
        return None
    return _like(np.reshape(g["mean"], np.shape(mean)), mean)


def _mvn_frozen_cov_cotangent(g, cov):
    if g is None or g.get("cov") is None:
        return None
    return _cov_cotangent(g["cov"], cov)


@LIB.rule_on(_MVN_FROZEN, "multivariate_normal_frozen", diff=("mean", "cov"))
def mvn_frozen(g, y, mean=None, cov=1, allow_singular=False, seed=None, maxpts=None, abseps=1e-5,
               releps=1e-5):
    """Building multivariate_normal(mean, cov): cov as given (a scalar, a diagonal or a
    matrix whose lower triangle is read)."""
    return _mvn_frozen_mean_cotangent(g, mean), _mvn_frozen_cov_cotangent(g, cov)


def _dirichlet_frozen_self(frozen, method, g, y, x):
    return {"alpha": _dirichlet_cotangents(method, g, y, x, frozen.alpha)[1]}


def _dirichlet_frozen_x(frozen, method, g, y, x):
    return _dirichlet_cotangents(method, g, y, x, frozen.alpha)[0]


def _dirichlet_frozen_logpdf_tangent(dself, dx, y, self, x):
    return _dirichlet_tangent_of("logpdf", dx, (dself or {}).get("alpha"), y, x, self.alpha)


@LIB.method_rule(_DIRICHLET_FROZEN, "dirichlet_frozen", "logpdf", diff=("self", "x"),
                 jvp=_dirichlet_frozen_logpdf_tangent)
def dirichlet_frozen_logpdf(g, y, self, x):
    """In x and the alpha it was built with."""
    return _dirichlet_frozen_self(self, "logpdf", g, y, x), _dirichlet_frozen_x(self, "logpdf", g, y, x)


def _dirichlet_frozen_pdf_tangent(dself, dx, y, self, x):
    return _dirichlet_tangent_of("pdf", dx, (dself or {}).get("alpha"), y, x, self.alpha)


@LIB.method_rule(_DIRICHLET_FROZEN, "dirichlet_frozen", "pdf", diff=("self", "x"),
                 jvp=_dirichlet_frozen_pdf_tangent)
def dirichlet_frozen_pdf(g, y, self, x):
    """In x and the alpha it was built with."""
    return _dirichlet_frozen_self(self, "pdf", g, y, x), _dirichlet_frozen_x(self, "pdf", g, y, x)


def _dirichlet_frozen_alpha_cotangent(g, alpha):
    return None if g is None else g.get("alpha")


@LIB.rule_on(_DIRICHLET_FROZEN, "dirichlet_frozen", diff=("alpha",))
def dirichlet_frozen(g, y, alpha, seed=None):
    """Building dirichlet(alpha)."""
    return _dirichlet_frozen_alpha_cotangent(g, alpha)
