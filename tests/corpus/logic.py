"""Comparisons (chained too), `and` / `or` / `not` with Python's value
semantics, conditional expressions, `is None`, isinstance, all / any."""

import numpy as np

from . import Case, rfloat


def chained_comparison(x):
    if 0 < x < 1:
        return x**2
    return x**3


def comparison_as_number(x, y):
    return (x < y) * x + (x >= y) * y**2


def comparison_operators(x, y):
    s = 0.0
    if x == x:  # noqa: PLR0124
        s += x
    if x != y:
        s += y * x
    if x <= y:
        s += 2.0 * y
    if x > y:
        s -= x * x
    return s


def or_value(x, b, k):
    y = (x * k) or b  # x * k is exactly 0.0 when k == 0, whatever x
    return y * y + x


def and_value(x, b, k):
    y = (x * k) and b
    return y + x * b


def or_default_float(x, scale):
    s = scale or 2.0
    return s * x


def not_operator(x, flag):
    if not flag:
        x = x * 3.0
    if not (x > 5.0):
        return x**2
    return -x


def conditional_expression(x, y):
    return x * y if x > y else x - y


def nested_conditional_expression(x):
    return x if x > 1 else (x**2 if x > 0 else -x)


def is_none_default(x, scale=None):
    if scale is None:
        scale = 2.0
    return x * scale


def isinstance_dispatch(x, n):
    if isinstance(n, int):
        return x * n
    return x


def all_any_builtins(x, y):
    if all([x > 0, y > 0]) and not any([x > 5, y > 5]):
        return x * y
    return x + y


def boolean_array_logic(a):
    mask = (a > 0) & (a < 0.5)
    return np.sum(a * mask) + np.sum(a**2 * (~mask))


CASES = [
    Case(chained_comparison, (0.4,), tag="inside"),
    Case(chained_comparison, (1.7,), tag="outside"),
    Case(comparison_as_number, (0.2, 0.9), tag="lt"),
    Case(comparison_as_number, (0.9, 0.2), tag="ge"),
    Case(comparison_operators, (0.3, 0.8), tag="lt"),
    Case(comparison_operators, (0.8, 0.3), tag="gt"),
    Case(or_value, (rfloat(1), rfloat(2), 0), tag="falsy", wrt=(0, 1),
         note="`or` returns b; k == 0 is where x * k turns falsy: no finite difference"),
    Case(or_value, (rfloat(3), rfloat(4), 2), tag="truthy", note="`or` returns x*k"),
    Case(and_value, (rfloat(5), rfloat(6), 0), tag="falsy", wrt=(0, 1),
         note="`and` returns x*k; k == 0 is where x * k turns falsy: no finite difference"),
    Case(and_value, (rfloat(7), rfloat(8), 3), tag="truthy", note="`and` returns b"),
    Case(
        or_default_float,
        (rfloat(9), 0.0),
        wrt=(0,),
        tag="zero",
        note="0.0 is falsy; its truthiness is not smooth, so only x is checked",
    ),
    Case(or_default_float, (rfloat(10), 1.5), tag="nonzero"),
    Case(not_operator, (1.2, False), tag="not-false"),
    Case(not_operator, (1.2, True), tag="not-true"),
    Case(not_operator, (2.5, False), tag="big"),
    Case(conditional_expression, (0.7, 0.2), tag="true"),
    Case(conditional_expression, (0.2, 0.7), tag="false"),
    Case(nested_conditional_expression, (1.5,), tag="a"),
    Case(nested_conditional_expression, (0.5,), tag="b"),
    Case(nested_conditional_expression, (-0.5,), tag="c"),
    Case(is_none_default, (rfloat(11),), tag="default"),
    Case(is_none_default, (rfloat(12), 3.0), tag="given"),
    Case(isinstance_dispatch, (rfloat(13), 3), wrt=(0,),
         note="the int n takes the isinstance branch, which a float perturbation would not"),
    Case(all_any_builtins, (0.6, 1.3), tag="all"),
    Case(all_any_builtins, (-0.6, 1.3), tag="not-all"),
    Case(
        boolean_array_logic,
        (np.array([-0.7, -0.2, 0.1, 0.3, 0.45, 0.8, 0.95, -0.35]),),
        note="no element near 0 or 0.5",
    ),
]
