"""Recursive user functions: on ints, on lists, on nested tuples, mutual
recursion, and 500 calls deep (a Python frame per level, as the function's own)."""

from . import Case, rand, rfloat


def rec_power(x, n):
    if n == 0:
        return 1.0
    return x * rec_power(x, n - 1)


def rec_sum_squares(xs):
    if not xs:
        return 0.0
    return xs[0] ** 2 + rec_sum_squares(xs[1:])


def fast_power(x, n):
    if n == 0:
        return 1.0
    if n % 2 == 0:
        half = fast_power(x, n // 2)
        return half * half
    return x * fast_power(x, n - 1)


def _ping(x, n):
    if n <= 0:
        return x
    return _pong(x * 1.5, n - 1) + x


def _pong(x, n):
    if n <= 0:
        return x * x
    return _ping(x - 0.25, n - 1) * 0.5


def mutual_recursion(x):
    return _ping(x, 5)


def tree_product(t):
    if isinstance(t, tuple):
        return tree_product(t[0]) * tree_product(t[1]) + 0.1
    return t


def rec_horner(coeffs, x, i=0):
    if i == len(coeffs) - 1:
        return coeffs[i]
    return coeffs[i] + x * rec_horner(coeffs, x, i + 1)


def deep_damped(x, n):
    if n == 0:
        return x
    return 0.99 * deep_damped(x, n - 1) + 0.01 * x * x


CASES = [
    Case(rec_power, (rfloat(1), 5)),
    Case(rec_sum_squares, ([rfloat(2), rfloat(3), rfloat(4)],)),
    Case(fast_power, (rfloat(5), 11)),
    Case(mutual_recursion, (rfloat(6),)),
    Case(tree_product, (((rfloat(7), rfloat(8)), (rfloat(9), (rfloat(10), rfloat(11)))),)),
    Case(rec_horner, (rand(5, seed=12), rfloat(13))),
    Case(deep_damped, (rfloat(14), 500), note="500 deep: the forward and backward recurse as deep"),
]
