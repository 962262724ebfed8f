"""for over range (1, 2 and 3 arguments, negative steps), lists, tuples, rows
of arrays, zip, enumerate and reversed; while loops with data-dependent trip
counts; break, continue, loop else, return inside loops; values carried around
loops, including augmented assignment on fresh arrays."""

import math

import numpy as np

from . import Case, rand, rfloat


def range_one_arg(x, n):
    s = 0.0
    for i in range(n):
        s += x**i / (i + 1)
    return s


def range_two_args(x):
    s = 0.0
    for i in range(2, 6):
        s = s + math.sin(i * x)
    return s


def range_negative_step(x):
    s = 0.0
    for i in range(10, 0, -3):
        s = s * x + i
    return s


def range_len_index(a):
    s = 0.0
    for i in range(len(a)):
        s += a[i] * (i + 1)
    return s * s


def range_from_shape(A):
    s = 0.0
    for i in range(A.shape[0] - 1, -1, -1):
        s = s * 0.5 + np.sum(A[i] ** 2)
    return s


def while_growth(x):
    s = x
    n = 0
    while s < 10.0:
        s = s * x
        n += 1
    return s + n * x


def while_halving(x):
    while x > 1.0:
        x = x / 2
    return x**2


def while_on_array_norm(a):
    k = 0
    while np.sum(a**2) > 0.1:
        a = a * 0.7
        k += 1
    return np.sum(a) * k


def for_over_list_arg(xs):
    s = 0.0
    for v in xs:
        s += v * v
    return s


def for_over_tuple_literal(x, y):
    s = 0.0
    for v in (x, y, x * y):
        s = s * 0.5 + v
    return s


def for_over_rows(A):
    s = 0.0
    for row in A:
        s += np.sum(np.tanh(row) ** 2) * 0.5
    return s


def zip_loop(xs, ys):
    s = 0.0
    for a, b in zip(xs, ys):
        s += a * b
    return s


def enumerate_loop(a):
    s = 0.0
    for i, v in enumerate(a):
        s += (i + 1) * v**2
    return s


def reversed_loop(xs):
    s = 0.0
    for v in reversed(xs):
        s = s * 0.5 + v
    return s * s


def break_when_large(x):
    s = 0.0
    for i in range(100):
        s += x**i
        if s > 5.0:
            break
    return s


def continue_on_even(a):
    s = 0.0
    for i in range(len(a)):
        if i % 2 == 0:
            continue
        s += a[i] ** 2
    return s


def loop_else(x, n):
    for i in range(n):
        if x * i > 10.0:
            break
    else:
        x = x * 2.0
    return x * x


def return_inside_loop(a):
    for v in a:
        if v > 0.5:
            return v * 2.0
    return np.sum(a**2)


def nested_loops(A):
    s = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            s += A[i, j] * (i - j)
    return s


def nested_loops_with_break(A):
    s = 0.0
    for row in A:
        for v in row:
            if v < -0.5:
                break
            s += v * v
    return s


def while_break_continue(x):
    s = 1.0
    i = 0
    while i < 10:
        i += 1
        if i == 3:
            continue
        if s > 50.0:
            break
        s = s * x + 1.0
    return s


def tuple_swap_in_loop(x):
    a, b = x, 1.0
    for _ in range(5):
        a, b = b, a + b * 0.5
    return a * b


def fresh_array_augmented(a, w):
    acc = np.zeros_like(a)
    for k in range(3):
        acc += a * w**k
    acc *= 2.0
    acc -= a
    return np.sum(acc**2)


def loop_variable_after_loop(x):
    v = 0.0
    for v in [x, 2 * x, 3 * x]:
        pass
    return v * x


def return_reads_name_bound_in_an_earlier_trip(x, a):
    """y is bound only in the else branch; the first trip runs before it exists."""
    for i in range(3):
        if a[i] > 0.5:
            return x * y + a[i]
        else:
            y = x * a[i] * 2.0
    return y * x


def while_return_reads_name_bound_later(x):
    k = 0
    while k < 4:
        if k == 2:
            return z * x
        else:
            z = np.sin(x) * (k + 1)
        k += 1
    return z


CASES = [
    Case(range_one_arg, (rfloat(1), 5)),
    Case(range_two_args, (rfloat(2),)),
    Case(range_negative_step, (rfloat(3),)),
    Case(range_len_index, (rand(5, seed=4),)),
    Case(range_from_shape, (rand(4, 3, seed=5),)),
    Case(while_growth, (1.7,), note="stops at 14.2, far from 10"),
    Case(while_growth, (3.7,), tag="fewer", note="stops at 13.7"),
    Case(while_halving, (5.3,), tag="three-trips"),
    Case(while_halving, (0.6,), tag="zero-trips"),
    Case(while_on_array_norm, (np.array([0.8, -0.3, 0.55]),)),
    Case(for_over_list_arg, ([rfloat(6), rfloat(7), rfloat(8)],)),
    Case(for_over_tuple_literal, (rfloat(9), rfloat(10))),
    Case(for_over_rows, (rand(3, 4, seed=11),)),
    Case(zip_loop, (rand(4, seed=12), rand(4, seed=13))),
    Case(zip_loop, ([rfloat(14), rfloat(15)], (rfloat(16), rfloat(17))), tag="list-tuple"),
    Case(enumerate_loop, (rand(5, seed=18),)),
    Case(reversed_loop, ([rfloat(19), rfloat(20), rfloat(21), rfloat(22)],)),
    Case(break_when_large, (1.5,), note="breaks at i=3 with s=8.1"),
    Case(break_when_large, (0.5,), tag="no-break", note="s stays below 2"),
    Case(continue_on_even, (rand(6, seed=23),)),
    Case(loop_else, (rfloat(24, 0.5, 1.0), 4), tag="else-runs"),
    Case(loop_else, (rfloat(25, 4.0, 5.0), 4), tag="breaks"),
    Case(return_inside_loop, (np.array([0.1, -0.3, 0.8, 0.2]),), tag="returns-early"),
    Case(return_inside_loop, (np.array([0.1, -0.3, 0.2]),), tag="falls-through"),
    Case(nested_loops, (rand(3, 4, seed=26),)),
    Case(nested_loops_with_break, (np.array([[0.3, -0.8, 0.4], [0.2, 0.6, -0.1]]),)),
    Case(while_break_continue, (2.3,), tag="breaks"),
    Case(while_break_continue, (0.9,), tag="runs-out"),
    Case(tuple_swap_in_loop, (rfloat(27),)),
    Case(fresh_array_augmented, (rand(4, seed=28), rand(4, seed=29))),
    Case(loop_variable_after_loop, (rfloat(30),)),
    Case(return_reads_name_bound_in_an_earlier_trip, (rfloat(31), np.array([0.2, 0.9, 0.1])),
         tag="returns"),
    Case(return_reads_name_bound_in_an_earlier_trip, (rfloat(32), np.array([0.2, 0.3, 0.1])),
         tag="falls-through"),
    Case(while_return_reads_name_bound_later, (rfloat(33),)),
]
