"""Scalar arithmetic: operators, unary ops, integer ops on inactive values,
augmented assignment, the math module and numeric builtins."""

import math

import numpy as np

from . import Case, rfloat


def add_sub_mul(x, y):
    return x * y + x - y * 3.0 + 2.0


def true_division(x, y):
    return x / y + 1.0 / (x * y) - y / 4


def power_float_exponents(x, y):
    return x**2.5 + y**3 + 2.0**x + x**y


def power_int_exponent(x, k):
    return x**k - k * x


def unary_ops(x, y):
    return -x * +y - (-(x - y)) ** 2 + (+x)


def floordiv_mod_on_ints(x, n):
    q = n // 3
    r = n % 4
    return q * x + r * x**2 + (n // 2 % 3) * x


def mixed_int_literals(x):
    return 3 * x + 1 - x / 2 + 7 // 2 * x


def rational(x):
    return ((x + 1) * (x - 2) / (x + 3)) ** 2 + 1 / (1 + x * x)


def augmented_scalar(x, y):
    s = x
    s += x * x
    s -= y
    s *= 2
    s /= y + 3.0
    s **= 2
    return s


def augmented_with_int(x, n):
    s = 1.0
    s += n
    s *= x
    n += 1
    s *= n
    return s


def math_functions(x):
    return (
        math.sin(x)
        + math.cos(2 * x)
        + math.exp(x) * math.log(x)
        + math.sqrt(x)
        + math.pow(x, 1.5)
        + math.tanh(x)
    )


def math_composed(x, y):
    return math.log(1 + math.exp(x)) * math.sqrt(y * y + 1) + math.pow(y, 3)


def math_constants(x):
    return math.pi * x**2 + math.e * x


def builtin_abs_pow(x, y):
    return abs(x) * pow(y, 3) + pow(x, 2) + abs(x - y)


def builtin_float(x, n):
    return float(n) * x + float(x) ** 2


def builtin_min_max(x, y, z):
    return max(x, y) * min(y, z) + max(x, y, z) - min(x, z)


def builtin_sum(a, b, c):
    return sum([a, b, c]) ** 2 + sum((a * b, b * c), 1.0)


def numpy_on_python_floats(x, y):
    return float(np.sin(x) * np.exp(y)) + np.sqrt(x * x + y * y)


CASES = [
    Case(add_sub_mul, (rfloat(1), rfloat(2))),
    Case(true_division, (rfloat(3, 0.5, 2.0), rfloat(4, 0.5, 2.0))),
    Case(power_float_exponents, (rfloat(5, 0.5, 2.0), rfloat(6, 0.5, 2.0))),
    Case(power_int_exponent, (rfloat(7), 3), note="int exponent is inactive"),
    Case(unary_ops, (rfloat(8), rfloat(9))),
    Case(floordiv_mod_on_ints, (rfloat(10), 11), note="// and % on an inactive int"),
    Case(mixed_int_literals, (rfloat(11),)),
    Case(rational, (rfloat(12, 0.5, 1.5),)),
    Case(augmented_scalar, (rfloat(13, 0.5, 1.0), rfloat(14, 0.5, 1.0))),
    Case(augmented_with_int, (rfloat(15), 4)),
    Case(math_functions, (rfloat(16, 0.5, 2.0),)),
    Case(math_composed, (rfloat(17), rfloat(18))),
    Case(math_constants, (rfloat(19),)),
    Case(builtin_abs_pow, (rfloat(20, 0.3, 1.0), rfloat(21, -1.0, -0.3)), note="abs away from 0"),
    Case(builtin_abs_pow, (rfloat(22, -1.0, -0.3), rfloat(23, 0.3, 1.0)), tag="neg"),
    Case(builtin_float, (rfloat(24), 5)),
    Case(builtin_min_max, (0.3, -0.4, 0.9), note="distinct values: no ties"),
    Case(builtin_min_max, (0.8, 0.1, -0.6), tag="other-order"),
    Case(builtin_sum, (rfloat(25), rfloat(26), rfloat(27))),
    Case(numpy_on_python_floats, (rfloat(28), rfloat(29))),
]
