"""Rules for the `math` module (Python floats in, Python floats out).

The bodies use `math` functions so that a float argument gets a float
cotangent.  pow and fmod share the operator rules (see operators.py).
"""

from __future__ import annotations

import math

from zygote_py.rules.registry import vjp

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


@vjp(getattr(math, "exp2", None))
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


@vjp(getattr(math, "cbrt", None))
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
