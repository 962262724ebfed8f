"""Functions whose map(), filter() and generator expressions must compute each item when
it is read, as Python does (test_iterator_semantics.py); the effects they have are
recorded in LOG, which the tests clear."""

import collections.abc
import itertools
import math
import types

import numpy as np

LOG = []


class Counter:
    def __init__(self):
        self.calls = 0


COUNTER = Counter()


def logged(v):
    LOG.append(v)
    return v


def checked_log(v):
    assert v > 0, "only positive values"
    return math.log(v)


def strictly_positive(v):
    if v <= 0:
        raise ValueError("not positive")
    return v


def counted(v):
    COUNTER.calls += 1
    return v


def square(v):
    return v * v


def repeated_square(v, n):
    return v if n == 0 else repeated_square(v, n - 1) * v / v


def repeated_counted(v, n):
    return counted(v) if n == 0 else repeated_counted(v, n - 1)


# -- a for loop reads the iterator: each item is computed where the loop reads it -----
def first_of_a_logged_map(x):
    for y in map(lambda v: (LOG.append(v), v * x)[1], [1.0, 2.0, 3.0]):
        return y


def loop_over_a_filter_and_a_two_source_map(x):
    t = 0.0
    for a in filter(lambda v: v > 1.5, [1.0, 2.0, 3.0]):
        t = t + a * x
    for a, b in map(lambda u, w: (u * x, w), [1.0, 2.0], [3.0, 4.0, 5.0]):
        t = t + a * b * x
    for a in filter(None, [0.0, x, 0.0, 2.0 * x]):
        t = t + a * a
    return t


def generator_loop_with_break_and_else(x):
    t = 0.0
    for y in (logged(v) * x for v in [1.0, 2.0, 3.0, 4.0] if v != 2.0):
        if y > 2.5 * x:
            break
        t = t + y * y
    else:
        t = -1.0
    return t


def generator_variable_stays_in_its_scope(x):
    v = 10.0
    t = 0.0
    for y in (v * x for v in [1.0, 2.0]):
        t = t + y * v  # the function's own v
    return t + v


def printing_map(x):
    for y in map(lambda v: (print("item", v), v * x)[1], [1.0, 2.0, 3.0]):
        if y > 1.5 * x:
            return y * y
    return 0.0


def random_map(x):
    for y in map(lambda v: v * x + np.random.normal(), [1.0, 2.0, 3.0]):
        return y


def counting_map(x):
    for y in map(counted, [x, 2.0 * x, 3.0 * x]):
        if y > 1.5 * x:
            return y * x
    return 0.0


def record(seen, v):
    seen.append(v)
    return v


def appending_to_an_argument(x, seen):
    for y in map(lambda v: record(seen, v) * x, [1.0, 2.0, 3.0]):
        if y > 1.5 * x:
            return y
    return 0.0


def log_of_items_never_read(x):
    for y in (math.log(v) + x for v in [2.0, 0.0]):
        return y * x


def assert_on_items_never_read(x):
    for y in map(checked_log, [2.0, -1.0]):
        return y * x


def user_raise_on_items_never_read(x):
    for y in map(strictly_positive, [x, -x]):
        return y * y


def count_read_partly(x):
    for y in map(lambda i: i * x, itertools.count(1)):
        if y > 3.5 * x:
            return y * y
    return 0.0


def nested_fusions(x):
    t = 0.0
    for y in map(lambda u: u * x, (logged(v) + 1.0 for v in [1.0, 2.0, 3.0])):
        t = t + y
        if t > 4.0 * x:
            break
    return t


# -- any(), all(), next() stop at the item that decides ----------------------------------
def next_skips_a_division_by_zero(x):
    return next(1.0 / v * x for v in [1.0, 0.0])


def any_and_all_short_circuit(x):
    has_big = any(logged(v) > 1.5 for v in [1.0, 2.0, 3.0])  # stops at 2.0
    all_small = all(logged(v) < 1.5 for v in [1.0, 2.0, 3.0])  # stops at 2.0
    bounded = all(math.log(v) < 5.0 for v in [2.0, 200.0, 0.0])  # stops before log(0)
    return x * has_big + x * x * (not all_small) + x * (not bounded) \
        + next((v * x for v in [1.0, 2.0] if v > 5.0), 7.0)


def next_of_a_map_and_a_filter(x):
    return next(map(lambda v: v * x, [3.0, 0.0])) + next(filter(lambda v: v > 2.0, [1.0, x * 2.0, 9.0]))


def next_of_an_empty_generator(x):
    return next(v * x for v in [])


# -- kept for later: computed ahead where that cannot be told apart -------------------------
def kept_pure_map(x):
    it = map(square, [x, 2.0 * x, 3.0 * x])
    first = next(it)
    return first + sum(it)


def kept_pure_recursive(x):
    it = map(lambda v: repeated_square(v, 3), [x, 2.0 * x])
    return next(it) * 2.0 + next(it)


def kept_pure_generator_zipped(x):
    t = 0.0
    for i, y in zip(range(3), (v * x for v in [1.0, 2.0, 3.0, 4.0])):
        t = t + i * y
    return t


def ordinary_pure_code(x):
    xs = [x, 2.0 * x, -3.0 * x]
    ys = [1.0, x, 2.0]
    total = sum(map(np.sin, xs)) + sum(list(map(lambda a, b: a * b, xs, ys)))
    total = total + max(abs(v) for v in xs)
    for a in map(square, xs):
        total = total + a
    return total


def kept_logged_map(x):
    it = map(lambda v: (LOG.append(v), v * x)[1], [1.0, 2.0, 3.0])
    for y in it:
        return y


def kept_map_of_a_function_with_an_effect(x):
    it = map(counted, [x, 2.0 * x])
    return next(it)


def kept_map_of_a_recursive_function_with_an_effect(x):
    it = map(lambda v: repeated_counted(v, 2), [x, 2.0 * x])
    return next(it)


def kept_generator_dividing_by_zero(x):
    it = (1.0 / v * x for v in [1.0, 0.0])
    return next(it)


def drained_source(x):
    it = iter([x, 2.0 * x, 3.0 * x])
    m = map(square, it)
    a = next(it)
    return a + next(m)


def zip_of_a_generator_read_partly(x):
    return sum(a * b for a, b in zip([1.0, 2.0], (logged(v) * x for v in [3.0, 4.0, 5.0])))


# -- types -------------------------------------------------------------------------------
def isinstance_of_iterators(x):
    xs = [x, 2.0 * x]
    z = zip(xs, xs)
    checks = [isinstance(z, zip), isinstance(iter(z), zip), isinstance(enumerate(xs), enumerate),
              isinstance(map(abs, xs), map), isinstance(filter(None, xs), filter),
              isinstance(reversed((x, x)), reversed), not isinstance(reversed(xs), reversed),
              isinstance(itertools.chain(xs, xs), itertools.chain),
              isinstance(itertools.product(xs, xs), itertools.product),
              isinstance(itertools.accumulate(xs), itertools.accumulate),
              isinstance(itertools.starmap(pow, [(x, 2.0)]), itertools.starmap),
              type(z).__name__ == "zip", type(v * x for v in xs).__name__ == "generator",
              type(iter(xs)).__name__ == "list_iterator"]
    return x * sum(checks) * checks.count(True)


def types_of_iterators(x):
    xs = [x, 2.0 * x]
    g = (v * x for v in xs)
    checks = [type(zip(xs, xs)) is zip, type(map(abs, xs)) is map, type(g) is types.GeneratorType,
              isinstance(g, types.GeneratorType), isinstance(g, collections.abc.Generator),
              isinstance(iter(xs), type(iter([]))), isinstance(g, (int, types.GeneratorType)),
              not isinstance(iter(xs), types.GeneratorType), type(xs) is list,
              isinstance(g, collections.abc.Iterator), type_of_a_parameter(enumerate(xs)) is enumerate]
    return x * sum(checks) * checks.count(True) + sum(g)


def type_of_a_parameter(it):
    return type(it)


def isinstance_of_a_zip(x):
    return x * isinstance(zip([1], [2]), zip)


class Meter:
    def __init__(self):
        self.readings = 0

    def read(self, v):
        self.readings += 1
        return v


METER = Meter()


def kept_generator_of_array_methods(x):
    rows = [np.array([x, 2.0 * x]), np.array([3.0, x * x])]
    sums = (r.sum() * r.max() for r in rows)
    first = next(sums)
    return first * next(sums) + next(iter((v.conjugate() for v in [x])))


def kept_generator_of_a_users_method(x):
    readings = (METER.read(v) for v in [x, 2.0 * x])
    return next(readings)


def any_in_a_while_condition(x):
    t = x
    k = 0
    while any(v * t < 3.0 for v in [1.0, 2.0]) and k < 10:
        t = t * 1.5
        k += 1
    return t


def readings_inside_expressions(x):
    c = x > 0 and any(math.log(v) > 0.5 for v in [2.0, 0.0])
    g = lambda s: next(s * v for v in [2.0, 0.0])  # noqa: E731
    rows = [[x, 2 * x], [3 * x, 0.1]]
    m = [any(v > 1.0 for v in row) * sum(row) for row in rows]
    return x * c + g(x) + sum(m) + (all(v > 0 for v in map(lambda q: q * x, [1.0, -1.0])) or x * x)


def kept_generator_over_a_bad_source(x):
    g = (v * x for v in x)  # Python's TypeError when the generator is made
    return next(g)


def enumerate_of_a_logged_filter(x):
    t = 0.0
    for i, y in enumerate(filter(lambda v: logged(v) > 1.5, [1.0, 2.0, 3.0, 4.0]), 1):
        if i > 2:
            break
        t = t + i * y * x
    for i, y in enumerate(logged(v) * x for v in [5.0, 6.0, 7.0]):
        if i == 1:
            continue
        t = t + y * y
        if i == 2:
            break
    return t
