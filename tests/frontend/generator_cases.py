"""Generator expressions used as values (test_generator_expressions.py)."""

import numpy as np


def next_of_a_generator(x):
    at = next(i for i, v in enumerate([1.0, 2.0, 3.0]) if v > 1.5)
    return x * at + next(v for v in [x, 2 * x])


def next_then_the_rest(x):
    g = (v * v for v in x)
    first = next(g)
    return 10.0 * first + sum(g)


def summed_twice(x):
    g = (v * v for v in x)
    return sum(g) + sum(g)  # the second sum reads nothing


def read_twice(g):
    return sum(g) + sum(g)


def passed_to_a_function(x):
    return read_twice(v * v for v in x)


def read_once(g):
    return sum(g)


def straight_into_calls(x):
    return read_once(v * v for v in x) + np.sum(np.array(list(np.sin(v) for v in x)))  # noqa: C400
