"""Rules for the `math` module (Python floats in, Python floats out).

The bodies use `math` functions so that a float argument gets a float
cotangent.  pow and fmod share the operator rules (see operators.py).
"""

from __future__ import annotations

import math

from zygote_py.rules.registry import since, vjp

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_DEG_PER_RAD = 180.0 / math.pi
_RAD_PER_DEG = math.pi / 180.0


@vjp(math.sin)
def sin(g, y, x):
    return g * math.cos(x)


@vjp(math.cos)
def cos(g, y, x):
    return -g * math.sin(x)


@vjp(math.tan)
def tan(g, y, x):
    return g * (1.0 + y * y)


@vjp(math.asin)
def asin(g, y, x):
    return g / math.sqrt(1.0 - x * x)


@vjp(math.acos)
def acos(g, y, x):
    return -g / math.sqrt(1.0 - x * x)


@vjp(math.atan)
def atan(g, y, x):
    return g / (1.0 + x * x)


@vjp(math.atan2)
def atan2(g, y, a, b):
    """atan2(a, b) (math names them y, x): d/da = b / r2, d/db = -a / r2."""
    gr = g / (a * a + b * b)
    return gr * b, -gr * a


@vjp(math.sinh)
def sinh(g, y, x):
    return g * math.cosh(x)


@vjp(math.cosh)
def cosh(g, y, x):
    return g * math.sinh(x)


@vjp(math.tanh)
def tanh(g, y, x):
    return g * (1.0 - y * y)


@vjp(math.asinh)
def asinh(g, y, x):
    return g / math.sqrt(x * x + 1.0)


@vjp(math.acosh)
def acosh(g, y, x):
    return g / math.sqrt(x * x - 1.0)


@vjp(math.atanh)
def atanh(g, y, x):
    return g / (1.0 - x * x)


@vjp(math.exp)
def exp(g, y, x):
    return g * y


@vjp(since(math, "exp2", "Python 3.11"))
def exp2(g, y, x):
    return g * y * _LN2


@vjp(math.expm1)
def expm1(g, y, x):
    return g * (y + 1.0)


@vjp(math.log, diff=("x", "base"))
def log(g, y, x, base=None):
    """log(x) or log(x, base) = ln x / ln base."""
    if base is None:
        return g / x, None
    lb = math.log(base)
    return g / (x * lb), -g * y / (base * lb)


@vjp(math.log1p)
def log1p(g, y, x):
    return g / (1.0 + x)


@vjp(math.log2)
def log2(g, y, x):
    return g / (x * _LN2)


@vjp(math.log10)
def log10(g, y, x):
    return g / (x * _LN10)


@vjp(math.sqrt)
def sqrt(g, y, x):
    """At x == 0 the derivative is infinite (no ZeroDivisionError)."""
    return 0.5 * g / y if y else g * math.inf


@vjp(since(math, "cbrt", "Python 3.11"))
def cbrt(g, y, x):
    return g / (3.0 * y * y) if y else g * math.inf


def _scale_each(values, s):
    """(v * s for v in values) as a tuple: hypot's cotangent per coordinate."""
    return tuple(v * s for v in values)


@vjp(math.hypot, diff=("coordinates",))
def hypot(g, y, *coordinates):
    """Cotangent: a tuple, one float per coordinate (zeros at the origin)."""
    return _scale_each(coordinates, g / y if y else 0.0)


@vjp(math.fabs)
def fabs(g, y, x):
    """Derivative taken as 0 at x == 0."""
    return g if x > 0 else (-g if x < 0 else 0.0 * g)


@vjp(math.copysign, diff=("a",))
def copysign(g, y, a, b):
    """copysign(a, b) = |a| sign(b): only the magnitude argument a is differentiable."""
    return g * math.copysign(1.0, a) * math.copysign(1.0, b)


@vjp(math.erf)
def erf(g, y, x):
    return g * _TWO_OVER_SQRT_PI * math.exp(-x * x)


@vjp(math.erfc)
def erfc(g, y, x):
    return -g * _TWO_OVER_SQRT_PI * math.exp(-x * x)


@vjp(math.degrees)
def degrees(g, y, x):
    return g * _DEG_PER_RAD


@vjp(math.radians)
def radians(g, y, x):
    return g * _RAD_PER_DEG


@vjp(math.ldexp, diff=("x",))
def ldexp(g, y, x, i):
    """ldexp(x, i) = x * 2**i (i is an integer)."""
    return math.ldexp(g, i)


# ---------------------------------------------------------------------------
# gamma functions, products, distances, remainders


def _digamma(x):
    """psi(x) = d lgamma(x) / dx for real x (the math module has no digamma).

    Reflection below 1/2, the recurrence psi(x) = psi(x + 1) - 1/x up to 10,
    then the asymptotic series (error below 1e-14 there).  Poles (0, -1, ...)
    give nan.
    """
    if x <= 0.0 and x == math.floor(x):
        return math.nan
    if x < 0.5:
        return _digamma(1.0 - x) - math.pi / math.tan(math.pi * x)
    acc = 0.0
    while x < 10.0:
        acc -= 1.0 / x
        x += 1.0
    inv2 = 1.0 / (x * x)
    series = inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (
        1.0 / 240 - inv2 * (1.0 / 132)))))
    return acc + math.log(x) - 0.5 / x - series


def _sequence_like(values, like):
    return list(values) if type(like) is list else tuple(values)


def _dist_cotangents(g, y, p, q):
    """dist(p, q) = |p - q|: p_bar = g (p - q) / y, q_bar = -p_bar (zeros when p == q)."""
    s = g / y if y else 0.0
    gp = [(a - b) * s for a, b in zip(p, q)]
    return _sequence_like(gp, p), _sequence_like([-v for v in gp], q)


def _prod_cotangent(g, items, start):
    """Each factor gets g times the product of all the others (exact with zeros)."""
    values = list(items)
    out = []
    for i in range(len(values)):
        others = start
        for j, v in enumerate(values):
            if j != i:
                others = others * v
        out.append(g * others)
    return _sequence_like(out, items) if isinstance(items, (list, tuple)) else None


def _sumprod_cotangents(g, p, q):
    return _sequence_like([g * b for b in q], p), _sequence_like([g * a for a in p], q)


@vjp(math.gamma)
def gamma(g, y, x):
    """Gamma'(x) = Gamma(x) psi(x)."""
    return g * y * _digamma(x)


@vjp(math.lgamma)
def lgamma(g, y, x):
    """d log|Gamma(x)| / dx = psi(x), for negative non-integer x too."""
    return g * _digamma(x)


@vjp(math.dist)
def dist(g, y, p, q):
    """p and q are sequences of floats: the cotangents are sequences of the same kind."""
    return _dist_cotangents(g, y, p, q)


@vjp(math.prod, diff=("iterable", "start"))
def prod(g, y, iterable, *, start=1):
    """A list or tuple of factors gets a list or tuple; an int start is a constant."""
    gstart = None if isinstance(start, int) else g * math.prod(iterable)
    return _prod_cotangent(g, iterable, start), gstart


@vjp(since(math, "sumprod", "Python 3.12"))
def sumprod(g, y, p, q):
    """sum(a * b for a, b in zip(p, q))."""
    return _sumprod_cotangents(g, p, q)


@vjp(math.remainder)
def remainder(g, y, x, y_):
    """IEEE remainder x - n y with n the nearest integer to x / y: d/dx = 1, d/dy = -n.
    (The divisor is named y_ here: y is the output.)"""
    return g, -g * round((x - y) / y_)


@vjp(math.modf)
def modf(g, y, x):
    """(fractional part, integral part): only the fractional part carries a derivative."""
    return g[0]


@vjp(math.frexp)
def frexp(g, y, x):
    """(m, e) with x = m 2**e: dm/dx = 2**-e."""
    gm = g[0]
    return None if gm is None else math.ldexp(gm, -y[1])
