"""Rules for scipy.special: log-sum-exp and softmax, the gamma and error function
families, Bessel functions, information-theory functions and incomplete integrals.

Imported on demand when SciPy is (see scipy_support.py).  Real values only
(a complex argument is refused, as for every rule not declared for complex values).

Each elementwise rule returns g * f'(x); for a function of one argument that
body is also its forward-mode rule (dx * f'(x)), so it is attached as its own
`jvp`.  Functions of two arguments share a `_..._partials` helper between the
reverse rule (cotangents summed back over broadcasting) and the forward one.

Orders, degrees and shape parameters that a rule gives no derivative for (the
order v of a Bessel function, a of the incomplete gamma function, the order n
of polygamma, s of the Hurwitz zeta function) are named `underived`: an active
one is refused with NoDerivativeRule at the call.  Where a function is not
differentiable (entr, rel_entr, kl_div at 0; xlogy at y = 0) the rule gives the
derivative of the branch SciPy evaluates and is checked only inside the domain.
"""

from __future__ import annotations

import math

import numpy as np

from zygote_py.rules.factorizations import output_parts
from zygote_py.rules.registry import declare_complex_ok
from zygote_py.rules.scipy_support import Library, tangent
from zygote_py.runtime import unbroadcast

LIB = Library("scipy.special")
special = LIB.module

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_2 = math.sqrt(math.pi) / 2.0
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_RAD_PER_DEG = math.pi / 180.0
_LN10 = math.log(10.0)
_LN2 = math.log(2.0)


# ---------------------------------------------------------------------------
# helpers (called from rule bodies)


def _directional(da, fa, db, fb):
    """da * fa + db * fb, a missing tangent (None) counting as zero."""
    return tangent(da) * fa + tangent(db) * fb


def _reexpand(v, axis, keepdims):
    """A reduction's result with its reduced axes put back (size 1), to broadcast."""
    if keepdims or axis is None:
        return v
    return np.expand_dims(v, axis)


def _logsumexp_parts(y, a, axis, b, keepdims, return_sign):
    """(r, w): r = log|sum b e^a| with reduced axes kept, w = d r / d(b e^a) * e^a."""
    r = y[0] if return_sign else y
    rk = _reexpand(r, axis, keepdims)
    w = np.exp(np.asarray(a) - rk)
    return rk, _reexpand(y[1], axis, keepdims) * w if return_sign else w


def _logsumexp_cotangents(g, y, a, axis, b, keepdims, return_sign):
    gr = output_parts(g, y)[0] if return_sign else g
    if gr is None:
        return None, None
    _, w = _logsumexp_parts(y, a, axis, b, keepdims, return_sign)
    gk = _reexpand(gr, axis, keepdims)
    ga = gk * w * (1.0 if b is None else b)
    gb = None if b is None else unbroadcast(gk * w, b)
    return unbroadcast(ga, a), gb


def _logsumexp_tangent(da, db, y, a, axis=None, b=None, keepdims=False, return_sign=False):
    _, w = _logsumexp_parts(y, a, axis, b, keepdims, return_sign)
    inner = w * (tangent(da) * (1.0 if b is None else b) + tangent(db))
    dr = np.sum(inner, axis=axis, keepdims=keepdims)
    return (dr, None) if return_sign else dr


def _xlogy_partials(x, y):
    """d/dx = log y, d/dy = x / y (0 where x = 0: xlogy(0, y) is 0 for every y)."""
    y = np.asarray(y, dtype=float)
    safe_y = np.where(y == 0, 1.0, y)
    return special.xlogy(1.0, y) + 0.0 * x, np.where(np.asarray(x) == 0, 0.0, x / safe_y)


def _xlog1py_partials(x, y):
    y = np.asarray(y, dtype=float)
    safe = np.where(y == -1, 1.0, 1.0 + y)
    return special.xlog1py(1.0, y) + 0.0 * x, np.where(np.asarray(x) == 0, 0.0, x / safe)


def _rel_entr_partials(x, y):
    """x log(x / y) for x, y > 0: (log(x / y) + 1, -x / y); 0 at x = 0 for x itself."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    safe_y = np.where(y > 0, y, 1.0)
    return special.xlogy(1.0, x / safe_y) + 1.0, -x / safe_y


def _kl_div_partials(x, y):
    """x log(x / y) - x + y: (log(x / y), 1 - x / y)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    safe_y = np.where(y > 0, y, 1.0)
    return special.xlogy(1.0, x / safe_y), 1.0 - x / safe_y


def _beta_partials(a, b):
    """d log B(a, b) / da = psi(a) - psi(a + b), and the same for b."""
    both = special.psi(np.add(a, b))
    return special.psi(a) - both, special.psi(b) - both


def _poch_partials(z, m):
    """d log poch(z, m) / dz = psi(z + m) - psi(z), / dm = psi(z + m)."""
    top = special.psi(np.add(z, m))
    return top - special.psi(z), top


def _binom_partials(n, k):
    """binom(n, k) = Gamma(n + 1) / (Gamma(k + 1) Gamma(n - k + 1)), logarithmic partials."""
    rest = special.psi(np.subtract(n, k) + 1.0)
    return special.psi(np.add(n, 1.0)) - rest, rest - special.psi(np.add(k, 1.0))


def _powm1_partials(x, p):
    """x**p - 1: (p x**(p-1), x**p log x) for x > 0."""
    xp = np.power(x, p)
    return p * np.power(x, np.subtract(p, 1.0)), xp * np.log(x)


def _huber_partials(delta, r):
    """huber(delta, r): r^2/2 inside |r| <= delta, delta (|r| - delta/2) outside."""
    inside = np.abs(r) <= delta
    return np.where(inside, 0.0, np.abs(r) - delta), np.where(inside, r, delta * np.sign(r))


def _pseudo_huber_partials(delta, r):
    """delta^2 (sqrt(1 + (r/delta)^2) - 1)."""
    s = np.sqrt(1.0 + np.square(np.divide(r, delta)))
    return 2.0 * delta * (s - 1.0) - np.square(r) / (delta * s), r / s


def _multigammaln_derivative(a, d):
    """d/da log Gamma_d(a) = sum_{j<d} psi(a - j/2)."""
    offsets = np.arange(d) / 2.0
    return np.sum(special.psi(np.asarray(a, dtype=float)[..., None] - offsets), axis=-1)


def _as_input(v, x):
    """The derivative as a float for a Python float argument (a 0-d result otherwise)."""
    return float(v) if type(x) is float else v


# ---------------------------------------------------------------------------
# logsumexp and softmax


@LIB.rule("logsumexp", diff=("a", "b"), jvp=_logsumexp_tangent)
def logsumexp(g, y, a, axis=None, b=None, keepdims=False, return_sign=False):
    """With axis, keepdims, weights b (differentiable) and return_sign (the sign is constant)."""
    return _logsumexp_cotangents(g, y, a, axis, b, keepdims, return_sign)


def _softmax_tangent(dx, y, x, axis=None):
    return y * (dx - np.sum(dx * y, axis=axis, keepdims=True))


@LIB.rule("softmax", jvp=_softmax_tangent)
def softmax(g, y, x, axis=None):
    """y (g - sum(g y)) over axis (all elements for axis=None)."""
    return y * (g - np.sum(g * y, axis=axis, keepdims=True))


def _log_softmax_tangent(dx, y, x, axis=None):
    return dx - np.sum(np.exp(y) * dx, axis=axis, keepdims=True)


@LIB.rule("log_softmax", jvp=_log_softmax_tangent)
def log_softmax(g, y, x, axis=None):
    """g - softmax(x) sum(g) over axis."""
    return g - np.exp(y) * np.sum(g, axis=axis, keepdims=True)


# ---------------------------------------------------------------------------
# elementwise functions of one argument: the body is g * f'(x), also the jvp (dx * f'(x))


def _self_jvp(*names, **options):
    """Register a one-argument elementwise rule as its own forward-mode rule as well."""
    def register(fn):
        return LIB.rule(*names, jvp=fn, **options)(fn)
    return register


@_self_jvp("expit")
def expit(g, y, x, out=None, **kwargs):
    return g * y * (1.0 - y)


@_self_jvp("logit")
def logit(g, y, x, out=None, **kwargs):
    """0 < x < 1."""
    return g / (x * (1.0 - x))


@_self_jvp("log_expit")
def log_expit(g, y, x, out=None, **kwargs):
    return g * special.expit(np.negative(x))


@_self_jvp("softplus")
def softplus(g, y, x, **kwargs):
    return g * special.expit(x)


@_self_jvp("gammaln")
def gammaln(g, y, x, out=None, **kwargs):
    """log|Gamma(x)|: psi(x), also for negative non-integer x."""
    return g * special.psi(x)


@_self_jvp("loggamma")
def loggamma(g, y, x, out=None, **kwargs):
    """Real x > 0."""
    return g * special.psi(x)


@_self_jvp("gamma")
def gamma(g, y, x, out=None, **kwargs):
    return g * y * special.psi(x)


@_self_jvp("rgamma")
def rgamma(g, y, x, out=None, **kwargs):
    """1 / Gamma(x)."""
    return -g * y * special.psi(x)


@_self_jvp("digamma")
def digamma(g, y, x, out=None, **kwargs):
    """scipy.special.psi is the same function."""
    return g * special.polygamma(1, x)


@_self_jvp("multigammaln", diff=("a",), underived=("d",))
def multigammaln(g, y, a, d):
    """In a; the dimension d is an integer."""
    return _as_input(g * _multigammaln_derivative(a, d), a)


@_self_jvp("erf")
def erf(g, y, x, out=None, **kwargs):
    return g * _TWO_OVER_SQRT_PI * np.exp(-np.square(x))


@_self_jvp("erfc")
def erfc(g, y, x, out=None, **kwargs):
    return -g * _TWO_OVER_SQRT_PI * np.exp(-np.square(x))


@_self_jvp("erfi")
def erfi(g, y, x, out=None, **kwargs):
    return g * _TWO_OVER_SQRT_PI * np.exp(np.square(x))


@_self_jvp("erfinv")
def erfinv(g, y, x, out=None, **kwargs):
    """-1 < x < 1."""
    return g * _SQRT_PI_OVER_2 * np.exp(np.square(y))


@_self_jvp("erfcinv")
def erfcinv(g, y, x, out=None, **kwargs):
    """0 < x < 2."""
    return -g * _SQRT_PI_OVER_2 * np.exp(np.square(y))


@_self_jvp("erfcx")
def erfcx(g, y, x, out=None, **kwargs):
    """exp(x^2) erfc(x): 2 x erfcx(x) - 2 / sqrt(pi)."""
    return g * (2.0 * x * y - _TWO_OVER_SQRT_PI)


@_self_jvp("dawsn")
def dawsn(g, y, x, out=None, **kwargs):
    return g * (1.0 - 2.0 * x * y)


@_self_jvp("ndtr")
def ndtr(g, y, x, out=None, **kwargs):
    """The standard normal CDF: its density."""
    return g * np.exp(-0.5 * np.square(x) - _LOG_SQRT_2PI)


@_self_jvp("log_ndtr")
def log_ndtr(g, y, x, out=None, **kwargs):
    """density / CDF, computed as exp(log density - log CDF) (stable in both tails)."""
    return g * np.exp(-0.5 * np.square(x) - _LOG_SQRT_2PI - y)


@_self_jvp("ndtri")
def ndtri(g, y, x, out=None, **kwargs):
    """0 < x < 1: 1 / density(ndtri(x))."""
    return g * _SQRT_2PI * np.exp(0.5 * np.square(y))


@_self_jvp("ndtri_exp")
def ndtri_exp(g, y, x, out=None, **kwargs):
    """ndtri(exp(x)) for x < 0."""
    return g * np.exp(x + 0.5 * np.square(y) + _LOG_SQRT_2PI)


@_self_jvp("entr")
def entr(g, y, x, out=None, **kwargs):
    """-x log x for x > 0: -(log x + 1)."""
    return -g * (np.log(x) + 1.0)


@_self_jvp("expi")
def expi(g, y, x, out=None, **kwargs):
    """x != 0: e^x / x."""
    return g * np.exp(x) / x


@_self_jvp("exp1")
def exp1(g, y, x, out=None, **kwargs):
    """x > 0: -e^-x / x."""
    return -g * np.exp(np.negative(x)) / x


@_self_jvp("ellipk")
def ellipk(g, y, x, out=None, **kwargs):
    """0 < m < 1: (E(m) - (1 - m) K(m)) / (2 m (1 - m))."""
    return g * (special.ellipe(x) - (1.0 - x) * y) / (2.0 * x * (1.0 - x))


@_self_jvp("ellipe")
def ellipe(g, y, x, out=None, **kwargs):
    """0 < m < 1: (E(m) - K(m)) / (2 m)."""
    return g * (y - special.ellipk(x)) / (2.0 * x)


@_self_jvp("spence")
def spence(g, y, x, out=None, **kwargs):
    """x > 0, x != 1: log(x) / (1 - x)."""
    return g * np.log(x) / (1.0 - x)


@_self_jvp("wrightomega")
def wrightomega(g, y, x, out=None, **kwargs):
    return g * y / (1.0 + y)


@_self_jvp("sindg")
def sindg(g, y, x, out=None, **kwargs):
    return g * _RAD_PER_DEG * special.cosdg(x)


@_self_jvp("cosdg")
def cosdg(g, y, x, out=None, **kwargs):
    return -g * _RAD_PER_DEG * special.sindg(x)


@_self_jvp("tandg")
def tandg(g, y, x, out=None, **kwargs):
    return g * _RAD_PER_DEG * (1.0 + y * y)


@_self_jvp("cotdg")
def cotdg(g, y, x, out=None, **kwargs):
    return -g * _RAD_PER_DEG * (1.0 + y * y)


@_self_jvp("cosm1")
def cosm1(g, y, x, out=None, **kwargs):
    return -g * np.sin(x)


@_self_jvp("exprel")
def exprel(g, y, x, out=None, **kwargs):
    """(e^x - 1) / x: (e^x - exprel(x)) / x, and 1/2 at x = 0."""
    safe = np.where(np.asarray(x) == 0, 1.0, x)
    return g * np.where(np.asarray(x) == 0, 0.5, (np.exp(x) - y) / safe)


@_self_jvp("exp10")
def exp10(g, y, x, out=None, **kwargs):
    return g * y * _LN10


@_self_jvp("exp2")
def exp2(g, y, x, out=None, **kwargs):
    return g * y * _LN2


@_self_jvp("expm1")
def expm1(g, y, x, out=None, **kwargs):
    return g * (y + 1.0)


@_self_jvp("log1p")
def log1p(g, y, x, out=None, **kwargs):
    return g / (1.0 + x)


@_self_jvp("cbrt")
def cbrt(g, y, x, out=None, **kwargs):
    """x != 0."""
    return g / (3.0 * y * y)


# Bessel functions of fixed order


@_self_jvp("i0")
def i0(g, y, x, out=None, **kwargs):
    return g * special.i1(x)


@_self_jvp("i1")
def i1(g, y, x, out=None, **kwargs):
    """(I0 + I2) / 2."""
    return g * 0.5 * (special.i0(x) + special.iv(2.0, x))


@_self_jvp("i0e")
def i0e(g, y, x, out=None, **kwargs):
    """e^-|x| I0(x): I1e(x) - sign(x) I0e(x)."""
    return g * (special.i1e(x) - np.sign(x) * y)


@_self_jvp("i1e")
def i1e(g, y, x, out=None, **kwargs):
    return g * (0.5 * (special.i0e(x) + special.ive(2.0, x)) - np.sign(x) * y)


@_self_jvp("j0")
def j0(g, y, x, out=None, **kwargs):
    return -g * special.j1(x)


@_self_jvp("j1")
def j1(g, y, x, out=None, **kwargs):
    return g * 0.5 * (special.j0(x) - special.jv(2.0, x))


@_self_jvp("y0")
def y0(g, y, x, out=None, **kwargs):
    """x > 0."""
    return -g * special.y1(x)


@_self_jvp("y1")
def y1(g, y, x, out=None, **kwargs):
    """x > 0."""
    return g * 0.5 * (special.y0(x) - special.yv(2.0, x))


@_self_jvp("k0")
def k0(g, y, x, out=None, **kwargs):
    """x > 0."""
    return -g * special.k1(x)


@_self_jvp("k1")
def k1(g, y, x, out=None, **kwargs):
    """x > 0."""
    return -g * 0.5 * (special.k0(x) + special.kv(2.0, x))


@_self_jvp("k0e")
def k0e(g, y, x, out=None, **kwargs):
    """e^x K0(x), x > 0."""
    return g * (y - special.k1e(x))


@_self_jvp("k1e")
def k1e(g, y, x, out=None, **kwargs):
    """e^x K1(x), x > 0."""
    return g * (y - 0.5 * (special.k0e(x) + special.kve(2.0, x)))


# Bessel functions of any order v, incomplete integrals, inverse CDFs: in one variable, the
# order or shape parameters underived.  The reverse rule sums g f' back to the variable's
# shape; the forward rule is dx f' (the result's shape).


def _iv_derivative(y, v, x):
    """(I_{v-1} + I_{v+1}) / 2."""
    return 0.5 * (special.iv(np.subtract(v, 1.0), x) + special.iv(np.add(v, 1.0), x))


def _ive_derivative(y, v, x):
    """(Ive_{v-1} + Ive_{v+1}) / 2 - sign(x) Ive_v."""
    return 0.5 * (special.ive(np.subtract(v, 1.0), x) + special.ive(np.add(v, 1.0), x)) - np.sign(x) * y


def _jv_derivative(y, v, x):
    """(J_{v-1} - J_{v+1}) / 2; also jve's for real x (its scale exp(-|Im x|) is 1)."""
    return 0.5 * (special.jv(np.subtract(v, 1.0), x) - special.jv(np.add(v, 1.0), x))


def _yv_derivative(y, v, x):
    """(Y_{v-1} - Y_{v+1}) / 2; also yve's for real x."""
    return 0.5 * (special.yv(np.subtract(v, 1.0), x) - special.yv(np.add(v, 1.0), x))


def _kv_derivative(y, v, x):
    """-(K_{v-1} + K_{v+1}) / 2."""
    return -0.5 * (special.kv(np.subtract(v, 1.0), x) + special.kv(np.add(v, 1.0), x))


def _kve_derivative(y, v, x):
    """e^x K_v(x): kve - (Kve_{v-1} + Kve_{v+1}) / 2."""
    return y - 0.5 * (special.kve(np.subtract(v, 1.0), x) + special.kve(np.add(v, 1.0), x))


def _gamma_density(a, x):
    """x^(a-1) e^-x / Gamma(a), the derivative of gammainc(a, x) in x."""
    return np.exp(special.xlogy(np.subtract(a, 1.0), x) - x - special.gammaln(a))


def _beta_density(a, b, x):
    """x^(a-1) (1-x)^(b-1) / B(a, b), the derivative of betainc(a, b, x) in x."""
    log_density = special.xlogy(np.subtract(a, 1.0), x) + \
        special.xlog1py(np.subtract(b, 1.0), np.negative(x))
    return np.exp(log_density - special.betaln(a, b))


def _t_density(df, t):
    """Student's t density with df degrees of freedom."""
    half = np.add(df, 1.0) / 2.0
    return np.exp(special.gammaln(half) - special.gammaln(np.divide(df, 2.0))
                  - 0.5 * np.log(np.multiply(df, math.pi)) - half * np.log1p(np.square(t) / df))


def _polygamma_tangent(dx, y, n, x):
    return dx * special.polygamma(np.add(n, 1), x)


@LIB.rule("polygamma", diff=("x",), underived=("n",), jvp=_polygamma_tangent)
def polygamma(g, y, n, x):
    """In x; the order n is an integer."""
    return unbroadcast(g * special.polygamma(np.add(n, 1), x), x)


def _iv_tangent(dx, y, v, x, out=None, **kwargs):
    return dx * _iv_derivative(y, v, x)


@LIB.rule("iv", diff=("x",), underived=("v",), jvp=_iv_tangent)
def iv(g, y, v, x, out=None, **kwargs):
    """In x: (I_{v-1} + I_{v+1}) / 2."""
    return unbroadcast(g * _iv_derivative(y, v, x), x)


def _ive_tangent(dx, y, v, x, out=None, **kwargs):
    return dx * _ive_derivative(y, v, x)


@LIB.rule("ive", diff=("x",), underived=("v",), jvp=_ive_tangent)
def ive(g, y, v, x, out=None, **kwargs):
    """In x: (Ive_{v-1} + Ive_{v+1}) / 2 - sign(x) Ive_v."""
    return unbroadcast(g * _ive_derivative(y, v, x), x)


def _jv_tangent(dx, y, v, x, out=None, **kwargs):
    return dx * _jv_derivative(y, v, x)


@LIB.rule("jv", "jve", diff=("x",), underived=("v",), jvp=_jv_tangent)
def jv(g, y, v, x, out=None, **kwargs):
    """In x: (J_{v-1} - J_{v+1}) / 2 (jve: the same for real x)."""
    return unbroadcast(g * _jv_derivative(y, v, x), x)


def _yv_tangent(dx, y, v, x, out=None, **kwargs):
    return dx * _yv_derivative(y, v, x)


@LIB.rule("yv", "yve", diff=("x",), underived=("v",), jvp=_yv_tangent)
def yv(g, y, v, x, out=None, **kwargs):
    """In x > 0: (Y_{v-1} - Y_{v+1}) / 2 (yve: the same for real x)."""
    return unbroadcast(g * _yv_derivative(y, v, x), x)


def _yn_tangent(dx, y, n, x, out=None, **kwargs):
    return dx * _yv_derivative(y, n, x)


@LIB.rule("yn", diff=("x",), underived=("n",), jvp=_yn_tangent)
def yn(g, y, n, x, out=None, **kwargs):
    """Integer order n, in x > 0: (Y_{n-1} - Y_{n+1}) / 2."""
    return unbroadcast(g * _yv_derivative(y, n, x), x)


def _kn_tangent(dx, y, n, x, out=None, **kwargs):
    return dx * _kv_derivative(y, n, x)


@LIB.rule("kn", diff=("x",), underived=("n",), jvp=_kn_tangent)
def kn(g, y, n, x, out=None, **kwargs):
    """Integer order n, in x > 0: -(K_{n-1} + K_{n+1}) / 2."""
    return unbroadcast(g * _kv_derivative(y, n, x), x)


def _kv_tangent(dx, y, v, x, out=None, **kwargs):
    return dx * _kv_derivative(y, v, x)


@LIB.rule("kv", diff=("x",), underived=("v",), jvp=_kv_tangent)
def kv(g, y, v, x, out=None, **kwargs):
    """In x > 0: -(K_{v-1} + K_{v+1}) / 2."""
    return unbroadcast(g * _kv_derivative(y, v, x), x)


def _kve_tangent(dx, y, v, x, out=None, **kwargs):
    return dx * _kve_derivative(y, v, x)


@LIB.rule("kve", diff=("x",), underived=("v",), jvp=_kve_tangent)
def kve(g, y, v, x, out=None, **kwargs):
    """e^x K_v(x) in x > 0."""
    return unbroadcast(g * _kve_derivative(y, v, x), x)


def _gammainc_tangent(dx, y, a, x, out=None, **kwargs):
    return dx * _gamma_density(a, x)


@LIB.rule("gammainc", diff=("x",), underived=("a",), jvp=_gammainc_tangent)
def gammainc(g, y, a, x, out=None, **kwargs):
    """In x > 0: x^(a-1) e^-x / Gamma(a)."""
    return unbroadcast(g * _gamma_density(a, x), x)


def _gammaincc_tangent(dx, y, a, x, out=None, **kwargs):
    return -dx * _gamma_density(a, x)


@LIB.rule("gammaincc", diff=("x",), underived=("a",), jvp=_gammaincc_tangent)
def gammaincc(g, y, a, x, out=None, **kwargs):
    """In x > 0."""
    return unbroadcast(-g * _gamma_density(a, x), x)


def _gammaincinv_tangent(dp, out_value, a, p, out=None, **kwargs):
    return dp / _gamma_density(a, out_value)


@LIB.rule("gammaincinv", diff=("p",), underived=("a",), jvp=_gammaincinv_tangent)
def gammaincinv(g, out_value, a, p, out=None, **kwargs):
    """In 0 < p < 1: 1 / the density at the result."""
    return unbroadcast(g / _gamma_density(a, out_value), p)


def _gammainccinv_tangent(dp, out_value, a, p, out=None, **kwargs):
    return -dp / _gamma_density(a, out_value)


@LIB.rule("gammainccinv", diff=("p",), underived=("a",), jvp=_gammainccinv_tangent)
def gammainccinv(g, out_value, a, p, out=None, **kwargs):
    """In 0 < p < 1."""
    return unbroadcast(-g / _gamma_density(a, out_value), p)


def _betainc_tangent(dx, y, a, b, x, out=None, **kwargs):
    return dx * _beta_density(a, b, x)


@LIB.rule("betainc", diff=("x",), underived=("a", "b"), jvp=_betainc_tangent)
def betainc(g, y, a, b, x, out=None, **kwargs):
    """In 0 < x < 1: x^(a-1) (1-x)^(b-1) / B(a, b)."""
    return unbroadcast(g * _beta_density(a, b, x), x)


def _betaincc_tangent(dx, y, a, b, x, out=None, **kwargs):
    return -dx * _beta_density(a, b, x)


@LIB.rule("betaincc", diff=("x",), underived=("a", "b"), jvp=_betaincc_tangent)
def betaincc(g, y, a, b, x, out=None, **kwargs):
    """In 0 < x < 1."""
    return unbroadcast(-g * _beta_density(a, b, x), x)


def _stdtr_tangent(dt, y, df, t, out=None, **kwargs):
    return dt * _t_density(df, t)


@LIB.rule("stdtr", diff=("t",), underived=("df",), jvp=_stdtr_tangent)
def stdtr(g, y, df, t, out=None, **kwargs):
    """Student's t CDF in t: the t density."""
    return unbroadcast(g * _t_density(df, t), t)


def _zeta_tangent(dq, y, x, q=None, out=None):
    return -dq * x * special.zeta(np.add(x, 1.0), q)


@LIB.rule("zeta", diff=("q",), underived=("x",), jvp=_zeta_tangent)
def zeta(g, y, x, q=None, out=None):
    """Hurwitz zeta(s, q) in q: -s zeta(s + 1, q); no derivative in s (refused when active)."""
    return unbroadcast(-g * x * special.zeta(np.add(x, 1.0), q), q)


def _boxcox_tangent(dx, y, x, lmbda, out=None, **kwargs):
    return dx * np.power(x, np.subtract(lmbda, 1.0))


@LIB.rule("boxcox", diff=("x",), underived=("lmbda",), jvp=_boxcox_tangent)
def boxcox(g, y, x, lmbda, out=None, **kwargs):
    """In x > 0: x^(lambda - 1)."""
    return unbroadcast(g * np.power(x, np.subtract(lmbda, 1.0)), x)


def _boxcox1p_tangent(dx, y, x, lmbda, out=None, **kwargs):
    return dx * np.power(np.add(x, 1.0), np.subtract(lmbda, 1.0))


@LIB.rule("boxcox1p", diff=("x",), underived=("lmbda",), jvp=_boxcox1p_tangent)
def boxcox1p(g, y, x, lmbda, out=None, **kwargs):
    """In x > -1: (1 + x)^(lambda - 1)."""
    return unbroadcast(g * np.power(np.add(x, 1.0), np.subtract(lmbda, 1.0)), x)


def _inv_boxcox_tangent(dx, out_value, x, lmbda, out=None, **kwargs):
    return dx * np.power(out_value, np.subtract(1.0, lmbda))


@LIB.rule("inv_boxcox", diff=("x",), underived=("lmbda",), jvp=_inv_boxcox_tangent)
def inv_boxcox(g, out_value, x, lmbda, out=None, **kwargs):
    """In x: result^(1 - lambda)."""
    return unbroadcast(g * np.power(out_value, np.subtract(1.0, lmbda)), x)


def _inv_boxcox1p_tangent(dx, out_value, x, lmbda, out=None, **kwargs):
    return dx * np.power(np.add(out_value, 1.0), np.subtract(1.0, lmbda))


@LIB.rule("inv_boxcox1p", diff=("x",), underived=("lmbda",), jvp=_inv_boxcox1p_tangent)
def inv_boxcox1p(g, out_value, x, lmbda, out=None, **kwargs):
    """In x: (1 + result)^(1 - lambda)."""
    return unbroadcast(g * np.power(np.add(out_value, 1.0), np.subtract(1.0, lmbda)), x)


# ---------------------------------------------------------------------------
# elementwise functions of two arguments


def _xlogy_tangent(dx, dv, out_value, x, v, out=None, **kwargs):
    fx, fy = _xlogy_partials(x, v)
    return _directional(dx, fx, dv, fy)


@LIB.rule("xlogy", jvp=_xlogy_tangent)
def xlogy(g, out_value, x, v, out=None, **kwargs):
    """x log y, 0 at x = 0: (log y, x / y) for y > 0."""
    fx, fy = _xlogy_partials(x, v)
    return unbroadcast(g * fx, x), unbroadcast(g * fy, v)


def _xlog1py_tangent(dx, dv, out_value, x, v, out=None, **kwargs):
    fx, fy = _xlog1py_partials(x, v)
    return _directional(dx, fx, dv, fy)


@LIB.rule("xlog1py", jvp=_xlog1py_tangent)
def xlog1py(g, out_value, x, v, out=None, **kwargs):
    """x log(1 + y): (log(1 + y), x / (1 + y)) for y > -1."""
    fx, fy = _xlog1py_partials(x, v)
    return unbroadcast(g * fx, x), unbroadcast(g * fy, v)


def _rel_entr_tangent(dx, dv, out_value, x, v, out=None, **kwargs):
    fx, fy = _rel_entr_partials(x, v)
    return _directional(dx, fx, dv, fy)


@LIB.rule("rel_entr", jvp=_rel_entr_tangent)
def rel_entr(g, out_value, x, v, out=None, **kwargs):
    """x, y > 0: (log(x / y) + 1, -x / y)."""
    fx, fy = _rel_entr_partials(x, v)
    return unbroadcast(g * fx, x), unbroadcast(g * fy, v)


def _kl_div_tangent(dx, dv, out_value, x, v, out=None, **kwargs):
    fx, fy = _kl_div_partials(x, v)
    return _directional(dx, fx, dv, fy)


@LIB.rule("kl_div", jvp=_kl_div_tangent)
def kl_div(g, out_value, x, v, out=None, **kwargs):
    """x, y > 0: (log(x / y), 1 - x / y)."""
    fx, fy = _kl_div_partials(x, v)
    return unbroadcast(g * fx, x), unbroadcast(g * fy, v)


def _beta_tangent(da, db, y, a, b, out=None, **kwargs):
    fa, fb = _beta_partials(a, b)
    return y * _directional(da, fa, db, fb)


@LIB.rule("beta", jvp=_beta_tangent)
def beta(g, y, a, b, out=None, **kwargs):
    """B(a, b) (psi(a) - psi(a + b)), and the same for b."""
    fa, fb = _beta_partials(a, b)
    return unbroadcast(g * y * fa, a), unbroadcast(g * y * fb, b)


def _betaln_tangent(da, db, y, a, b, out=None, **kwargs):
    fa, fb = _beta_partials(a, b)
    return _directional(da, fa, db, fb)


@LIB.rule("betaln", jvp=_betaln_tangent)
def betaln(g, y, a, b, out=None, **kwargs):
    """psi(a) - psi(a + b), and the same for b (a, b > 0)."""
    fa, fb = _beta_partials(a, b)
    return unbroadcast(g * fa, a), unbroadcast(g * fb, b)


def _poch_tangent(dz, dm, y, z, m, out=None, **kwargs):
    fz, fm = _poch_partials(z, m)
    return y * _directional(dz, fz, dm, fm)


@LIB.rule("poch", jvp=_poch_tangent)
def poch(g, y, z, m, out=None, **kwargs):
    """Gamma(z + m) / Gamma(z)."""
    fz, fm = _poch_partials(z, m)
    return unbroadcast(g * y * fz, z), unbroadcast(g * y * fm, m)


def _binom_tangent(dn, dk, y, n, k, out=None, **kwargs):
    fn, fk = _binom_partials(n, k)
    return y * _directional(dn, fn, dk, fk)


@LIB.rule("binom", jvp=_binom_tangent)
def binom(g, y, n, k, out=None, **kwargs):
    """The gamma-function form, away from the poles (n, k, n - k not negative integers)."""
    fn, fk = _binom_partials(n, k)
    return unbroadcast(g * y * fn, n), unbroadcast(g * y * fk, k)


def _powm1_tangent(dx, dp, y, x, p, out=None, **kwargs):
    fx, fp = _powm1_partials(x, p)
    return _directional(dx, fx, dp, fp)


@LIB.rule("powm1", jvp=_powm1_tangent)
def powm1(g, y, x, p, out=None, **kwargs):
    """x**p - 1 for x > 0."""
    fx, fp = _powm1_partials(x, p)
    return unbroadcast(g * fx, x), unbroadcast(g * fp, p)


def _huber_tangent(ddelta, dr, y, delta, r, out=None, **kwargs):
    fd, fr = _huber_partials(delta, r)
    return _directional(ddelta, fd, dr, fr)


@LIB.rule("huber", jvp=_huber_tangent)
def huber(g, y, delta, r, out=None, **kwargs):
    """delta > 0, away from |r| = delta."""
    fd, fr = _huber_partials(delta, r)
    return unbroadcast(g * fd, delta), unbroadcast(g * fr, r)


def _pseudo_huber_tangent(ddelta, dr, y, delta, r, out=None, **kwargs):
    fd, fr = _pseudo_huber_partials(delta, r)
    return _directional(ddelta, fd, dr, fr)


@LIB.rule("pseudo_huber", jvp=_pseudo_huber_tangent)
def pseudo_huber(g, y, delta, r, out=None, **kwargs):
    """delta > 0."""
    fd, fr = _pseudo_huber_partials(delta, r)
    return unbroadcast(g * fd, delta), unbroadcast(g * fr, r)


# Holomorphic where SciPy takes complex values, and their bodies are g * f'(z) as they stand:
# right under the covector convention (docs/complex.md; tests/rules/test_scipy_end_to_end.py
# checks each in the real and the imaginary direction)
HOLOMORPHIC = ("erf", "erfc", "erfi", "erfcx", "dawsn", "ndtr", "log_ndtr", "expm1", "log1p", "gamma",
               "loggamma", "exp1", "expi")
declare_complex_ok(*(LIB.get(name) for name in HOLOMORPHIC))

# (factorial, factorial2, comb and perm take real arguments and move with them, through
# gamma: they are not listed, so an active argument is refused or their source followed)
LIB.nondifferentiable("round", "gammasgn")
