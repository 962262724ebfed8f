"""Rules on complex values: the covector convention (docs/complex.md).

The cotangent of a complex value z = u + iv is the covector dL/du - i dL/dv
(autograd's and JAX's convention), so a holomorphic f pulls back g to
g * f'(z) -- the real-valued rules' bodies, transposes and all, unchanged --
and the gradient of a real loss is the conjugate of the steepest-ascent
direction.  Here:

- the rules whose bodies are right for complex values as written, declared
  (`HOLOMORPHIC_*` below; each is checked against finite differences in the
  real and the imaginary direction by tests/rules/test_complex_rules.py);
- the explicit formulas of the non-holomorphic functions (abs, angle, conj,
  real, imag, var, std, linalg.norm), as complex variants of their rules:
  they are used where a value may be complex and are right for real values
  too.  A real-valued output's cotangent is real: these take np.real(g),
  since a complex g reaching a real value carries a meaningless imaginary part.

Every other rule refuses a complex value (ad/reverse/calls.py, calls/dispatch.py).
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from zygote_py.rules import linalg
from zygote_py.rules.linalg import _norm_cotangent
from zygote_py.rules.operators import _pow_exponent_cotangent
from zygote_py.rules.reductions import _unsupported
from zygote_py.rules.registry import (
    complex_variant,
    declare_complex_ok,
    vjp,
    vjp_attr,
)
from zygote_py.rules.shapes import like_input
from zygote_py.rules.structure import _take_along_axis_cotangent
from zygote_py.runtime import degrees_of_freedom, unbroadcast, zero_spread


def _conj_unit(a, magnitude):
    """conj(a) / |a|, taken as 0 where a == 0 (the real rule's sign(0) = 0)."""
    zero = magnitude == 0
    return np.where(zero, 0.0, np.conj(a) / np.where(zero, 1.0, magnitude))


# ---------------------------------------------------------------------------
# abs, angle, conj, real, imag


@complex_variant(operator.abs, builtins.abs, np.absolute)
def complex_absolute(g, y, a, out=None, **kwargs):
    """|z|: Re(g) conj(z) / |z| (0 at z == 0); a real a takes the real rule's g sign(a)."""
    if np.iscomplexobj(a):
        return np.real(g) * _conj_unit(a, y)
    return g * np.sign(a)


@vjp(np.angle, diff=("z",))
def angle(g, y, z, deg=False):
    """A real array's angle is piecewise constant (0 or pi): no derivative."""
    return None


@complex_variant(np.take_along_axis)
def complex_take_along_axis(g, y, arr, indices, axis=-1):
    """A gather is linear: its cotangent scatters g, the real and imaginary parts each by the
    real rule (a complex arr; or a complex g on a real arr, as forward mode over gradient
    code gives, whose real part is the real arr's cotangent)."""
    if np.iscomplexobj(g):
        return _take_along_axis_cotangent(np.real(g), arr, indices, axis) + \
            1j * _take_along_axis_cotangent(np.imag(g), arr, indices, axis)
    return _take_along_axis_cotangent(g, arr, indices, axis)


@complex_variant(np.angle)
def complex_angle(g, y, z, deg=False):
    """atan2(v, u): Re(g) (-i conj(z)) / |z|^2 (0 at z == 0); deg scales by 180/pi."""
    magnitude = np.abs(z)
    scale = np.real(g) * (180.0 / np.pi if deg else 1.0)
    return scale * (-1j) * _conj_unit(z, magnitude) / np.where(magnitude == 0, 1.0, magnitude)


@complex_variant(np.conjugate)
def complex_conjugate(g, y, x, out=None, **kwargs):
    """conj is antilinear: the covector of conj(z) pulls back to conj(g)."""
    return np.conj(g)


@complex_variant((np.ndarray, "conj"), (np.ndarray, "conjugate"))
def complex_ndarray_conj(g, y, self):
    return np.conj(g)


@complex_variant(np.real)
def complex_real(g, y, val):
    return like_input(np.real(g), val)


@complex_variant(("attr", np.ndarray, "real"))
def complex_real_attr(g, y, self):
    return np.real(g)


@vjp(np.imag, diff=("val",))
def imag(g, y, val):
    """A real array's imaginary part is the constant 0."""
    return None


@complex_variant(np.imag)
def complex_imag(g, y, val):
    """Im(z) = v: the covector dL/du - i dL/dv is -i Re(g)."""
    return -1j * np.real(g)


@vjp_attr(np.ndarray, "imag")
def ndarray_imag(g, y, self):
    return None


@complex_variant(("attr", np.ndarray, "imag"))
def complex_ndarray_imag(g, y, self):
    return -1j * np.real(g)


# ---------------------------------------------------------------------------
# var, std, linalg.norm: |.|^2 and |.| of complex entries


def _complex_moment(g, y, a, axis, ddof, keepdims, correction, mean, std):
    """The real rules' formula with conj(a - mean) for a - mean (mean=: a constant)."""
    n = degrees_of_freedom(a, axis, ddof, correction)
    gk = np.real(g if keepdims or axis is None else np.expand_dims(g, axis))
    centered = a - (np.mean(a, axis=axis, keepdims=True) if mean is None else mean)
    if std:
        yk = y if keepdims or axis is None else np.expand_dims(y, axis)
        flat = zero_spread(yk, a, axis)  # the subgradient 0, as the real rule takes
        return np.where(flat, 0.0, np.conj(centered) * (gk / (n * np.where(flat, 1.0, yk))))
    return np.conj(centered) * (gk * (2.0 / n))


@complex_variant(np.var)
def complex_var(g, y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None,
                mean=None, correction=None):
    """mean(|a - mean(a)|^2): 2 conj(a - mean(a)) Re(g) / n."""
    if where is not None:
        _unsupported("np.var(..., where=...)")
    return like_input(_complex_moment(g, y, a, axis, ddof, keepdims, correction, mean, False), a)


@complex_variant((np.ndarray, "var"))
def complex_ndarray_var(g, y, self, axis=None, dtype=None, out=None, ddof=0, keepdims=False,
                        where=None, mean=None, correction=None):
    if where is not None:
        _unsupported("ndarray.var(..., where=...)")
    return _complex_moment(g, y, self, axis, ddof, keepdims, correction, mean, False)


@complex_variant(np.std)
def complex_std(g, y, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None,
                mean=None, correction=None):
    """sqrt(var): conj(a - mean(a)) Re(g) / (n std)."""
    if where is not None:
        _unsupported("np.std(..., where=...)")
    return like_input(_complex_moment(g, y, a, axis, ddof, keepdims, correction, mean, True), a)


@complex_variant((np.ndarray, "std"))
def complex_ndarray_std(g, y, self, axis=None, dtype=None, out=None, ddof=0, keepdims=False,
                        where=None, mean=None, correction=None):
    if where is not None:
        _unsupported("ndarray.std(..., where=...)")
    return _complex_moment(g, y, self, axis, ddof, keepdims, correction, mean, True)


@complex_variant(np.linalg.norm)
def complex_norm(g, y, x, ord=None, axis=None, keepdims=False):
    """The default order (2-norm, Frobenius): conj(x) Re(g) / norm (0 at x == 0); every
    other order through the real rule's formulas, which take complex x (rules/linalg.py)."""
    if ord is not None:
        return _norm_other_order(g, y, x, ord, axis, keepdims)
    gk = np.real(g if keepdims or axis is None else np.expand_dims(g, axis))
    yk = y if keepdims or axis is None else np.expand_dims(y, axis)
    safe = np.where(yk == 0, 1, yk)  # at x == 0 the subgradient 0, as the real rule takes
    return np.conj(x) * (gk / safe)


def _norm_other_order(g, y, x, ord, axis, keepdims):
    return _norm_cotangent(np.real(g) if np.iscomplexobj(g) else g, y, x, ord, axis, keepdims)


# ---------------------------------------------------------------------------
# casts: complex -> real keeps the real part; real -> complex takes Re(g)


def _cast_back(g, dtype):
    return np.asarray(g if dtype.kind == "c" else np.real(g), dtype=dtype)


@complex_variant((np.ndarray, "astype"))
def complex_ndarray_astype(g, y, self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    return _cast_back(g, self.dtype)


@complex_variant(getattr(np, "astype", None))
def complex_astype(g, y, x, dtype, *, copy=True, device=None):
    return _cast_back(g, x.dtype)


# ---------------------------------------------------------------------------
# power: the exponent's cotangent needs the complex log


@complex_variant(operator.pow, np.power, builtins.pow)
def complex_power(g, y, a, b, out=None, **kwargs):
    """a ** b, holomorphic in both: b a^(b-1) and a^b log(a) (the principal log; for a
    real base, the real rule's: 0 where a <= 0)."""
    if isinstance(b, int):  # the real rule's cheap cases, which hold for complex a too
        # an int exponent is active only when passed to the API explicitly (a real
        # there): its cotangent is dropped with the unused adjoint otherwise
        gb = unbroadcast(_complex_pow_exponent_cotangent(g, y, a), b)
        if b == 2:
            return g * 2 * a, gb
        if b == 1:
            return g, gb
        if b == 0:
            return None, gb
        return g * b * a ** (b - 1), gb
    ga = unbroadcast(g * b * a ** (b - 1), a)
    gb = unbroadcast(_complex_pow_exponent_cotangent(g, y, a), b)
    return ga, gb


def _complex_pow_exponent_cotangent(g, y, a):
    if np.iscomplexobj(a):
        return g * y * np.log(a)
    return _pow_exponent_cotangent(g, y, a)


# ---------------------------------------------------------------------------
# rules right as written (holomorphic, or linear with real coefficients)

HOLOMORPHIC_FUNCTIONS = (
    operator.add, np.add, operator.sub, np.subtract, operator.mul, np.multiply,
    operator.truediv, np.divide, operator.neg, np.negative, operator.pos, np.positive,
    operator.matmul, np.matmul, np.dot, np.exp, np.log, np.sin, np.cos, np.tan, np.tanh,
    np.sinh, np.cosh, np.sqrt, np.square, np.reciprocal, np.expm1, np.log1p, np.exp2,
    np.log2, np.log10, np.sum, np.mean, np.cumsum, np.trace, np.outer, np.reshape,
    np.transpose, np.ravel, np.squeeze, np.expand_dims, np.broadcast_to, np.flip,
    np.concatenate, np.stack, np.where, np.diag, operator.getitem, np.linalg.inv,
    np.arcsin, np.arccos, np.arctan, np.arcsinh, np.arccosh, np.arctanh, np.kron, np.tensordot,
    np.einsum, np.inner, np.tile, np.repeat, np.roll, np.swapaxes, np.moveaxis, np.triu, np.tril,
    np.diagonal, np.linalg.det, np.prod, np.array, np.asarray, np.hstack, np.vstack, np.copy,
    np.atleast_1d, np.column_stack, builtins.sum,
    # structure only: list(xs) / tuple(xs) pass each item's cotangent back unchanged
    builtins.list, builtins.tuple,
    # selections: the element numpy picks (complex order is lexicographic) gets g
    np.max, np.amax, np.min, np.amin,
    # a permutation: argsort orders complex values as sort does (real part, then imaginary)
    np.sort,
)
HOLOMORPHIC_METHODS = ("sum", "mean", "reshape", "ravel", "flatten", "transpose", "squeeze",
                       "copy", "cumsum", "trace", "dot", "prod", "max", "min")

declare_complex_ok(*HOLOMORPHIC_FUNCTIONS)
declare_complex_ok(*((np.ndarray, name) for name in HOLOMORPHIC_METHODS))
declare_complex_ok(("attr", np.ndarray, "T"), ("attr", np.ndarray, "mT"))
# the cotangents of the bilinear products, which gradient code calls (rules/linalg.py): each is
# the product's own formula with the cotangent for one factor, and the pairing has no
# conjugate (docs/complex.md), so their rules (rules/rule_helpers.py) are right for complex
# values as written; forward mode over a complex gradient runs them (a complex Hessian)
declare_complex_ok(linalg.tensordot_cotangent_a, linalg.tensordot_cotangent_b,
                   linalg.outer_cotangent_a, linalg.outer_cotangent_b,
                   linalg.inner_cotangent_a, linalg.inner_cotangent_b)


# ---------------------------------------------------------------------------
# the helpers generated gradient code calls: they move, sum, broadcast and scatter
# cotangents (linear with real coefficients) or multiply them by values (bilinear), so
# their rules are right for complex values as written.  Declared, forward mode over a
# gradient of complex values (zp.hvp, nested gradients) and reverse mode over one follow
# them; tests/rules/test_complex_jvp_rules.py checks them in both modes.

GRADIENT_HELPERS = (
    "zygote_py.runtime.containers.list_insert", "zygote_py.runtime.containers.list_reverse",
    "zygote_py.runtime.containers.list_pop", "zygote_py.runtime.containers.list_clear",
    "zygote_py.runtime.containers.list_setitem", "zygote_py.runtime.containers.list_delitem",
    "zygote_py.runtime.helpers.unbroadcast", "zygote_py.runtime.transposes.broadcast_like",
    "zygote_py.runtime.helpers.expand_reduced", "zygote_py.runtime.transposes.sum_reduced",
    "zygote_py.runtime.helpers.accum", "zygote_py.runtime.helpers.accum_index",
    "zygote_py.runtime.helpers.accum_item",
    "zygote_py.runtime.helpers.accum_owned", "zygote_py.runtime.helpers.zeros_if_none",
    "zygote_py.runtime.helpers.item_cotangent", "zygote_py.runtime.helpers.strong_zero",
    "zygote_py.runtime.helpers.strong_zero_kept", "zygote_py.runtime.helpers.unpack_cotangent",
    "zygote_py.runtime.helpers.split_last", "zygote_py.runtime.helpers.split_tail",
    "zygote_py.runtime.helpers.split_key", "zygote_py.rules.indexing._index_cotangent",
    "zygote_py.rules.indexing._diagonal_cotangent", "zygote_py.rules.indexing._take_cotangent",
    "zygote_py.rules.indexing._sort_cotangent",
    "zygote_py.rules.shapes._repeat_cotangent", "zygote_py.rules.shapes.like_input",
    "zygote_py.rules.linalg.matmul_cotangent_a", "zygote_py.rules.linalg.matmul_cotangent_b",
    "zygote_py.rules.linalg.dot_cotangent_a", "zygote_py.rules.linalg.dot_cotangent_b",
    "zygote_py.rules.linalg.einsum_operand_cotangent", "zygote_py.rules.linalg._multiply_last_first",
    "zygote_py.rules.factorizations.output_parts",
)


def _declare_gradient_helpers() -> None:
    from zygote_py.rules.registry import _FUNCTION_RULES
    for rule in list(_FUNCTION_RULES.values()):
        if rule.qualname in GRADIENT_HELPERS:
            rule.meta["complex_ok"] = True


_declare_gradient_helpers()
