"""Rules for NumPy's elementwise functions (ufuncs, clip, where, nan_to_num, real).

The arithmetic ufuncs shared with Python operators (add, subtract, multiply,
divide, power, negative, absolute, remainder) are in operators.py.  Every
binary rule unbroadcasts its cotangents to the operands' shapes.  Bodies reuse
the output `y` where that saves work (exp: g * y, tanh: g * (1 - y*y)).
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from zygote_py.rules.factorizations import output_parts
from zygote_py.rules.registry import vjp, vjp_method
from zygote_py.rules.shapes import like_input
from zygote_py.runtime import strong_zero, unbroadcast

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_DEG_PER_RAD = 180.0 / math.pi
_RAD_PER_DEG = math.pi / 180.0


@vjp(np.square)
def square(g, y, x, out=None, **kwargs):
    return g * 2 * x


@vjp(np.sqrt)
def sqrt(g, y, x, out=None, **kwargs):
    return strong_zero(g, g / (2 * y))  # inf at sqrt(0)


@vjp(np.cbrt)
def cbrt(g, y, x, out=None, **kwargs):
    return strong_zero(g, g / (3 * y * y))


@vjp(np.reciprocal)
def reciprocal(g, y, x, out=None, **kwargs):
    return strong_zero(g, -g * y * y)


@vjp(np.exp)
def exp(g, y, x, out=None, **kwargs):
    return strong_zero(g, g * y)  # y is inf where exp overflowed


@vjp(np.exp2)
def exp2(g, y, x, out=None, **kwargs):
    return strong_zero(g, g * y * _LN2)


@vjp(np.expm1)
def expm1(g, y, x, out=None, **kwargs):
    return strong_zero(g, g * (y + 1))


@vjp(np.log)
def log(g, y, x, out=None, **kwargs):
    return strong_zero(g, g / x)  # 0 / 0 at log(0)


@vjp(np.log2)
def log2(g, y, x, out=None, **kwargs):
    return strong_zero(g, g / (x * _LN2))


@vjp(np.log10)
def log10(g, y, x, out=None, **kwargs):
    return strong_zero(g, g / (x * _LN10))


@vjp(np.log1p)
def log1p(g, y, x, out=None, **kwargs):
    return strong_zero(g, g / (1 + x))


@vjp(np.sin)
def sin(g, y, x, out=None, **kwargs):
    return g * np.cos(x)


@vjp(np.cos)
def cos(g, y, x, out=None, **kwargs):
    return -g * np.sin(x)


@vjp(np.tan)
def tan(g, y, x, out=None, **kwargs):
    return strong_zero(g, g * (1 + y * y))


@vjp(np.arcsin)
def arcsin(g, y, x, out=None, **kwargs):
    return strong_zero(g, g / np.sqrt(1 - x * x))


@vjp(np.arccos)
def arccos(g, y, x, out=None, **kwargs):
    return strong_zero(g, -g / np.sqrt(1 - x * x))


@vjp(np.arctan)
def arctan(g, y, x, out=None, **kwargs):
    return g / (1 + x * x)


@vjp(np.sinh)
def sinh(g, y, x, out=None, **kwargs):
    return strong_zero(g, g * np.cosh(x))


@vjp(np.cosh)
def cosh(g, y, x, out=None, **kwargs):
    return strong_zero(g, g * np.sinh(x))


@vjp(np.tanh)
def tanh(g, y, x, out=None, **kwargs):
    return g * (1 - y * y)


@vjp(np.arcsinh)
def arcsinh(g, y, x, out=None, **kwargs):
    return g / np.sqrt(x * x + 1)


@vjp(np.arccosh)
def arccosh(g, y, x, out=None, **kwargs):
    return strong_zero(g, g / np.sqrt(x * x - 1))


@vjp(np.arctanh)
def arctanh(g, y, x, out=None, **kwargs):
    return strong_zero(g, g / (1 - x * x))


@vjp(np.sinc)
def sinc(g, y, x):
    """sinc'(x) = (cos(pi x) - sinc(x)) / x, which is 0 at x = 0."""
    return g * (np.cos(np.pi * x) - y) / np.where(x == 0, 1.0, x)


@vjp(np.deg2rad, np.radians)
def deg2rad(g, y, x, out=None, **kwargs):
    return g * _RAD_PER_DEG


@vjp(np.rad2deg, np.degrees)
def rad2deg(g, y, x, out=None, **kwargs):
    return g * _DEG_PER_RAD


@vjp(np.conjugate)
def conjugate(g, y, x, out=None, **kwargs):
    """Real arrays: conj is the identity (complex ones: complex_rules.py)."""
    return g


@vjp(np.arctan2)
def arctan2(g, y, a, b, out=None, **kwargs):
    gr = strong_zero(g, g / (a * a + b * b))  # 0 / 0 at (0, 0)
    return unbroadcast(gr * b, a), unbroadcast(-gr * a, b)


@vjp(np.hypot)
def hypot(g, y, a, b, out=None, **kwargs):
    gr = strong_zero(g, g / y)  # 0 / 0 at (0, 0)
    return unbroadcast(strong_zero(gr, gr * a), a), unbroadcast(strong_zero(gr, gr * b), b)


@vjp(np.logaddexp)
def logaddexp(g, y, a, b, out=None, **kwargs):
    return unbroadcast(g * np.exp(a - y), a), unbroadcast(g * np.exp(b - y), b)


@vjp(np.logaddexp2)
def logaddexp2(g, y, a, b, out=None, **kwargs):
    return unbroadcast(g * np.exp2(a - y), a), unbroadcast(g * np.exp2(b - y), b)


@vjp(np.maximum)
def maximum(g, y, a, b, out=None, **kwargs):
    """Where a == b the whole cotangent goes to the first argument a."""
    ga = g * (a >= b)
    return unbroadcast(ga, a), unbroadcast(g - ga, b)


@vjp(np.minimum)
def minimum(g, y, a, b, out=None, **kwargs):
    """Where a == b the whole cotangent goes to the first argument a."""
    ga = g * (a <= b)
    return unbroadcast(ga, a), unbroadcast(g - ga, b)


@vjp(np.fmax)
def fmax(g, y, a, b, out=None, **kwargs):
    """Like maximum (ties to a), but a NaN in b gives the cotangent to a (fmax ignores NaN)."""
    ga = g * ((a >= b) | np.isnan(b))
    return unbroadcast(ga, a), unbroadcast(g - ga, b)


@vjp(np.fmin)
def fmin(g, y, a, b, out=None, **kwargs):
    """Like minimum (ties to a), but a NaN in b gives the cotangent to a (fmin ignores NaN)."""
    ga = g * ((a <= b) | np.isnan(b))
    return unbroadcast(ga, a), unbroadcast(g - ga, b)


@vjp(np.clip, diff=("a", "a_min", "a_max", "min", "max"), elementwise=True)
def clip(g, y, a, a_min=None, a_max=None, out=None, *, min=None, max=None, **kwargs):
    """At a bound (a == a_min or a == a_max) the cotangent goes to a.

    The bounds get the cotangent where they were chosen; they may be given
    positionally (a_min, a_max) or, in NumPy 2, as min= / max=.
    """
    lo = a_min if min is None else min
    hi = a_max if max is None else max
    if lo is None:
        inside = a <= hi
    elif hi is None:
        inside = a >= lo
    else:
        inside = (a >= lo) & (a <= hi)
    ga = unbroadcast(np.where(inside, g, 0.0), a)
    glo = None if lo is None else unbroadcast(np.where(a < lo, g, 0.0), lo)
    ghi = None if hi is None else unbroadcast(np.where(a > hi, g, 0.0), hi)
    if min is None and max is None:
        return ga, glo, ghi, None, None
    return ga, None, None, glo, ghi


@vjp_method(np.ndarray, "clip", diff=("self", "min", "max"))
def ndarray_clip(g, y, self, min=None, max=None, out=None, **kwargs):
    """x.clip(lo, hi): at a bound the cotangent goes to x."""
    if min is None:
        inside = self <= max
    elif max is None:
        inside = self >= min
    else:
        inside = (self >= min) & (self <= max)
    gs = np.where(inside, g, 0.0)
    glo = None if min is None else unbroadcast(np.where(self < min, g, 0.0), min)
    ghi = None if max is None else unbroadcast(np.where(self > max, g, 0.0), max)
    return gs, glo, ghi


@vjp(np.where, diff=("x", "y_"))
def where(g, y, condition, x=None, y_=None):
    """np.where(condition, x, y): x gets g where condition holds, y elsewhere.

    (The primal's third parameter is named y_ here: y is the output.  The
    one-argument form returns integer indices, which carry no derivative.)
    """
    return unbroadcast(np.where(condition, g, 0.0), x), unbroadcast(np.where(condition, 0.0, g), y_)


@vjp(np.copysign, diff=("a",))
def copysign(g, y, a, b, out=None, **kwargs):
    """|a| sign(b): only the magnitude a is differentiable (sign(0) taken from the sign bit)."""
    return unbroadcast(g * (np.copysign(1.0, a) * np.copysign(1.0, b)), a)


@vjp(np.ldexp, diff=("a",))
def ldexp(g, y, a, b, out=None, **kwargs):
    """a * 2**b with integer b: exact scaling of g."""
    return unbroadcast(np.ldexp(g, b), a)


@vjp(np.divmod, builtins.divmod)
def divmod_(g, y, a, b, out=None, **kwargs):
    """(a // b, a % b): the floor quotient is piecewise constant; the remainder is
    differentiated as np.remainder (away from its jumps)."""
    gr = output_parts(g, y)[1]
    return unbroadcast(gr, a), unbroadcast(None if gr is None else -gr * y[0], b)


@vjp(np.heaviside, diff=("x2",))
def heaviside(g, y, x1, x2, out=None, **kwargs):
    """x2 is the value taken where x1 == 0: it gets the cotangent there (x1 none: a step)."""
    return unbroadcast(np.where(x1 == 0, g, 0.0), x2)


@vjp(np.modf, diff=("x",))
def modf(g, y, x, out=None, **kwargs):
    """(fractional part, integral part): only the fractional part carries a derivative."""
    return output_parts(g, y)[0]


@vjp(np.nan_to_num, diff=("x",), underived=("nan", "posinf", "neginf"))
def nan_to_num(g, y, x, copy=True, nan=0.0, posinf=None, neginf=None):
    """Identity on finite entries; NaN and infinities were replaced by constants."""
    return like_input(np.where(np.isfinite(x), g, 0.0), x)


@vjp(np.real, diff=("val",))
def real(g, y, val):
    """Real inputs: np.real is the identity (complex ones: complex_rules.py)."""
    return like_input(g, val)


@vjp_method(np.ndarray, "conj", "conjugate")
def ndarray_conj(g, y, self):
    """Real arrays: conj is the identity (complex ones: complex_rules.py)."""
    return g
