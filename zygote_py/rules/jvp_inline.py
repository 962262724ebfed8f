"""Forward rules for the hottest operators, as bodies the forward transform splices.

The jvp functions of jvp_common.py take any tangent, None (zero) included, and
test for it while running.  Where the forward transform knows which tangents
of a call are absent (statically zero) and that the others are certainly not
None (ad/forward/inline.py), it splices one of the bodies below instead of
calling the general rule: each is one plain expression for one pattern of
present tangents, so `y = a * b` is followed by `y_dot = a_dot * b + a * b_dot`
in the generated code rather than by a call.

Each body has the signature `(d..., y, *operands)`: the present tangents in
the order of the rule's differentiable parameters, the primal result, then the
call's operands.  They compute exactly what the general jvp functions compute
for the same tangents (tests/ad/test_forward_fast_paths.py pins them against
central differences).  `fit_to` is the one call left: with only one tangent of
`a + b`, that tangent is broadcast up to the result's shape, unless the other
operand is a number (then nothing can have broadcast).

`SQUARE` is `a * a` with one tangent: `2 * (a * a_dot)` is bit for bit
`a_dot * a + a * a_dot` (products commute and doubling is exact).
"""

from __future__ import annotations

import operator

import numpy as np

from ..runtime.helpers import strong_times, strong_zero
from .jvp_common import fit_to
from .linalg import matmul_tangent_left, matmul_tangent_right


def add_both(da, db, y, a, b):
    return da + db


def add_a(da, y, a, b):
    return fit_to(da, y)


def add_b(db, y, a, b):
    return fit_to(db, y)


def add_a_number(da, y, a, b):  # b is a number: y has a's shape
    return da


def add_b_number(db, y, a, b):
    return db


def sub_both(da, db, y, a, b):
    return da - db


def sub_b(db, y, a, b):
    return fit_to(-db, y)


def sub_b_number(db, y, a, b):
    return -db


# The products pass through strong_times (a zero tangent entry contributes 0 even
# against an infinite factor, as jvp_common.py's rules); between known scalars, and by
# a finite constant, the forward transform writes the plain product, with the scalar
# test inline (ad/forward/inline.py).

def mul_both(da, db, y, a, b):
    return strong_times(da, b) + strong_times(db, a)


def mul_a(da, y, a, b):
    return strong_times(da, b)


def mul_b(db, y, a, b):
    return strong_times(db, a)


def square(da, db, y, a, b):  # a * a, one value: da * (2 * a) is da * a + a * da exactly
    return strong_times(da, 2 * a)


def div_both(da, db, y, a, b):
    return strong_zero(da, da / b) - strong_zero(db, db * y / b)


def div_a(da, y, a, b):
    return strong_zero(da, da / b)


def div_b(db, y, a, b):
    return strong_zero(db, -db * y / b)


def matmul_both(da, db, y, a, b):
    return matmul_tangent_left(da, b) + matmul_tangent_right(a, db)


def matmul_a(da, y, a, b):
    return matmul_tangent_left(da, b)


def matmul_b(db, y, a, b):
    return matmul_tangent_right(a, db)


def neg(dx, y, x):
    return -dx


def pos(dx, y, x):
    return dx


def power_of_two(da, y, a, b):  # a ** 2 (b the constant 2): jvp_pow's `da * (2 * a)`
    return strong_times(da, 2 * a)


# (primal, which of its two operands have a tangent, the other operand is a number) -> body;
# a number-valued operand (a literal, a known scalar) broadcasts nothing, so no fit_to
BINARY: dict = {}
for _primals, _bodies in (
        ((operator.add, np.add), {(True, True): add_both, (True, False): add_a,
                                  (False, True): add_b, (True, False, "number"): add_a_number,
                                  (False, True, "number"): add_b_number}),
        ((operator.sub, np.subtract), {(True, True): sub_both, (True, False): add_a,
                                       (False, True): sub_b, (True, False, "number"): add_a_number,
                                       (False, True, "number"): sub_b_number}),
        ((operator.mul, np.multiply), {(True, True): mul_both, (True, False): mul_a,
                                       (False, True): mul_b}),
        ((operator.truediv, np.divide), {(True, True): div_both, (True, False): div_a,
                                         (False, True): div_b}),
        ((operator.matmul, np.matmul), {(True, True): matmul_both, (True, False): matmul_a,
                                        (False, True): matmul_b})):
    for _primal in _primals:
        BINARY[_primal] = _bodies

UNARY = {operator.neg: neg, np.negative: neg, operator.pos: pos, np.positive: pos}

# functions linear in their first argument: the tangent is the function of the tangent
# (the other arguments, axis and keepdims, kept as the call gave them)
LINEAR = {np.sum: ("axis", "keepdims"), np.mean: ("axis", "keepdims")}
