"""The table of numeric checks: at least one spec per registered rule.

Every rule in `registry.all_rules()` must appear here (test_registry checks it),
so a new rule comes with its spec.  Shapes cover broadcasting pairs, axes
(negative, tuple, None) and keepdims; generators respect each function's domain
and keep piecewise functions away from their kinks.
"""

from __future__ import annotations

import builtins
import copy
import dataclasses
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

from zygote_py.runtime import containers as forms
from zygote_py.runtime import iterators as it

nd = np.ndarray
SPECS = []


class Newer:
    """A module's functions that only newer Python or NumPy versions have: None where absent.
    `add` drops a spec of an absent function, as the registry registers a rule only where its
    function exists (so one table serves every supported version)."""

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        return getattr(self._module, name, None)


newer_math, newer_np, newer_linalg = Newer(math), Newer(np), Newer(np.linalg)


def add(*specs):
    SPECS.extend(spec for spec in specs if spec.target is not None)


NUMPY_2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"


def numpy2(spec):
    """A spec that needs what NumPy 2.0 brought (an argument such as var's `correction=`, an
    attribute such as `ndarray.mT`, or NumPy 2's reading of solve's right-hand side): `add`
    drops it on NumPy 1.x, where NumPy itself refuses the call (test_versions checks that)."""
    return spec if NUMPY_2 else dataclasses.replace(spec, target=None)


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
# iterators as values (runtime/iterators.py) and sorted

add(
    F(it.zip_items, [S(), S()], (S(), R(2))),
    F(it.zip_items, R(3, 2), [S(), S(), S()]),
    F(it.zip_items, [S(), S(), S()], [S()], note="shortest wins"),
    F(it.enumerate_items, [S(), R(2)]),
    F(it.enumerate_items, R(3), start=1),
    F(it.reversed_items, [S(), R(2), S()]),
    F(it.reversed_items, R(3)),
    F(it.chain_items, [S(), S()], (R(2),)),
    F(it.product_items, [S(), S()], [S(), S(), S()]),
    F(it.product_items, [S(), S()], repeat=2),
    F(it.accumulate_items, [S(), S(), S()]),
    F(it.accumulate_items, [R(2), R(2)], initial=R(2)),
    F(it.iter_items, [S(), R(2)]),
    F(it.next_item, CUSTOM(lambda rng: it.iter_items([]), "empty"), S(),
      g=lambda y, rng: (0.7, None), note="default"),
    F(it.for_pass, [S(), R(2)]),
    F(it.list_of_items, [S(), R(2)]),
    F(it.list_of_items, [S(), R(2)], builtins.filter),
    F(it.end_ahead, [S(), R(2)], 0),
    F(builtins.sorted, [S(), S(), S()]),
    F(builtins.sorted, (S(), S(), S()), key=abs, reverse=True),
    F(builtins.sorted, R(4)),
)

# ---------------------------------------------------------------------------
# functional forms of list and dict updates (runtime/containers.py), dict()

add(
    F(forms.list_insert, [S(), R(2)], 1, S()),
    F(forms.list_insert, [S()], -5, S()),
    F(forms.list_insert, [S(), S()], 10, R(2)),
    F(forms.list_reverse, [S(), R(2), S()]),
    F(forms.list_pop, [S(), R(2), S()]),
    F(forms.list_pop, [S(), R(2), S()], 0),
    F(forms.list_pop, [S(), R(2), S()], -2),
    F(forms.list_remove, [S(), 2, S(), 2], 2),
    F(forms.list_sort, [S(), S(), S()]),
    F(forms.list_sort, [S(), S(), S()], key=abs, reverse=True),
    F(forms.list_clear, [S(), S()]),
    F(forms.list_setitem, [S(), S(), S()], 1, R(2)),
    F(forms.list_setitem, [S(), S(), S()], -1, S()),
    F(forms.list_setitem, [S(), S(), S()], slice(0, 2), [S()], note="shrinks"),
    F(forms.list_setitem, [S(), S(), S(), S()], slice(None, None, 2), (S(), S())),
    F(forms.list_setitem, [S(), S()], slice(1, 1), R(2, 2), note="array rows"),
    F(forms.list_delitem, [S(), S(), S()], 1),
    F(forms.list_delitem, [S(), S(), S()], slice(0, 2)),
    F(builtins.dict, {"a": S(), "b": R(2)}),
    F(builtins.dict, [("a", S()), ("b", S()), ("a", S())], note="last wins"),
    F(forms.dict_update, {"a": S(), "b": S()}, {"b": S(), "c": R(2)}),
    F(forms.dict_update, {"a": S()}, [("a", S()), ("d", S())]),
    F(forms.dict_setdefault, {"a": S()}, "a", S()),
    F(forms.dict_setdefault, {"a": S()}, "b", S()),
    F(forms.dict_pop, {"a": S(), "b": S()}, "a"),
    F(forms.dict_pop, {"a": S()}, "z", S()),
    F(forms.dict_delitem, {"a": S(), "b": R(2)}, "a"),
    F(forms.dict_clear, {"a": S()}),
    F(copy.copy, [S(), R(2)]), F(copy.copy, R(3)), F(copy.copy, {"a": R(2), "b": S()}),
    F(copy.deepcopy, [S(), (R(2), {"k": R(3)})]), F(copy.deepcopy, R(2, 2)),
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
    F(math.exp, X), F(newer_math.exp2, X), F(math.expm1, X),
    F(math.log, PS()), F(math.log, PS(), S(1.5, 4)), F(math.log, PS(), 10),
    F(math.log1p, S(-0.5, 2)), F(math.log2, PS()), F(math.log10, PS()),
    F(math.sqrt, PS()), F(newer_math.cbrt, S(0.5, 2)), F(newer_math.cbrt, S(-2, -0.5)),
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
    M(nd, "clip", R(3, 4), S(-0.6, -0.4), S(0.4, 0.6)),
    M(nd, "clip", R(3, 4), max=0.5),
    M(nd, "clip", R(3, 4), min=R(4, lo=-1, hi=-0.2)),
    F(np.where, B(3, 4), R(3, 4), R(3, 4)),
    F(np.where, B(3, 1), R(3, 4), S()),
    F(np.where, B(4), R(3, 1), R(4)),
)
if newer_np.unstack is not None:  # clip's min= and max= keywords are new in NumPy 2.1
    add(F(np.clip, R(3, 4), min=S(-0.6, -0.4), max=S(0.4, 0.6)), F(np.clip, R(3, 4), max=S(0.4, 0.6)))

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
    add(F(fn, R(5), ddof=2), F(fn, [S(), S(), S()]), numpy2(F(fn, R(3, 4), axis=1, correction=1)))
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
    A(nd, "T", R(3, 4)), A(nd, "T", R(2, 3, 4)), numpy2(A(nd, "mT", R(2, 3, 4))), A(nd, "real", R(3)),
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
    F(np.pad, R(4), (2, 3), mode="edge"), F(np.pad, R(3, 4), ((1, 2), (3, 1)), mode="reflect"),
    F(np.pad, R(3, 4), 2, mode="symmetric"), F(np.pad, R(4), (5, 6), mode="wrap"),
    F(np.pad, R(2, 3), ((0, 1), (2, 0)), "edge"),
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
    F(np.fft.fftfreq, 6, PS()), F(np.fft.rfftfreq, 7, PS()),
    F(np.arange, S(), 4.0, 0.7), F(np.arange, 0.3, 3.0, PS()), F(np.arange, S(), 4.5),
    F(np.unique, R(6)), F(np.unique, R(2, 3), return_counts=True),
    F(np.unique, R(5), return_index=True, return_inverse=True),
)

# ---------------------------------------------------------------------------
# products

for fn in (operator.matmul, np.matmul, newer_linalg.matmul):
    add(F(fn, R(3, 4), R(4, 5)), F(fn, R(4), R(4, 5)), F(fn, R(3, 4), R(4)), F(fn, R(4), R(4)),
        F(fn, R(2, 3, 4), R(4, 5)), F(fn, R(2, 3, 4), R(2, 4, 5)), F(fn, R(2, 1, 3, 4), R(5, 4, 2)),
        F(fn, R(4), R(2, 4, 5)), F(fn, R(2, 3, 4), R(4)))
add(
    F(np.dot, R(3, 4), R(4, 5)), F(np.dot, R(4), R(4)), F(np.dot, R(4), R(4, 5)), F(np.dot, R(3, 4), R(4)),
    F(np.dot, S(), R(3, 4)), F(np.dot, R(2, 3), S()), F(np.dot, S(), S()),
    F(np.dot, R(2, 3, 4), R(4)), F(np.dot, R(2, 3, 4), R(5, 4, 2)), F(np.dot, R(4), R(2, 4, 3)),
    F(np.dot, R(3, 4), R(2, 4, 3)),
    M(nd, "dot", R(3, 4), R(4, 5)), M(nd, "dot", R(4), R(4)), M(nd, "dot", R(2, 3, 4), R(4, 2)),
    F(np.outer, R(3), R(4)), F(np.outer, R(2, 2), R(3)), F(newer_linalg.outer, R(3), R(2)),
    F(np.inner, R(4), R(4)), F(np.inner, R(3, 4), R(4)), F(np.inner, R(2, 4), R(3, 2, 4)),
    F(np.inner, S(), R(3)), F(np.inner, R(4), R(2, 4)),
    F(np.vdot, R(4), R(4)), F(np.vdot, R(2, 3), R(3, 2)),
    F(np.tensordot, R(2, 3, 4), R(3, 4, 5)), F(np.tensordot, R(3, 4), R(4, 5), 1),
    F(np.tensordot, R(3, 4), R(4, 3), ([1, 0], [0, 1])), F(np.tensordot, R(2, 3, 4), R(4, 2), ([2, 0], [0, 1])),
    F(np.tensordot, R(3, 4), R(5, 3), axes=(0, 1)), F(np.tensordot, R(3), R(4), 0),
    F(np.tensordot, R(2, 3, 4), R(4, 3, 2), axes=([-1, 1], [0, -2])),
)
if newer_np.vecdot is not None:
    add(F(np.vecdot, R(3, 4), R(3, 4)), F(np.vecdot, R(3, 4), R(4)), F(np.vecdot, R(3, 4), R(3, 4), axis=0))
    add(F(newer_linalg.vecdot, R(2, 3), R(2, 3)))

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
    F(np.linalg.solve, WC(3, 2), R(2, 3, 4)), numpy2(F(np.linalg.solve, WC(3, 2), R(3, 4))),
    numpy2(F(np.linalg.solve, WC(3, 2), R(3))),
    # one b of (3, 3) and a of (3, 3, 3): stacked vectors on NumPy 1.x, a broadcast matrix on 2
    F(np.linalg.solve, WC(3, 3), R(3, 3)),
    F(np.linalg.norm, R(5)), F(np.linalg.norm, R(3, 4)), F(np.linalg.norm, R(2, 3, 4)),
    F(np.linalg.norm, R(3, 4), axis=1), F(np.linalg.norm, R(3, 4), axis=-2, keepdims=True),
    F(np.linalg.norm, R(3, 4), keepdims=True), F(np.linalg.norm, R(2, 3, 4), axis=(1, 2)),
    F(np.linalg.norm, NZ(5), 1), F(np.linalg.norm, R(5), 3), F(np.linalg.norm, R(5), 2),
    F(np.linalg.norm, R(5), np.inf), F(np.linalg.norm, R(5), -np.inf), F(np.linalg.norm, R(5), 0.5),
    F(np.linalg.norm, R(3, 4), 1, axis=1), F(np.linalg.norm, R(3, 4), "fro"),
    F(np.linalg.norm, R(3, 4), "nuc"), F(np.linalg.norm, R(3, 4), 2), F(np.linalg.norm, R(3, 4), -2),
    F(np.linalg.norm, R(2, 3, 4), "nuc", axis=(2, 1)), F(np.linalg.norm, R(3, 4), 2, keepdims=True),
)

# ---------------------------------------------------------------------------
# more elementwise: copysign, ldexp, divmod, modf, nan_to_num, real, conj methods


def _with_nonfinite(rng):
    x = rng.standard_normal((3, 4))
    x[0, 1], x[1, 2], x[2, 3] = np.nan, np.inf, -np.inf
    return x


add(
    F(np.copysign, NZ(3, 4), R(3, 4)), F(np.copysign, NZ(3, 1), NZ(4)), F(np.copysign, S(0.5, 2), -1.0),
    F(np.ldexp, R(3, 4), 3), F(np.ldexp, R(3, 1), np.array([0, -1, 2, 5])), F(np.ldexp, S(), -2),
    F(np.divmod, R(3, 4), P(3, 4), g=lambda y, rng: (None, rng.standard_normal(y[1].shape))),
    F(np.divmod, R(3, 1), P(4), g=lambda y, rng: (rng.standard_normal(y[0].shape), rng.standard_normal(y[1].shape))),
    F(np.divmod, R(3), S(0.5, 2), g=lambda y, rng: (None, None), note="quotient only"),
    F(divmod, S(0.5, 2), S(0.3, 0.4), g=lambda y, rng: (None, float(rng.standard_normal()))),
    F(np.heaviside, CUSTOM(lambda rng: np.array([-1.0, 0.0, 2.0, 0.0]), "zeros"), R(4)),
    F(np.heaviside, CUSTOM(lambda rng: np.array([[0.0], [1.5]]), "zeros"), S()),
    F(np.bincount, np.array([0, 1, 1, 3]), weights=R(4)),
    F(np.bincount, np.array([2, 0, 2]), R(3), minlength=5),
    F(np.modf, R(3, 4, lo=-3, hi=3), g=lambda y, rng: (rng.standard_normal(y[0].shape), None)),
    F(np.nan_to_num, CUSTOM(_with_nonfinite, "nonfinite"), posinf=5.0, neginf=-5.0), F(np.nan_to_num, R(5), nan=1.0),
    F(np.real, R(3, 4)), F(np.real, S()), F(np.real, [S(), S()]),
    M(nd, "conj", R(3, 4)), M(nd, "conjugate", R(5)),
    # of real arrays: constants (complex arguments: tests/rules/test_complex_rules.py)
    F(np.imag, R(3, 4)), F(np.angle, NZ(3, 4)), F(np.angle, NZ(3), deg=True), A(nd, "imag", R(3)),
)

# ---------------------------------------------------------------------------
# more math: gamma functions, dist, prod, sumprod, remainder, modf, frexp

add(
    F(math.gamma, S(0.3, 4)), F(math.gamma, S(-0.9, -0.1)), F(math.gamma, S(12, 15)),
    F(math.lgamma, S(0.3, 4)), F(math.lgamma, S(-2.9, -2.1)), F(math.lgamma, S(20, 30)),
    F(math.dist, (S(), S(), S()), (S(), S(), S())), F(math.dist, [S(), S()], [S(), S()]),
    F(math.prod, [S(), S(), S()]), F(math.prod, (S(), 0.0, S())), F(math.prod, (S(), 0.0, 0.0)),
    F(math.prod, [S(), S()], start=S()), F(math.prod, [S(), S()], start=2),
    F(math.remainder, S(-5, 5), S(0.7, 1.3)), F(math.remainder, S(2.1, 2.4), 1.0),
    F(math.modf, S(-3, 3), g=lambda y, rng: (float(rng.standard_normal()), None)),
    F(math.frexp, S(0.5, 20), g=lambda y, rng: (float(rng.standard_normal()), None)),
)
add(F(newer_math.sumprod, [S(), S(), S()], (S(), S(), S())))

add(F(np.float64, S()), F(np.float64, R(3, 2)), F(np.float64, [S(), S()]), F(np.float64, A0()))

# ---------------------------------------------------------------------------
# ufunc methods: reduce, accumulate, outer (one rule per method, the ufunc is `self`)

uf = np.ufunc
for ufunc in (np.add, np.multiply, np.maximum, np.minimum, np.fmax, np.fmin, np.logaddexp,
              np.logaddexp2, np.hypot):
    for axis in (0, 1, -1, None, (0, 1)):
        add(M(uf, "reduce", ufunc, NZ(3, 4), axis=axis))
    add(M(uf, "reduce", ufunc, NZ(3, 4), axis=1, keepdims=True), M(uf, "reduce", ufunc, NZ(5)),
        M(uf, "reduce", ufunc, [PS(), PS(), S()]), M(uf, "reduce", ufunc, NZ(2, 3, 4), axis=(0, 2)))
add(M(uf, "reduce", np.subtract, NZ(3, 4)), M(uf, "reduce", np.subtract, NZ(3, 4), axis=1),
    M(uf, "reduce", np.subtract, NZ(3, 4), axis=-1, keepdims=True),
    M(uf, "reduce", np.subtract, NZ(4), initial=2.5),
    M(uf, "reduce", np.add, NZ(3, 4), initial=2.5), M(uf, "reduce", np.multiply, NZ(3, 4), initial=2.5),
    M(uf, "reduce", np.multiply, WITH_ZEROS((3, 4), [1, 5]), axis=1),
    M(uf, "reduce", np.maximum, NZ(3, 4), axis=0, initial=-5.0),
    M(uf, "reduce", np.maximum, CUSTOM(lambda rng: np.array([0.5, 0.5, -1.0]), "ties"), note="ties"))
for ufunc in (np.add, np.subtract, np.multiply):
    for axis in (0, 1, -1):
        add(M(uf, "accumulate", ufunc, NZ(3, 4), axis=axis))
    add(M(uf, "accumulate", ufunc, NZ(5)), M(uf, "accumulate", ufunc, [PS(), S(), S()]))
add(M(uf, "accumulate", np.multiply, WITH_ZEROS((6,), [2])))
for ufunc in (np.add, np.subtract, np.multiply, np.divide):
    add(M(uf, "outer", ufunc, NZ(3), NZ(4)), M(uf, "outer", ufunc, NZ(2, 3), NZ(4)),
        M(uf, "outer", ufunc, S(), NZ(3)), M(uf, "outer", ufunc, [PS(), S()], NZ(2, 2)))
# ufunc.at as a value (np.multiply.at / np.divide.at are lowered to it): repeats, zeros,
# a broadcast scalar, a 2-d row index
from zygote_py.rules.ufunc_methods import ufunc_at  # noqa: E402

add(F(ufunc_at, np.multiply, NZ(5), np.array([0, 2, 2, 4, 0, 0]), NZ(6)),
    F(ufunc_at, np.multiply, NZ(4), [1, 1, 1], WITH_ZEROS((3,), [1])),
    F(ufunc_at, np.multiply, NZ(3, 4), ([0, 2, 0], [1, 1, 1]), S()),
    F(ufunc_at, np.multiply, NZ(3, 4), [2, 0, 2], NZ(3, 4)),
    F(ufunc_at, np.divide, NZ(5), [0, 3, 3], P(3)),
    F(ufunc_at, np.divide, NZ(3, 2), [1, 1], P(2)))

# ---------------------------------------------------------------------------
# scans: cumprod (zeros), cumulative_*, nancum*, diff, ediff1d, convolve, correlate,
# interp, trapezoid, polyval


def _nan_at(shape, positions):
    def draw(rng):
        x = rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)
        x.reshape(-1)[list(positions)] = np.nan
        return x
    return CUSTOM(draw, f"NaN{shape}@{list(positions)}")


for axis in (None, 0, 1, -1):
    add(F(np.cumprod, NZ(3, 4), axis=axis), M(nd, "cumprod", NZ(3, 4), axis=axis))
add(
    F(np.cumprod, NZ(5)), F(np.cumprod, NZ(2, 3, 4), 1), F(np.cumprod, [PS(), PS(), S()]),
    F(np.cumprod, WITH_ZEROS((6,), [2])), F(np.cumprod, WITH_ZEROS((6,), [1, 4])),
    F(np.cumprod, WITH_ZEROS((3, 4), [1, 5, 6]), axis=1), F(np.cumprod, WITH_ZEROS((3, 4), [0, 4]), axis=0),
    F(np.cumprod, WITH_ZEROS((3, 4), [11])), M(nd, "cumprod", WITH_ZEROS((2, 5), [2, 3]), axis=-1),
    F(newer_np.cumulative_sum, R(5)), F(newer_np.cumulative_sum, R(3, 4), axis=1),
    F(newer_np.cumulative_sum, R(3, 4), axis=0, include_initial=True),
    F(newer_np.cumulative_prod, NZ(5)),
    F(newer_np.cumulative_prod, NZ(3, 4), axis=-1, include_initial=True),
    F(newer_np.cumulative_prod, WITH_ZEROS((3, 4), [1, 2]), axis=1),
    F(np.nancumsum, _nan_at((3, 4), [1, 6])), F(np.nancumsum, _nan_at((3, 4), [0, 5]), axis=0),
    F(np.nancumprod, _nan_at((3, 4), [2, 9])), F(np.nancumprod, _nan_at((3, 4), [3]), axis=1),
    F(np.diff, R(6)), F(np.diff, R(6), 2), F(np.diff, R(3, 5), axis=0), F(np.diff, R(3, 5), 3, axis=-1),
    F(np.diff, R(5), prepend=S()), F(np.diff, R(3, 4), axis=1, prepend=R(3, 2), append=S()),
    F(np.diff, R(3, 4), 2, axis=0, append=R(1, 4)),
    F(np.ediff1d, R(6)), F(np.ediff1d, R(2, 3)), F(np.ediff1d, R(4), to_end=S(), to_begin=R(2)),
    F(np.ediff1d, R(4), to_end=[S(), S()]),
)
for mode in ("full", "same", "valid"):
    add(F(np.convolve, R(6), R(3), mode=mode), F(np.convolve, R(3), R(6), mode=mode),
        F(np.convolve, R(5), R(4), mode=mode), F(np.correlate, R(6), R(3), mode=mode),
        F(np.correlate, R(3), R(5), mode=mode), F(np.correlate, R(5), R(4), mode=mode))
XP = np.array([-1.0, -0.2, 0.5, 1.3, 2.0])
add(
    F(np.interp, R(7, lo=-0.9, hi=1.9), XP, R(5)),
    F(np.interp, R(3, 2, lo=-2.0, hi=3.0), XP, R(5)),
    F(np.interp, R(6, lo=-2.0, hi=3.0), XP, R(5), left=S(), right=S()),
    F(np.interp, S(-0.9, 1.9), XP, [S(), S(), S(), S(), S()]),
    F(newer_np.trapezoid, R(6)), F(newer_np.trapezoid, R(6), dx=S(0.5, 2)),
    F(newer_np.trapezoid, R(3, 5), axis=0),
    F(newer_np.trapezoid, R(3, 5), CUSTOM(lambda rng: np.sort(rng.standard_normal(5)), "sorted5")),
    F(newer_np.trapezoid, R(4, 3), CUSTOM(lambda rng: np.sort(rng.standard_normal((4, 3)), axis=0), "sorted4x3"),
      axis=0),
    F(np.polyval, R(4), R(5)), F(np.polyval, [S(), S(), S()], S()), F(np.polyval, R(1), R(3)),
    F(np.polyval, R(3), R(2, 3)),
)

# ---------------------------------------------------------------------------
# statistics: nan reductions, ptp, average, median, quantile, percentile

for axis in (None, 0, -1, (0, 1)):
    add(F(np.nansum, _nan_at((3, 4), [1, 6]), axis=axis),
        F(np.nanmean, _nan_at((3, 4), [2, 7]), axis=axis, keepdims=True),
        F(np.nanmax, _nan_at((3, 4), [0, 5]), axis=axis), F(np.nanmin, _nan_at((3, 4), [3]), axis=axis),
        F(np.nanprod, _nan_at((3, 4), [4]), axis=axis), F(np.nanvar, _nan_at((3, 4), [1]), axis=axis),
        F(np.nanstd, _nan_at((3, 4), [9]), axis=axis, ddof=1),
        F(np.ptp, R(3, 4), axis=axis), F(np.median, R(3, 4), axis=axis))
add(
    F(np.nansum, R(2, 3, 4), axis=(0, 2), keepdims=True), F(np.nansum, [S(), S()]),
    F(np.nanmean, R(5)), F(np.nanmax, R(2, 3, 4), axis=1, keepdims=True),
    numpy2(F(np.nanvar, _nan_at((3, 4), [1, 2]), axis=1, keepdims=True, correction=1)),
    F(np.ptp, R(2, 3, 4), axis=(0, 2), keepdims=True),
    F(np.average, R(3, 4)), F(np.average, R(3, 4), axis=0), F(np.average, R(3, 4), weights=P(3, 4)),
    F(np.average, R(3, 4), axis=1, weights=P(4)), F(np.average, R(3, 4), axis=0, weights=P(3), keepdims=True),
    numpy2(F(np.average, R(2, 3, 4), axis=(0, 2), weights=P(2, 4))),
    F(np.average, R(3, 4), axis=1, weights=P(3, 4), returned=True),
    F(np.average, R(3, 4), axis=-1, returned=True),
    F(np.median, R(5)), F(np.median, R(6)), F(np.median, R(2, 3, 4), axis=(0, 2), keepdims=True),
    F(np.quantile, R(7), 0.3), F(np.quantile, R(3, 5), np.array([0.1, 0.5, 0.95]), axis=1),
    F(np.quantile, R(3, 5), 0.25, axis=0, keepdims=True), F(np.quantile, R(2, 3, 4), [0.2, 0.7], axis=(0, 2)),
    F(np.percentile, R(8), 40), F(np.percentile, R(3, 4), [10, 90], axis=-1),
)

# ---------------------------------------------------------------------------
# structure: flips, rotations, stacks, splits, append/insert/delete, gathers


def _pieces_g(y, rng):
    return tuple(None if i == 1 else rng.standard_normal(p.shape) for i, p in enumerate(y))


add(
    F(np.fliplr, R(3, 4)), F(np.fliplr, R(2, 3, 4)), F(np.flipud, R(3, 4)), F(np.flipud, R(5)),
    F(np.rot90, R(3, 4)), F(np.rot90, R(3, 4), 2), F(np.rot90, R(3, 4), -1),
    F(np.rot90, R(2, 3, 4), 3, axes=(1, 2)),
    F(np.dstack, [R(3), R(3)]), F(np.dstack, (R(2, 3), R(2, 3, 2))), F(np.dstack, [S(), S()]),
    F(np.column_stack, [R(3), R(3, 2)]), F(np.column_stack, (R(4), R(4), R(4))),
    F(np.hsplit, R(3, 4), 2), F(np.hsplit, R(6), [2, 5]), F(np.vsplit, R(4, 3), [1]),
    F(np.dsplit, R(2, 2, 4), 2), F(np.hsplit, R(2, 6), 3, g=_pieces_g, note="partial g"),
    F(newer_np.unstack, R(3, 4)), F(newer_np.unstack, R(2, 3, 4), axis=-1),
    F(newer_np.unstack, R(3, 2), g=_pieces_g, note="partial g"),
    F(np.append, R(3), R(2)), F(np.append, R(2, 3), R(3, 3), axis=0), F(np.append, R(2, 3), R(2, 1), axis=1),
    F(np.append, R(2, 2), [S(), S()]),
    F(np.delete, R(6), 2), F(np.delete, R(6), [0, 3, -1]), F(np.delete, R(3, 4), 1, axis=1),
    F(np.delete, R(3, 4), slice(0, 2), axis=0), F(np.delete, R(3, 4), np.array([True, False, True]), axis=0),
    F(np.insert, R(5), 2, S()), F(np.insert, R(5), [1, 3], R(2)), F(np.insert, R(5), [1, 1], S()),
    F(np.insert, R(3, 4), 1, R(4), axis=0), F(np.insert, R(3, 4), 1, R(3), axis=1),
    F(np.insert, R(3, 4), [0, 2], S(), axis=1), F(np.insert, R(2, 3), 1, R(2)),
    F(np.insert, R(3, 4), [2], R(3, 2), axis=1), F(np.insert, R(4), slice(0, 2), R(2)),
    F(np.take_along_axis, R(3, 4), np.array([[0, 0], [3, 1], [2, 2]]), axis=1),
    F(np.take_along_axis, R(3, 4), np.array([[2, 2, 0, 1]]), axis=0),
    F(np.take_along_axis, R(6), np.array([5, 5, 0]), axis=None),
    F(np.take_along_axis, R(2, 3, 4), np.array([[[1], [3], [0]], [[2], [2], [2]]]), axis=-1),
    F(np.partition, R(7), 3), F(np.partition, R(3, 6), [1, 4], axis=1), F(np.partition, R(4, 3), 0, axis=0),
    F(np.partition, R(3, 4), 5, axis=None),
    F(np.compress, np.array([True, False, True]), R(3, 4), axis=0),
    F(np.compress, [False, True], R(3, 4), axis=1), F(np.compress, np.array([1, 0, 1, 1]), R(2, 2)),
    M(nd, "compress", R(3, 4), [True, True, False, True], axis=-1),
    F(np.extract, B(3, 4), R(3, 4)),
    F(np.choose, np.array([0, 2, 1, 0]), [R(4), R(4), S()]),
    F(np.choose, np.array([[0, 1], [1, 0]]), (R(2, 2), R(2, 1))),
    F(np.choose, np.array([3, -1, 1]), [R(3), R(3)], mode="wrap"),
    F(np.choose, np.array([0, 1, 1]), R(2, 3)),
    F(np.select, [CUSTOM(lambda rng: np.arange(6) < 2, "lt2"), CUSTOM(lambda rng: np.arange(6) < 4, "lt4")],
      [R(6), R(6)], S()),
    F(np.select, [B(3, 4), B(4)], [R(3, 4), S()]),
    F(np.diagflat, R(3)), F(np.diagflat, R(2, 2), 1), F(np.diagflat, [S(), S()], -1),
    F(np.rollaxis, R(2, 3, 4), 2), F(np.rollaxis, R(2, 3, 4), 0, 3), F(np.rollaxis, R(2, 3, 4), -1, 1),
    F(np.broadcast_arrays, R(3, 1), R(4)), F(np.broadcast_arrays, R(2, 3), S(), R(1, 3)),
    F(np.broadcast_arrays, R(3, 1), R(1, 2), g=_pieces_g, note="partial g"),
    F(np.meshgrid, R(3), R(4)), F(np.meshgrid, R(3), R(4), indexing="ij"),
    F(np.meshgrid, R(2), R(3), R(4)), F(np.meshgrid, R(3), R(2), sparse=True),
    F(np.meshgrid, [S(), S()], R(3), g=_pieces_g, note="partial g"),
    F(np.resize, R(4), 10), F(np.resize, R(2, 3), (2, 2)), F(np.resize, R(3), (2, 3)),
    F(newer_np.astype, R(3, 4), np.float64), F(newer_np.astype, R(3), "f8"),
    F(np.asfortranarray, R(3, 4)), F(np.asfortranarray, [S(), S()]),
    F(np.asarray_chkfinite, R(3)), F(np.asarray_chkfinite, [[S(), S()], [S(), S()]]),
)

# ---------------------------------------------------------------------------
# products and np.linalg extras


def _spd(n, *batch):
    def draw(rng):
        x = rng.standard_normal(batch + (n, n))
        return x @ np.swapaxes(x, -1, -2) + n * np.eye(n)
    return CUSTOM(draw, f"SPD{batch + (n, n)}")


def _sym(n, *batch):
    def draw(rng):
        x = rng.standard_normal(batch + (n, n))
        return x + np.swapaxes(x, -1, -2)
    return CUSTOM(draw, f"SYM{batch + (n, n)}")


def _full_lstsq_g(y, rng):
    res = rng.standard_normal(y[1].shape) if y[1].size else None
    return (rng.standard_normal(y[0].shape), res, None, None)


def _random_parts(*used):
    def make(y, rng):
        return tuple(rng.standard_normal(np.shape(p)) if i in used else None for i, p in enumerate(y))
    return make


L = np.linalg
add(
    F(np.kron, R(2, 3), R(3, 2)), F(np.kron, R(3), R(2)), F(np.kron, R(2), R(2, 3)),
    F(np.kron, R(2, 1, 2), R(2, 2)),
    F(np.cross, R(3), R(3)), F(np.cross, R(4, 3), R(3)), F(np.cross, R(3, 4), R(3, 4), axisa=0, axisb=0, axisc=0),
    F(np.cross, R(2, 3), R(2, 1, 3)), F(np.cross, R(3, 2), R(2, 3), axisa=0),
    F(np.cross, R(3, 2), R(3, 2), axis=0),
    F(newer_linalg.cross, R(4, 3), R(4, 3)), F(newer_linalg.cross, R(3, 2), R(3, 2), axis=0),
    F(L.multi_dot, [R(2, 3), R(3, 4)]), F(L.multi_dot, [R(3), R(3, 4), R(4, 2), R(2)]),
    F(L.multi_dot, (R(2, 3), R(3, 3), R(3, 5))), F(L.multi_dot, [R(4), R(4, 2), R(2, 3)]),
    F(L.matrix_power, WC(3), 1), F(L.matrix_power, WC(3), 2), F(L.matrix_power, WC(3), 5),
    F(L.matrix_power, WC(3), 0), F(L.matrix_power, WC(3), -1), F(L.matrix_power, WC(2, 2), -3),
    F(L.matrix_power, WC(3, 2), 3),
    F(newer_linalg.trace, R(3, 3)), F(newer_linalg.trace, R(2, 3, 4), offset=1),
    F(newer_linalg.diagonal, R(2, 4, 3)),
    F(newer_linalg.diagonal, R(4, 4), offset=-1),
    F(newer_np.matrix_transpose, R(2, 3, 4)), F(newer_linalg.matrix_transpose, R(3, 4)),
    F(newer_linalg.matrix_norm, R(3, 4)), F(newer_linalg.matrix_norm, R(2, 3, 4), keepdims=True),
    F(newer_linalg.matrix_norm, R(3, 4), ord="nuc"), F(newer_linalg.matrix_norm, R(3, 4), ord=1),
    F(newer_linalg.matrix_norm, R(2, 3, 4), ord=np.inf), F(newer_linalg.matrix_norm, R(3, 4), ord=-1),
    F(newer_linalg.matrix_norm, R(3, 4), ord=-np.inf), F(newer_linalg.matrix_norm, R(3, 4), ord=2),
    F(newer_linalg.vector_norm, R(5)), F(newer_linalg.vector_norm, R(3, 4)),
    F(newer_linalg.vector_norm, R(3, 4), axis=1, keepdims=True),
    F(newer_linalg.vector_norm, R(2, 3, 4), axis=(0, 2)), F(newer_linalg.vector_norm, NZ(5), ord=1),
    F(newer_linalg.vector_norm, R(3, 4), ord=np.inf, axis=0), F(newer_linalg.vector_norm, R(5), ord=3),
    F(L.norm, R(3, 4), 1), F(L.norm, R(3, 4), -1), F(L.norm, R(3, 4), np.inf),
    F(L.norm, R(3, 4), -np.inf), F(L.norm, R(2, 3, 4), 1, axis=(2, 0)),
    F(L.norm, R(2, 3, 4), np.inf, axis=(1, 2), keepdims=True),
    F(L.cholesky, _spd(3)), F(L.cholesky, _spd(3, 2)), numpy2(F(L.cholesky, _spd(4), upper=True)),
    F(L.qr, R(4, 3)), F(L.qr, R(3, 3)), F(L.qr, R(2, 4, 3)), F(L.qr, R(3, 5)), F(L.qr, R(4, 3), mode="r"),
    F(L.qr, R(3, 3), mode="complete"), F(L.qr, R(4, 3), g=_random_parts(1), note="R only"),
    F(L.eigh, _sym(4)), F(L.eigh, _sym(3), UPLO="U"), F(L.eigh, _sym(3, 2)),
    F(L.eigh, _sym(4), g=_random_parts(0), note="eigenvalues only"),
    F(L.eigvalsh, _sym(4)), F(L.eigvalsh, _sym(3), "U"),
    F(L.svd, R(4, 3), full_matrices=False), F(L.svd, R(3, 5), full_matrices=False), F(L.svd, R(3, 3)),
    F(L.svd, R(2, 4, 3), full_matrices=False), F(L.svd, R(4, 3), compute_uv=False),
    F(L.svd, R(4, 3), full_matrices=False, g=_random_parts(1), note="S only"),
    F(L.svd, R(3, 4), full_matrices=False, g=_random_parts(0, 2), note="U and Vh"),
    F(newer_linalg.svdvals, R(3, 5)), F(newer_linalg.svdvals, R(2, 3, 3)),
    F(L.pinv, R(4, 3)), F(L.pinv, R(3, 5)), F(L.pinv, WC(3)),
    F(L.lstsq, R(5, 3), R(5), g=_full_lstsq_g), F(L.lstsq, R(5, 3), R(5, 2), g=_full_lstsq_g),
    F(L.lstsq, R(3, 5), R(3), g=_full_lstsq_g),
    F(L.lstsq, R(5, 3), R(5), g=_random_parts(0), note="solution only"),
)
add(F(newer_np.matvec, R(3, 4), R(4)), F(newer_np.matvec, R(2, 3, 4), R(2, 4)),
    F(newer_np.matvec, R(3, 4), R(2, 4)), F(newer_np.vecmat, R(3), R(3, 4)),
    F(newer_np.vecmat, R(2, 3), R(2, 3, 4)), F(newer_np.vecmat, R(2, 3), R(3, 4)))

# ---------------------------------------------------------------------------
# helpers that generated code and rule bodies call (rules/cotangents.py, rules/rule_helpers.py):
# their rules are what differentiating generated code (a gradient of a gradient) splices

from zygote_py.rules import factorizations as _factorizations
from zygote_py.rules import indexing as _indexing
from zygote_py.rules import linalg as _linalg
from zygote_py.rules import operators as _operators
from zygote_py.rules import shapes as _shapes
from zygote_py.rules import structure as _structure
from zygote_py.runtime import helpers as rt
from zygote_py.runtime import transposes as tr

add(
    F(rt.unbroadcast, R(3, 4), R(4)), F(rt.unbroadcast, R(3, 4), R(3, 1)), F(rt.unbroadcast, R(2, 3, 4), S()),
    F(rt.unbroadcast, R(3), R(3)), F(rt.unbroadcast, S(), S()), F(rt.unbroadcast, S(), R(2, 2)),
    F(rt.unbroadcast, R(3, 1), R(1, 4), note="sum then broadcast"),
    F(tr.broadcast_like, R(4), R(3, 4)), F(tr.broadcast_like, R(3, 1), R(3, 4)),
    F(tr.broadcast_like, S(), R(2, 3)), F(tr.broadcast_like, R(3), R(3)), F(tr.broadcast_like, R(2, 2), S()),
    F(rt.expand_reduced, R(3), R(3, 4), 1), F(rt.expand_reduced, S(), R(3, 4)),
    F(rt.expand_reduced, R(3, 1), R(3, 4), -1, True), F(rt.expand_reduced, R(4), R(2, 3, 4), (0, 1)),
    F(rt.expand_reduced, R(1, 1), R(2, 3), None, True),
    F(tr.sum_reduced, R(3, 4), R(3, 4), 1), F(tr.sum_reduced, R(3, 4), R(3, 4)),
    F(tr.sum_reduced, R(3, 4), R(3, 4), -1, True), F(tr.sum_reduced, R(2, 3, 4), R(2, 3, 4), (0, 1)),
    F(rt.accum, R(3), R(3)), F(rt.accum, S(), S()), F(rt.accum, (S(), R(2)), (S(), R(2))),
    F(rt.accum, [S(), None], [S(), R(2)]), F(rt.accum, {"a": S()}, {"a": S(), "b": R(2)}),
    F(rt.accum, None, R(3)), F(rt.accum, (S(), S()), [S(), S()]),
    F(rt.accum_owned, R(3), R(3), copy=True), F(rt.accum_owned, None, R(2, 3)),
    F(rt.accum_owned, R(2, 3), R(3), copy=True, note="broadcast: a fresh sum"),
    F(rt.accum_owned, R(3), S(), copy=True, note="a float"),
    F(rt.accum_owned, S(), R(3), note="a number, then an array"),
    F(rt.accum_index, R(4), R(4), 1, S(), copy=True), F(rt.accum_index, None, R(3), 0, S()),
    F(rt.accum_index, R(2, 3), R(2, 3), 0, S(), copy=True),
    F(rt.accum_index, R(4), R(4), np.array([0, 2, 0]), R(3), copy=True),
    F(rt.accum_index, [S(), S(), S()], [S(), S(), S()], 2, S(), True, copy=True),
    F(rt.accum_index, [S(), None, S()], [S(), S(), S()], slice(0, 2), [S(), S()], copy=True),
    F(rt.accum_index, {"a": S()}, {"a": S(), "b": S()}, "b", S(), copy=True),
    F(rt.accum_item, R(4), R(4), 1, S(), copy=True), F(rt.accum_item, None, R(3), 0, S()),
    F(rt.accum_item, [S(), S(), S()], [S(), S(), S()], 2, S(), True, copy=True),
    F(rt.accum_item, {"a": S()}, {"a": S(), "b": S()}, 1, S(), copy=True,
      note="a dict's key: its cotangent is dropped"),
    F(rt.zeros_if_none, R(3), R(3)), F(rt.zeros_if_none, S(), S()),
    F(rt.strong_times, R(3), R(3)), F(rt.strong_times, S(), R(2, 3)), F(rt.strong_times, R(2, 3), R(3)),
    F(rt.strong_times, R(3), S(), note="a finite number: no pass over the product"),
    F(rt.summed_strong_times, R(4), R(4), S(), note="c * u's c: a dot product"),
    F(rt.summed_strong_times, R(2, 3), R(2, 3), S()), F(rt.summed_strong_times, S(), S(), S()),
    F(rt.summed_strong_times, R(2, 3), R(3), R(3)), F(rt.summed_strong_times, R(3), S(), R(3)),
    F(rt.strong_zero, R(3), R(3)), F(rt.strong_zero, S(), S()), F(rt.strong_zero, S(), R(2, 3)),
    F(rt.strong_zero_kept, R(3), R(3), R(3)), F(rt.strong_zero_kept, S(), S(), S()),
    F(rt.item_cotangent, (S(), R(2)), 1), F(rt.item_cotangent, [S(), S(), S()], -1),
    F(rt.item_cotangent, {"a": S(), "b": R(2)}, "b"), F(rt.item_cotangent, R(3, 2), 1),
    F(rt.item_cotangent, [S(), S(), S()], slice(0, 2)),
    F(rt.unpack_cotangent, (S(), R(2)), (S(), R(2)), None),
    F(rt.unpack_cotangent, R(3, 2), (R(2), R(2), R(2)), None),
    F(rt.unpack_cotangent, [S(), S(), S(), S()], (S(), [S(), S()], S()), 1),
    F(rt.unpack_cotangent, R(4, 2), (R(2), [R(2), R(2)], R(2)), 1),
    F(rt.split_last, [S(), S(), R(2)]), F(rt.split_last, [S()]),
    F(rt.split_tail, [S(), S(), S()], [S(), S()]), F(rt.split_tail, [S(), R(2), R(2)], R(2, 2)),
    F(rt.split_tail, [S(), S()], (S(),)),
    F(rt.split_key, {"a": S(), "b": R(2)}, "a"),
    F(rt.split_key, {"a": S()}, "z", g=lambda y, rng: ({"a": 0.3}, None), note="missing key"),
)
add(
    F(_linalg.matmul_cotangent_a, R(3, 2), R(3, 4), R(4, 2)), F(_linalg.matmul_cotangent_a, R(2), R(4), R(4, 2)),
    F(_linalg.matmul_cotangent_a, R(3), R(3, 4), R(4)), F(_linalg.matmul_cotangent_a, S(), R(4), R(4)),
    F(_linalg.matmul_cotangent_a, R(2, 3, 2), R(3, 4), R(2, 4, 2)),
    F(_linalg.matmul_cotangent_a, R(2, 3, 2), R(1, 3, 4), R(2, 4, 2)),
    F(_linalg.matmul_cotangent_b, R(3, 2), R(3, 4), R(4, 2)), F(_linalg.matmul_cotangent_b, R(2), R(4), R(4, 2)),
    F(_linalg.matmul_cotangent_b, R(3), R(3, 4), R(4)), F(_linalg.matmul_cotangent_b, S(), R(4), R(4)),
    F(_linalg.matmul_cotangent_b, R(2, 3, 2), R(2, 3, 4), R(4, 2)),
    F(_linalg.matmul_tangent_left, R(3, 4), R(4, 2)), F(_linalg.matmul_tangent_right, R(3, 4), R(4, 2)),
    F(_linalg.matmul_tangent_left, R(4), R(4, 2)), F(_linalg.matmul_tangent_right, R(2, 3, 4), R(4)),
    F(_linalg.dot_tangent_left, R(3, 4), R(4, 2)), F(_linalg.dot_tangent_right, R(3, 4), R(4)),
    F(_linalg.dot_tangent_left, S(), R(3)),
    F(_linalg.outer_cotangent_a, R(3, 2), R(3), R(2)), F(_linalg.outer_cotangent_b, R(3, 2), R(3), R(2)),
    F(_linalg.outer_cotangent_a, R(3, 4), R(3), R(2, 2), note="N-D b"),
    F(_linalg.inner_cotangent_a, R(3, 2), R(3, 4), R(2, 4)), F(_linalg.inner_cotangent_b, R(3, 2), R(3, 4), R(2, 4)),
    F(_linalg.tensordot_cotangent_a, R(3, 5), R(3, 4), R(4, 5), 1),
    F(_linalg.tensordot_cotangent_b, R(3, 5), R(3, 4), R(4, 5), 1),
    F(_linalg.tensordot_cotangent_a, R(2), R(2, 3, 4), R(3, 4), 2),
    F(_linalg.einsum_operand_cotangent, R(3, 2), 0, "ij,jk->ik", R(3, 4), R(4, 2)),
    F(_linalg.einsum_operand_cotangent, R(3, 2), 1, "ij,jk->ik", R(3, 4), R(4, 2)),
    F(_linalg.einsum_operand_cotangent, R(3, 2), 1, "ij,ijk,j->ik", R(3, 4), R(3, 4, 2), R(4)),
    F(_linalg.einsum_operand_cotangent, R(3, 2), 2, "ij,ijk,j->ik", R(3, 4), R(3, 4, 2), R(4)),
    F(_linalg.einsum_operand_cotangent, R(2, 3), 0, "ij,ij->ij", R(1, 3), R(2, 3), note="broadcast"),
    F(_linalg.einsum_operand_cotangent, R(3, 4), 0, "ijk,ijk->ij", R(3, 4, 2), R(3, 4, 2)),
    F(_linalg.einsum_operand_cotangent, R(16, 3), 1, "ij,ijk,j->ik", R(16, 5), R(16, 5, 3), R(5),
      note="laid out last axis first"),
    F(_linalg.einsum_operand_cotangent, R(16, 5), 0, "ijk,ijk->ij", R(16, 5, 3), R(16, 5, 3),
      note="laid out last axis first"),
    F(_linalg._multiply_last_first, R(16, 5, 3), R(16, 1, 3)),
    F(_linalg._multiply_last_first, R(16, 1, 3), R(16, 5, 1), note="an outer product"),
    F(_linalg.einsum_operand_cotangent, R(2), 0, "iij->j", R(3, 3, 2), note="diagonal"),
    F(_linalg.einsum_operand_cotangent, R(3), 0, "ij,k->i", R(3, 4), R(5), note="summed alone"),
    F(_linalg.einsum_operand_cotangent, R(2, 3, 5), 1, "...ij,...jk->...ik", R(2, 3, 4), R(4, 5)),
    F(_linalg.dot_cotangent_a, R(3, 2), R(3, 4), R(4, 2)), F(_linalg.dot_cotangent_a, R(3), R(3, 4), R(4)),
    F(_linalg.dot_cotangent_a, R(2, 3, 5), R(2, 3, 4), R(4, 5)), F(_linalg.dot_cotangent_a, R(3), S(), R(3)),
    F(_linalg.dot_cotangent_b, R(3, 2), R(3, 4), R(4, 2)), F(_linalg.dot_cotangent_b, R(3), R(3, 4), R(4)),
    F(_linalg.dot_cotangent_b, R(2, 3, 5), R(2, 3, 4), R(4, 5)), F(_linalg.dot_cotangent_b, R(3), R(3), S()),
    F(_operators._pow_exponent_cotangent, R(3), P(3), P(3)),
    F(_operators._pow_exponent_cotangent, R(3, 4), P(3, 4), P(4)),
    F(_operators._pow_exponent_cotangent, R(4), R(4), NZ(4), note="negative bases"),
    F(_operators._pow_exponent_cotangent, S(), PS(), PS()),
    F(_operators._pow_exponent_cotangent, S(), PS(), S(-2, -0.5)),
    F(_structure._take_along_axis_cotangent, R(3, 4), R(3, 4), np.array([[0, 2, 2, 1], [1, 1, 0, 0], [2, 0, 1, 2]]), 0),
    F(_structure._take_along_axis_cotangent, R(3), R(2, 2), np.array([0, 3, 3]), None),
    F(_indexing._index_cotangent, R(2), R(3, 2), 1), F(_indexing._index_cotangent, R(3), R(5), np.array([0, 2, 0])),
    F(_indexing._index_cotangent, R(2, 2), R(3, 4), (slice(0, 2), slice(1, 3))),
    F(_indexing._index_cotangent, S(), R(3), 1),
    F(_indexing._index_cotangent, S(), [S(), S()], 0, g=lambda y, rng: [0.7, None]),
    F(_indexing._index_cotangent, (S(), S()), (S(), S(), S()), slice(1, 3),
      g=lambda y, rng: (None, 0.4, -1.1)),
    F(_indexing._index_cotangent, S(), {"a": S()}, "a"),
    F(_indexing._add_index_cotangent, R(3, 2), R(2), R(3, 2), 1),
    F(_indexing._add_index_cotangent, R(5), R(3), R(5), np.array([0, 2, 0]), note="repeats add"),
    F(_indexing._add_index_cotangent, R(3, 4), R(2, 2), R(3, 4), (slice(0, 2), slice(1, 3)), True),
    F(_indexing._add_index_cotangent, R(4), S(), R(4), 2, True, note="one element"),
    F(_shapes.like_input, R(3), R(3)), F(_shapes.like_input, R(2), [S(), S()]), F(_shapes.like_input, A0(), S()),
    F(_shapes.like_input, R(2, 2), [[S(), S()], (S(), S())]),
    F(_shapes.like_input, A0(), CUSTOM(lambda rng: np.float64(rng.standard_normal()), "f64")),
)

_SLOG = np.linalg.slogdet(np.eye(2) * 2.0)
add(
    F(_indexing._diagonal_cotangent, R(3), R(3, 4), 0, 0, 1), F(_indexing._diagonal_cotangent, R(2), R(3, 4), 2, 0, 1),
    F(_indexing._diagonal_cotangent, R(2, 2), R(2, 3, 4), -1, 1, 2),
    F(_indexing._diagonal_cotangent, R(2, 1), R(2, 3, 3), 0, -2, -1, note="trace's broadcast g"),
    F(_indexing._take_cotangent, R(3), R(5), np.array([0, 2, 0]), None, "raise"),
    F(_indexing._take_cotangent, R(3, 2), R(3, 4), np.array([3, 3]), 1, "raise"),
    F(_indexing._take_cotangent, R(2, 4), R(3, 4), np.array([4, -1]), 0, "wrap"),
    F(_indexing._sort_cotangent, R(5), R(5), -1), F(_indexing._sort_cotangent, R(3, 4), R(3, 4), 0),
    F(_indexing._sort_cotangent, R(12), R(3, 4), None),
    F(_factorizations.output_parts, (R(2), R(2, 2)), (R(2), R(2, 2))),
    F(_factorizations.output_parts, [S(), R(3)], (S(), R(3))),
    F(_factorizations.output_parts, {"sign": S(), "logabsdet": S()}, _SLOG,
      g=lambda y, rng: (0.4, -1.2)),
    F(_factorizations.output_parts, {1: S()}, (S(), S()), g=lambda y, rng: (None, -1.2), note="by index"),
)
add(F(_factorizations.output_parts, R(2, 3), (R(3), R(3)), note="array of parts"))

from zygote_py.rules import shapes as _shapes_rules
from zygote_py.rules import statistics as _statistics
from zygote_py.rules import structure as _structure

_PART_A = np.array([[0.3, -1.2, 2.0, 0.7, -0.1], [1.5, 0.2, -0.8, 0.9, -2.0]])
add(
    F(_shapes_rules._repeat_cotangent, R(6), R(3), 2, None), F(_shapes_rules._repeat_cotangent, R(3, 4), R(3, 2), 2, 1),
    F(_shapes_rules._repeat_cotangent, R(5, 2), R(3, 2), np.array([1, 0, 4]), 0),
    F(_structure._partition_cotangent, R(2, 5), np.partition(_PART_A, 2, axis=1), _PART_A, 1),
    F(_structure._partition_cotangent, R(10), np.partition(_PART_A, 3, axis=None), _PART_A, None),
    F(_statistics._quantile_cotangent, S(), R(7), 0.3, None, False, "linear", None),
    F(_statistics._quantile_cotangent, R(3), R(3, 5), 0.5, 1, False, "linear", None),
    F(_statistics._quantile_cotangent, R(2, 3), R(3, 5), np.array([0.2, 0.9]), 1, False, "linear", None),
    F(_statistics._quantile_cotangent, R(1, 5), R(3, 5), 0.4, 0, True, "linear", None),
)

# numpy.fft, scipy.signal and the NumPy additions of issue 15 keep their own table
from numpy_extra_specs import EXTRA_SPECS  # noqa: E402

add(*EXTRA_SPECS)

# `obj.name op= v` on a number: obj.name rebound to the new value (runtime/writes.py)
from zygote_py.runtime import writes as _writes

add(F(_writes.augmented_attribute, S(), S()))
add(F(_writes.same_if_written, S(), S()), F(_writes.same_if_written, R(3), R(3)))

# ---------------------------------------------------------------------------
# SciPy (optional): its own table, empty where SciPy is not installed

from scipy_specs import scipy_specs

add(*scipy_specs())
