"""The table of numeric checks: at least one spec per registered rule.

Every rule in `registry.all_rules()` must appear here (test_registry checks it),
so a new rule comes with its spec.  Shapes cover broadcasting pairs, axes
(negative, tuple, None) and keepdims; generators respect each function's domain
and keep piecewise functions away from their kinks.
"""

from __future__ import annotations

import builtins
import math
import operator

import numpy as np
from rule_harness import (
    A0,
    CUSTOM,
    NZ,
    PS,
    WC,
    WITH_ZEROS,
    A,
    B,
    F,
    M,
    P,
    R,
    S,
)

nd = np.ndarray
SPECS = []


def add(*specs):
    SPECS.extend(specs)


# ---------------------------------------------------------------------------
# binary arithmetic (operators and ufuncs), with broadcasting

BROADCAST_PAIRS = [
    (R(3, 4), R(3, 4)),
    (R(3, 1), R(1, 4)),
    (R(3, 4), R(4)),
    (R(2, 3, 4), R(3, 1)),
    (R(3, 4), S()),
    (S(), R(3)),
    (S(), S()),
]
for fn in (operator.add, np.add, operator.sub, np.subtract, operator.mul, np.multiply):
    for a, b in BROADCAST_PAIRS:
        add(F(fn, a, b))
for fn in (operator.truediv, np.divide):
    add(F(fn, R(3, 4), NZ(3, 4)), F(fn, R(3, 1), NZ(1, 4)), F(fn, R(3, 4), NZ(4)),
        F(fn, S(), NZ(3)), F(fn, R(3), S(0.5, 2.0)), F(fn, S(), S(0.5, 2.0)), F(fn, 1.0, NZ(2, 2)))
for fn in (operator.neg, np.negative, operator.pos, np.positive):
    add(F(fn, R(3, 4)), F(fn, S()))
for fn in (operator.mod, np.remainder, np.fmod):
    add(F(fn, R(3, 4), P(3, 4)), F(fn, R(3, 1), P(4)), F(fn, S(), PS()))
add(F(math.fmod, S(), PS()), F(math.fmod, S(-5, 5), S(0.7, 1.3)))

# powers: integer exponents (special cases), float and array exponents, negative bases
for fn in (operator.pow, np.power):
    add(F(fn, P(3, 4), 2), F(fn, R(3, 4), 2), F(fn, R(3, 4), 3), F(fn, NZ(3, 4), -1),
        F(fn, R(3, 4), 0), F(fn, R(3, 4), 1), F(fn, NZ(3, 4), -3), F(fn, R(3, 4), 5),
        F(fn, P(3, 4), S(0.5, 2.5)), F(fn, P(3, 1), R(1, 4, lo=-2, hi=2)), F(fn, P(3, 4), -0.5),
        F(fn, PS(), S(-2, 2)), F(fn, S(), 2), F(fn, NZ(2), np.int64(3)))
add(F(builtins.pow, PS(), S(-2, 2)), F(builtins.pow, S(), 3), F(builtins.pow, P(3), 2.5),
    F(math.pow, PS(), S(-2, 2)), F(math.pow, S(), 2), F(math.pow, S(), 3.0))
add(F(np.float_power, P(3, 4), S(0.5, 2.5)), F(np.float_power, P(3, 1), R(4, lo=-2, hi=2)),
    F(np.float_power, P(3), 2.0))

for fn in (operator.abs, builtins.abs, np.absolute, np.fabs):
    add(F(fn, NZ(3, 4)), F(fn, NZ(5)))
add(F(builtins.abs, S(0.5, 2)), F(builtins.abs, S(-2, -0.5)), F(operator.abs, S(-2, -0.5)))

# sequences: concatenation and repetition
add(
    F(operator.add, [S(), R(2)], [S()]),
    F(operator.add, (S(),), (S(), S())),
    F(operator.add, [], [S()]),
    F(operator.mul, [S(), S()], 3),
    F(operator.mul, 2, (S(), R(2))),
)

# dict methods
add(
    M(dict, "items", {"a": S(), "b": R(3)},
      g=lambda y, rng: [(None, 1.5), (None, rng.standard_normal(3))]),
    M(dict, "items", {"a": S(), "b": S()}, g=lambda y, rng: [None, (None, 0.5)], note="partial g"),
    M(dict, "values", {"a": S(), "b": R(3)}, g=lambda y, rng: [0.7, rng.standard_normal(3)]),
    M(dict, "get", {"a": S(), "b": R(3)}, "b"),
    M(dict, "get", {"a": S()}, "z", S()),
    M(dict, "get", {"a": S()}, "a", 1.0),
    M(dict, "copy", {"a": S(), "b": R(2)}),
    M(list, "copy", [S(), R(2)]),
)

# ---------------------------------------------------------------------------
# builtins over sequences

add(
    F(builtins.sum, [R(3), R(3), R(3)]),
    F(builtins.sum, [S(), S(), S()]),
    F(builtins.sum, (R(2, 3), R(3), S())),
    F(builtins.sum, R(4, 3)),
    F(builtins.sum, [R(3), R(3)], R(3)),
    F(builtins.sum, [S(), S()], S()),
    F(math.fsum, [S(), S(), S()]),
    F(math.fsum, (S(), S())),
)
for fn in (builtins.max, builtins.min):
    add(F(fn, S(), S()), F(fn, S(), S(), S()), F(fn, [S(), S(), S(), S()]), F(fn, (S(), S())),
        F(fn, R(5)), F(fn, [S(), S()], key=abs))
add(
    F(builtins.float, A0()),
    F(builtins.float, S()),
    F(builtins.float, CUSTOM(lambda rng: np.float64(rng.standard_normal()), "f64")),
    F(builtins.list, [R(3), S()]),
    F(builtins.list, (S(), R(2))),
    F(builtins.list, R(3, 2)),
    F(builtins.tuple, [S(), S()]),
    F(builtins.tuple, R(4)),
)

# ---------------------------------------------------------------------------
# math

X = S(-2, 2)
UNIT = S(-0.9, 0.9)
add(
    F(math.sin, X), F(math.cos, X), F(math.tan, S(-1.2, 1.2)),
    F(math.asin, UNIT), F(math.acos, UNIT), F(math.atan, X),
    F(math.atan2, X, X), F(math.atan2, S(0.5, 2), S(-2, -0.5)),
    F(math.sinh, X), F(math.cosh, X), F(math.tanh, X),
    F(math.asinh, X), F(math.acosh, S(1.2, 3)), F(math.atanh, UNIT),
    F(math.exp, X), F(math.exp2, X), F(math.expm1, X),
    F(math.log, PS()), F(math.log, PS(), S(1.5, 4)), F(math.log, PS(), 10),
    F(math.log1p, S(-0.5, 2)), F(math.log2, PS()), F(math.log10, PS()),
    F(math.sqrt, PS()), F(math.cbrt, S(0.5, 2)), F(math.cbrt, S(-2, -0.5)),
    F(math.hypot, X, X), F(math.hypot, X, X, X), F(math.hypot, X),
    F(math.fabs, S(0.5, 2)), F(math.fabs, S(-2, -0.5)),
    F(math.copysign, X, S(0.5, 1)), F(math.copysign, X, S(-1, -0.5)),
    F(math.erf, X), F(math.erfc, X),
    F(math.degrees, X), F(math.radians, X),
    F(math.ldexp, X, 3), F(math.ldexp, X, -2),
)

# ---------------------------------------------------------------------------
# numpy elementwise

UNARY = [
    (np.square, R), (np.sqrt, P), (np.cbrt, NZ), (np.reciprocal, NZ), (np.exp, R), (np.exp2, R),
    (np.expm1, R), (np.log, P), (np.log2, P), (np.log10, P), (np.log1p, P), (np.sin, R),
    (np.cos, R), (np.tan, lambda *s: R(*s, lo=-1.2, hi=1.2)),
    (np.arcsin, lambda *s: R(*s, lo=-0.9, hi=0.9)), (np.arccos, lambda *s: R(*s, lo=-0.9, hi=0.9)),
    (np.arctan, R), (np.sinh, R), (np.cosh, R), (np.tanh, R), (np.arcsinh, R),
    (np.arccosh, lambda *s: R(*s, lo=1.2, hi=3.0)), (np.arctanh, lambda *s: R(*s, lo=-0.9, hi=0.9)),
    (np.sinc, R), (np.deg2rad, R), (np.radians, R), (np.rad2deg, R), (np.degrees, R),
    (np.conjugate, R),
]
for fn, gen in UNARY:
    add(F(fn, gen(3, 4)), F(fn, gen(5)))
add(F(np.sin, S()), F(np.exp, S()), F(np.sqrt, PS()), F(np.sinc, CUSTOM(lambda rng: np.array([0.0, 0.3, -1.7]), "with0")))

BINARY = [np.arctan2, np.hypot, np.logaddexp, np.logaddexp2, np.maximum, np.minimum, np.fmax, np.fmin]
for fn in BINARY:
    add(F(fn, R(3, 4), R(3, 4)), F(fn, R(3, 1), R(1, 4)), F(fn, R(3, 4), R(4)), F(fn, S(), S()),
        F(fn, R(3), S()))
add(F(np.fmax, R(3), CUSTOM(lambda rng: np.array([np.nan, 0.3, np.nan]), "nan")),
    F(np.fmin, R(3), CUSTOM(lambda rng: np.array([0.1, np.nan, -4.0]), "nan")))

add(
    F(np.clip, R(3, 4), -0.5, 0.5),
    F(np.clip, R(3, 4), S(-0.6, -0.4), S(0.4, 0.6)),
    F(np.clip, R(3, 4), R(3, 1, lo=-1, hi=-0.2), R(1, 4, lo=0.2, hi=1)),
    F(np.clip, R(3, 4), None, S(0.2, 0.4)),
    F(np.clip, R(3, 4), S(-0.4, -0.2), None),
    F(np.clip, R(3, 4), min=S(-0.6, -0.4), max=S(0.4, 0.6)),
    F(np.clip, R(3, 4), max=S(0.4, 0.6)),
    M(nd, "clip", R(3, 4), S(-0.6, -0.4), S(0.4, 0.6)),
    M(nd, "clip", R(3, 4), max=0.5),
    M(nd, "clip", R(3, 4), min=R(4, lo=-1, hi=-0.2)),
    F(np.where, B(3, 4), R(3, 4), R(3, 4)),
    F(np.where, B(3, 1), R(3, 4), S()),
    F(np.where, B(4), R(3, 1), R(4)),
)

# ---------------------------------------------------------------------------
# reductions

AXES_2D = [None, 0, 1, -1, (0, 1), (-2,)]
AXES_3D = [None, 1, -1, (0, 2), (-1, -3)]
for fn in (np.sum, np.mean):
    for axis in AXES_2D:
        add(F(fn, R(3, 4), axis=axis), F(fn, R(3, 4), axis=axis, keepdims=True))
    for axis in AXES_3D:
        add(F(fn, R(2, 3, 4), axis=axis))
    add(F(fn, R(5)), F(fn, [S(), S(), S()]), F(fn, R(3, 4), axis=1, where=B(3, 4)),
        F(fn, R(3, 4), axis=(0, 1), keepdims=True, where=B(1, 4)))
add(F(np.sum, R(3, 4), 0, None, None, True), F(np.sum, R(3, 4), initial=S()))
for name in ("sum", "mean"):
    for axis in (None, 0, -1, (0, 2)):
        add(M(nd, name, R(2, 3, 4), axis=axis), M(nd, name, R(2, 3, 4), axis=axis, keepdims=True))
    add(M(nd, name, R(3, 4), 1), M(nd, name, R(3, 4), axis=0, where=B(3, 4)))

for fn in (np.prod,):
    for axis in (None, 0, -1, (0, 1)):
        add(F(fn, NZ(3, 4), axis=axis), F(fn, NZ(3, 4), axis=axis, keepdims=True))
    add(F(fn, NZ(2, 3, 4), axis=(0, 2)), F(fn, WITH_ZEROS((3, 4), [5])),
        F(fn, WITH_ZEROS((3, 4), [5]), axis=1), F(fn, WITH_ZEROS((3, 4), [5, 7]), axis=0),
        F(fn, WITH_ZEROS((3, 4), [1, 2]), axis=1, keepdims=True),
        F(fn, WITH_ZEROS((2, 3, 4), [0, 13]), axis=(0, 2)), F(fn, [PS(), PS(), S()]),
        F(fn, NZ(3, 4), axis=0, initial=S(0.5, 2)), F(fn, WITH_ZEROS((3, 4), [0]), initial=2.0))
add(M(nd, "prod", NZ(3, 4)), M(nd, "prod", WITH_ZEROS((3, 4), [3]), axis=-1),
    M(nd, "prod", NZ(2, 3), 0, keepdims=True))

for fn in (np.max, np.amax, np.min, np.amin):
    for axis in (None, 0, -1, (0, 2)):
        add(F(fn, R(2, 3, 4), axis=axis), F(fn, R(2, 3, 4), axis=axis, keepdims=True))
    add(F(fn, [S(), S(), S()]), F(fn, R(3, 4), axis=1, initial=-0.5 if fn in (np.max, np.amax) else 0.5))
for name in ("max", "min"):
    add(M(nd, name, R(3, 4)), M(nd, name, R(3, 4), 1), M(nd, name, R(2, 3, 4), axis=(0, 1), keepdims=True),
        M(nd, name, R(3, 4), axis=0, initial=0.0))

for fn in (np.var, np.std):
    for axis in (None, 0, -1, (0, 2)):
        add(F(fn, R(2, 3, 4), axis=axis), F(fn, R(2, 3, 4), axis=axis, keepdims=True, ddof=1))
    add(F(fn, R(5), ddof=2), F(fn, [S(), S(), S()]), F(fn, R(3, 4), axis=1, correction=1))
for name in ("var", "std"):
    add(M(nd, name, R(3, 4)), M(nd, name, R(3, 4), 0), M(nd, name, R(2, 3, 4), axis=(0, 2), ddof=1),
        M(nd, name, R(3, 4), axis=-1, keepdims=True))

for axis in (None, 0, 1, -1):
    add(F(np.cumsum, R(3, 4), axis=axis), M(nd, "cumsum", R(3, 4), axis=axis))
add(F(np.cumsum, R(5)), F(np.cumsum, R(2, 3, 4), 1))

# ---------------------------------------------------------------------------
# indexing

G = operator.getitem
add(
    F(G, R(5, 4), 2),
    F(G, R(5, 4), -1),
    F(G, R(5, 4), (2, 3)),
    F(G, R(5, 4), slice(1, 4)),
    F(G, R(5, 4), slice(None, None, -1)),
    F(G, R(5, 4), (slice(None, None, -2), slice(3, 0, -1))),
    F(G, R(5, 4), (Ellipsis, 1)),
    F(G, R(5, 4), (None, slice(None), None, 2)),
    F(G, R(6), np.array([0, 2, 2, 5, -1, 2])),
    F(G, R(6), [1, 1, 3]),
    F(G, R(6), np.array([[0, 1], [1, 1]])),
    F(G, R(5, 4), np.array([0, 3, 0])),
    F(G, R(5, 4), (np.array([0, 4, 0]), np.array([1, 2, 1]))),
    F(G, R(5, 4), (slice(1, 3), np.array([3, 3, 0]))),
    F(G, R(5, 4), (Ellipsis, [2, 2])),
    F(G, R(5, 4), B(5, 4)),
    F(G, R(5, 4), B(5)),
    F(G, R(5, 4), (B(5), slice(None, 2))),
    F(G, [R(3), S(), R(2, 2)], 0),
    F(G, [R(3), S(), R(2, 2)], -2),
    F(G, [S(), S(), S(), S()], slice(1, 3)),
    F(G, [S(), S(), S(), S()], slice(None, None, -2)),
    F(G, (R(3), S()), 1),
    F(G, (S(), S(), S()), slice(0, 2)),
    F(G, {"w": R(3), "b": S()}, "w"),
    F(G, {"w": R(3), "b": S()}, "b"),
    F(np.take, R(6), np.array([0, 2, 2, 5])),
    F(np.take, R(3, 4), np.array([[0, 3], [3, 3]]), axis=1),
    F(np.take, R(3, 4), [0, 0, 2], axis=0),
    F(np.take, R(3, 4), np.array([5, 13, -1]), mode="wrap"),
    F(np.take, R(3, 4), np.array([-3, 1, 9]), axis=1, mode="clip"),
    M(nd, "take", R(3, 4), np.array([1, 1, 0]), axis=0),
    M(nd, "item", R(1)),
    M(nd, "item", R(3, 4), 5),
    M(nd, "item", R(3, 4), 1, 2),
    M(nd, "item", R(3, 4), (2, 0)),
    M(nd, "tolist", R(3, 2)),
    M(nd, "tolist", R(4)),
    M(nd, "tolist", R(3, 2), g=lambda y, rng: [None, [1.0, -2.0], None], note="partial g"),
)

# ---------------------------------------------------------------------------
# reshaping, axes, joining

add(
    F(np.reshape, R(3, 4), (4, 3)),
    F(np.reshape, R(3, 4), (2, -1)),
    F(np.reshape, R(3, 4), (12,), order="F"),
    F(np.reshape, R(1, 1), ()),
    M(nd, "reshape", R(3, 4), 2, 6),
    M(nd, "reshape", R(3, 4), (6, 2)),
    M(nd, "reshape", R(3, 4), [4, 3], order="F"),
    M(nd, "reshape", R(3, 4), -1),
    F(np.ravel, R(3, 4)), F(np.ravel, R(2, 3, 4), order="F"),
    M(nd, "ravel", R(3, 4)), M(nd, "flatten", R(3, 4)), M(nd, "flatten", R(3, 4), "F"),
    F(np.squeeze, R(3, 1, 4)), F(np.squeeze, R(1, 3, 1), axis=0), F(np.squeeze, R(1, 1)),
    M(nd, "squeeze", R(3, 1, 1)), M(nd, "squeeze", R(1, 3, 1), axis=-1),
    F(np.expand_dims, R(3, 4), 0), F(np.expand_dims, R(3, 4), -1), F(np.expand_dims, R(3, 4), (0, 2)),
    F(np.atleast_1d, R(3)), F(np.atleast_2d, R(3)), F(np.atleast_3d, R(3, 2)),
    F(np.atleast_2d, R(3), R(2, 2)),
    F(np.broadcast_to, R(3, 1), (2, 3, 4)), F(np.broadcast_to, R(4), (3, 4)),
    F(np.broadcast_to, S(), (2, 2)),
    F(np.transpose, R(3, 4)), F(np.transpose, R(2, 3, 4), (1, 2, 0)),
    F(np.transpose, R(2, 3, 4), (-1, 0, 1)), F(np.transpose, R(2, 3, 4), axes=[2, 0, 1]),
    M(nd, "transpose", R(2, 3, 4)), M(nd, "transpose", R(2, 3, 4), 2, 0, 1),
    M(nd, "transpose", R(2, 3, 4), (1, 2, 0)), M(nd, "transpose", R(2, 3, 4), [0, -1, 1]),
    M(nd, "transpose", R(2, 3), None),
    A(nd, "T", R(3, 4)), A(nd, "T", R(2, 3, 4)), A(nd, "mT", R(2, 3, 4)), A(nd, "real", R(3)),
    F(np.swapaxes, R(2, 3, 4), 0, 2), F(np.swapaxes, R(2, 3, 4), -1, 1),
    M(nd, "swapaxes", R(2, 3, 4), 1, -1),
    F(np.moveaxis, R(2, 3, 4), 0, -1), F(np.moveaxis, R(2, 3, 4), (0, 1), (2, 0)),
    F(np.flip, R(3, 4)), F(np.flip, R(3, 4), 0), F(np.flip, R(2, 3, 4), axis=(0, -1)),
    F(np.roll, R(5), 2), F(np.roll, R(3, 4), -1, axis=1), F(np.roll, R(3, 4), (1, 2), axis=(0, 1)),
    F(np.roll, R(3, 4), 5),
    F(np.concatenate, [R(2, 3), R(4, 3)]),
    F(np.concatenate, (R(3, 2), R(3, 1), R(3, 4)), axis=1),
    F(np.concatenate, [R(2, 3), R(2, 2)], axis=-1),
    F(np.concatenate, [R(2, 3), R(4)], axis=None),
    F(np.stack, [R(3), R(3)]),
    F(np.stack, (R(2, 3), R(2, 3), R(2, 3)), axis=1),
    F(np.stack, [R(2, 3), R(2, 3)], axis=-1),
    F(np.stack, [S(), S(), S()]),
    F(np.hstack, [R(3), R(2)]), F(np.hstack, (R(2, 3), R(2, 1))), F(np.hstack, [S(), R(2)]),
    F(np.vstack, [R(3), R(3)]), F(np.vstack, (R(2, 3), R(1, 3), R(3))),
    F(np.split, R(6, 2), 3), F(np.split, R(3, 5), [1, 3], axis=1),
    F(np.split, R(6), 2, g=lambda y, rng: [None, np.ones(3)], note="partial g"),
    F(np.array_split, R(7), 3),
    F(np.tile, R(3), 2), F(np.tile, R(2, 3), (2, 1)), F(np.tile, R(3), (2, 2)),
    F(np.tile, R(2, 1, 3), (3, 1, 1, 2)),
    F(np.repeat, R(3), 2), F(np.repeat, R(2, 3), 2, axis=1), F(np.repeat, R(2, 3), [1, 0, 3], axis=-1),
    F(np.repeat, R(2, 3), 3), F(np.repeat, R(2, 3), [2], axis=0),
    M(nd, "repeat", R(4), [2, 1, 0, 1]), M(nd, "repeat", R(2, 2), 2, axis=0),
    F(np.pad, R(3, 4), 1), F(np.pad, R(3, 4), ((1, 0), (2, 3))), F(np.pad, R(5), (0, 2), constant_values=1.0),
)

# ---------------------------------------------------------------------------
# triangles, diagonals, sorting

add(
    F(np.triu, R(4, 4)), F(np.triu, R(3, 5), 1), F(np.tril, R(4, 4)), F(np.tril, R(2, 4, 3), -1),
    F(np.diagonal, R(4, 4)), F(np.diagonal, R(3, 5), 1), F(np.diagonal, R(5, 3), -2),
    F(np.diagonal, R(2, 3, 4), 0, 1, 2), F(np.diagonal, R(3, 2, 4), 1, 0, 2), F(np.diagonal, R(3, 4), 0, 1, 0),
    M(nd, "diagonal", R(4, 4), 1), M(nd, "diagonal", R(2, 3, 3), axis1=-2, axis2=-1),
    F(np.trace, R(4, 4)), F(np.trace, R(3, 5), -1), F(np.trace, R(2, 3, 3), 0, 1, 2),
    M(nd, "trace", R(3, 3)), M(nd, "trace", R(3, 4), 1),
    F(np.diag, R(3)), F(np.diag, R(3), 1), F(np.diag, R(3), -2), F(np.diag, R(4, 4)),
    F(np.diag, R(3, 5), 2), F(np.diag, R(4, 3), -1),
    F(np.sort, R(6)), F(np.sort, R(3, 4), axis=0), F(np.sort, R(3, 4)), F(np.sort, R(3, 4), axis=None),
)

# ---------------------------------------------------------------------------
# construction, casts, copies

add(
    F(np.array, [S(), S(), S()]),
    F(np.array, [[S(), S()], [S(), S()]]),
    F(np.array, [R(3), R(3)]),
    F(np.array, ([S(), S()], (S(), S()))),
    F(np.array, R(3, 4)),
    F(np.array, R(3), ndmin=2),
    F(np.array, [S(), S()], ndmin=3),
    F(np.array, R(3), dtype=np.float64),
    F(np.array, [S(), 2, S()]),
    F(np.asarray, [S(), S()]), F(np.asarray, R(3, 2)), F(np.asarray, [R(2), R(2)], dtype=float),
    F(np.asanyarray, R(3)), F(np.asanyarray, [S(), S()]),
    F(np.ascontiguousarray, R(3, 4)), F(np.ascontiguousarray, [S(), S()]),
    M(nd, "astype", R(3, 4), np.float64), M(nd, "astype", R(3), "f8"),
    M(nd, "astype", R(3, 2), np.longdouble),
    F(np.copy, R(3, 4)), M(nd, "copy", R(3, 4)),
    F(np.linspace, S(), S(), 5), F(np.linspace, S(), S(), 4, endpoint=False),
    F(np.linspace, R(3), R(3), 4), F(np.linspace, R(2, 1), S(), 3, axis=-1),
    F(np.linspace, S(), S(), 6, retstep=True),
    F(np.linspace, S(), S(), 1),
    F(np.full, (2, 3), S()), F(np.full, (2, 3), R(3)), F(np.full_like, R(2, 3), S()),
    F(np.full_like, R(3, 2), R(2)),
)

# ---------------------------------------------------------------------------
# products

for fn in (operator.matmul, np.matmul, np.linalg.matmul):
    add(F(fn, R(3, 4), R(4, 5)), F(fn, R(4), R(4, 5)), F(fn, R(3, 4), R(4)), F(fn, R(4), R(4)),
        F(fn, R(2, 3, 4), R(4, 5)), F(fn, R(2, 3, 4), R(2, 4, 5)), F(fn, R(2, 1, 3, 4), R(5, 4, 2)),
        F(fn, R(4), R(2, 4, 5)), F(fn, R(2, 3, 4), R(4)))
add(
    F(np.dot, R(3, 4), R(4, 5)), F(np.dot, R(4), R(4)), F(np.dot, R(4), R(4, 5)), F(np.dot, R(3, 4), R(4)),
    F(np.dot, S(), R(3, 4)), F(np.dot, R(2, 3), S()), F(np.dot, S(), S()),
    F(np.dot, R(2, 3, 4), R(4)), F(np.dot, R(2, 3, 4), R(5, 4, 2)), F(np.dot, R(4), R(2, 4, 3)),
    F(np.dot, R(3, 4), R(2, 4, 3)),
    M(nd, "dot", R(3, 4), R(4, 5)), M(nd, "dot", R(4), R(4)), M(nd, "dot", R(2, 3, 4), R(4, 2)),
    F(np.outer, R(3), R(4)), F(np.outer, R(2, 2), R(3)), F(np.linalg.outer, R(3), R(2)),
    F(np.inner, R(4), R(4)), F(np.inner, R(3, 4), R(4)), F(np.inner, R(2, 4), R(3, 2, 4)),
    F(np.inner, S(), R(3)), F(np.inner, R(4), R(2, 4)),
    F(np.vdot, R(4), R(4)), F(np.vdot, R(2, 3), R(3, 2)),
    F(np.tensordot, R(2, 3, 4), R(3, 4, 5)), F(np.tensordot, R(3, 4), R(4, 5), 1),
    F(np.tensordot, R(3, 4), R(4, 3), ([1, 0], [0, 1])), F(np.tensordot, R(2, 3, 4), R(4, 2), ([2, 0], [0, 1])),
    F(np.tensordot, R(3, 4), R(5, 3), axes=(0, 1)), F(np.tensordot, R(3), R(4), 0),
    F(np.tensordot, R(2, 3, 4), R(4, 3, 2), axes=([-1, 1], [0, -2])),
)
if getattr(np, "vecdot", None) is not None:
    add(F(np.vecdot, R(3, 4), R(3, 4)), F(np.vecdot, R(3, 4), R(4)), F(np.vecdot, R(3, 4), R(3, 4), axis=0))
if getattr(np.linalg, "vecdot", None) is not None:
    add(F(np.linalg.vecdot, R(2, 3), R(2, 3)))

EINSUM = [
    ("ij,jk->ik", R(3, 4), R(4, 5)),
    ("ij,jk", R(3, 4), R(4, 5)),
    ("ii->", R(3, 3)),
    ("ii", R(3, 3)),
    ("ii->i", R(3, 3)),
    ("i,i", R(4), R(4)),
    ("i,j->ij", R(3), R(2)),
    ("ij->", R(3, 4)),
    ("ij->ji", R(3, 4)),
    ("ijk,k->ij", R(2, 3, 4), R(4)),
    ("ij,ij->i", R(3, 4), R(3, 4)),
    ("bij,bjk->bik", R(2, 3, 4), R(2, 4, 5)),
    ("ij,jk,kl->il", R(2, 3), R(3, 4), R(4, 2)),
    ("ij,k->i", R(3, 4), R(5)),
    ("...ij,...jk->...ik", R(2, 3, 4), R(2, 4, 5)),
    ("...ij,...jk->...ik", R(2, 3, 4), R(4, 5)),
    ("...ij,...jk->...ik", R(2, 1, 3, 4), R(5, 4, 2)),
    ("...i,...i", R(2, 3), R(3)),
    ("i...->...", R(3, 2, 2)),
    ("iij->j", R(3, 3, 2)),
    ("Ab,bC->AC", R(2, 3), R(3, 4)),
    ("Ab,bC", R(2, 3), R(3, 4)),
    ("ba", R(2, 3)),
    ("...ii->...i", R(2, 3, 3)),
    ("i,i,i->", R(3), R(3), R(3)),
    ("ij,ij,j", R(2, 3), R(2, 3), R(3)),
]
for subs, *ops in EINSUM:
    add(F(np.einsum, subs, *ops))
add(F(np.einsum, "ij,jk->ik", R(3, 4), R(4, 2), optimize=True))

# ---------------------------------------------------------------------------
# np.linalg

add(
    F(np.linalg.inv, WC(3)), F(np.linalg.inv, WC(2, 4)),
    F(np.linalg.det, WC(3)), F(np.linalg.det, WC(3, 2)),
    F(np.linalg.slogdet, WC(3), g=lambda y, rng: (None, float(rng.standard_normal()))),
    F(np.linalg.slogdet, WC(2, 3), g=lambda y, rng: (None, rng.standard_normal(3))),
    F(np.linalg.slogdet, WC(3), g=lambda y, rng: (1.0, None), note="sign only"),
    F(np.linalg.solve, WC(3), R(3)), F(np.linalg.solve, WC(3), R(3, 2)),
    F(np.linalg.solve, WC(3, 2), R(2, 3, 4)), F(np.linalg.solve, WC(3, 2), R(3, 4)),
    F(np.linalg.solve, WC(3, 2), R(3)),
    F(np.linalg.norm, R(5)), F(np.linalg.norm, R(3, 4)), F(np.linalg.norm, R(2, 3, 4)),
    F(np.linalg.norm, R(3, 4), axis=1), F(np.linalg.norm, R(3, 4), axis=-2, keepdims=True),
    F(np.linalg.norm, R(3, 4), keepdims=True), F(np.linalg.norm, R(2, 3, 4), axis=(1, 2)),
    F(np.linalg.norm, NZ(5), 1), F(np.linalg.norm, R(5), 3), F(np.linalg.norm, R(5), 2),
    F(np.linalg.norm, R(5), np.inf), F(np.linalg.norm, R(5), -np.inf), F(np.linalg.norm, R(5), 0.5),
    F(np.linalg.norm, R(3, 4), 1, axis=1), F(np.linalg.norm, R(3, 4), "fro"),
    F(np.linalg.norm, R(3, 4), "nuc"), F(np.linalg.norm, R(3, 4), 2), F(np.linalg.norm, R(3, 4), -2),
    F(np.linalg.norm, R(2, 3, 4), "nuc", axis=(2, 1)), F(np.linalg.norm, R(3, 4), 2, keepdims=True),
)
