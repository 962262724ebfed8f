"""Iterators and iterator builtins as values (issue 12): zip, enumerate,
reversed, iter/next, map, filter, sorted and itertools' chain, product and
accumulate, bound to names, passed around, read by list/sum/max and by loops,
read twice (the second pass is empty, as in Python), partly read by `next` or a
loop with `break` and then read on from where they stopped."""

import itertools

import numpy as np

from . import Case, rand


def zip_of_starred_pairs(x):
    pairs = [(x[0], x[1]), (x[2], x[0] * 2.0)]
    s = 0.0
    for a, b in zip(*pairs):
        s = s + a * b
    return s


def zip_bound_to_a_name(x):
    z = zip(x, x * 2.0)
    s = 0.0
    for a, b in z:
        s = s + a * b
    return s


def list_of_zip(x):
    pairs = list(zip(x, x * 2.0))
    return pairs[1][0] * pairs[2][1]


def enumerate_bound_to_a_name(x):
    e = enumerate(x)
    s = 0.0
    for i, v in e:
        s = s + i * v * v
    return s


def enumerate_start_keyword(x):
    s = 0.0
    for i, v in enumerate(x, start=1):
        s = s + i * v
    return s


def generator_over_list_of_reversed(x):
    return sum(a * a * k for a, k in zip(list(reversed(x)), [1.0, 2.0, 3.0]))


def reversed_bound_to_a_name(x):
    r = reversed([x[0], x[1] * 3.0])
    first = next(r)
    return first * 2.0 + sum(r)


def _square(a):
    return a * a


def map_of_a_module_function(x):
    return sum(map(_square, x))


def map_of_a_lambda_over_two_lists(x):
    return sum(map(lambda a, b: a * b, [x[0], x[1]], [x[2], x[0]]))


def filter_with_a_lambda(x):
    return sum(filter(lambda a: a > 0.0, [x[0], x[1] - 5.0, x[2]]))


def sorted_floats(x):
    s = sorted([x[0], x[1] * 2.0, x[2] * 3.0])
    return s[0] * 1.0 + s[1] * 10.0 + s[2] * 100.0


def sorted_with_key_and_reverse(x):
    s = sorted([x[0], x[1] * 2.0, x[2] * 3.0], key=lambda v: v * v, reverse=True)
    return s[0] * 1.0 + s[1] * 10.0 + s[2] * 100.0


def iter_and_next(x):
    it = iter([x[0], x[1], x[2]])
    a = next(it)
    b = next(it)
    return a * 2.0 + b * 3.0


def next_then_loop_over_the_rest(x):
    it = iter(x * 2.0)
    first = next(it)
    s = 0.0
    for v in it:
        s = s + v * first
    return s


def next_with_a_default(x):
    it = iter([x[0]])
    a = next(it)
    b = next(it, x[1] * 5.0)
    return a * b


def iterator_read_twice(x):
    z = zip(x, x)
    s = 0.0
    for a, b in z:
        s = s + a * b
    for a, b in z:  # an exhausted iterator: no iterations
        s = s + 100.0 * a * b
    return s


def loop_with_break_then_the_rest(x):
    it = iter([x[0], x[1] * 2.0, x[2] * 3.0])
    s = 0.0
    for v in it:
        s = s + v
        break
    for v in it:  # goes on after the item the first loop stopped at
        s = s + v * v
    return s


def _total(items):
    s = 0.0
    for v in items:
        s = s + v * v
    return s


def iterator_passed_to_a_helper(x):
    return _total(map(_square, x)) + _total(iter([x[0], x[1] * 2.0]))


def chain_of_lists(x):
    return sum(v * v for v in itertools.chain([x[0], x[1]], [x[2]]))


def product_of_small_lists(x):
    s = 0.0
    for a, b in itertools.product([x[0], x[1]], [x[2], 2.0]):
        s = s + a * b
    return s


def accumulate_running_total(x):
    acc = list(itertools.accumulate([x[0], x[1], x[2]]))
    return acc[2] * acc[1]


def unused_list_still_reads_the_iterator(x):
    z = zip(x, x * 3.0)
    rest = list(z)  # noqa: F841 -- unused, but it reads z to the end
    s = 0.0
    for a, b in z:  # nothing left
        s = s + a * b
    return s + np.sum(x * x)


def builtin_under_another_name(x):
    backwards = reversed  # the object decides, not the name
    count = enumerate
    s = 0.0
    for i, v in count(backwards([x[0], x[1] * 2.0, x[2]])):
        s = s + (i + 1.0) * v
    return s


def zip_of_an_array_and_a_dict_view(x):
    d = {"a": x[0] * 2.0, "b": x[1]}
    s = 0.0
    for row, v in zip(x, d.values()):
        s = s + row * v
    return s


def dict_of_zip(x):
    d = dict(zip(["a", "b"], [x[0], x[1] * 2.0]))
    return d["a"] * d["b"]


def dict_of_enumerate(x):
    d = dict(enumerate(x))
    return d[1] * 3.0 + d[2] * d[0]


def enumerate_of_zip_after_next(x):
    z = zip(x, x * 2.0)
    first = next(z)
    s = first[0]
    for i, (a, b) in enumerate(z):
        s = s + (i + 1) * a * b
    return s


def zip_header_over_a_started_iterator(x):
    it = iter(x)
    next(it)
    s = 0.0
    for a, b in zip(it, [1.0, 2.0]):
        s = s + a * b
    return s


def tuple_of_map(x):
    t = tuple(map(lambda v: v * v, x))  # noqa: C417 -- map itself is what is tested
    return t[2] + t[0]


def sorted_dict_items(x):
    d = {"b": x[0], "a": x[1]}
    pairs = sorted(d.items())
    return pairs[0][1] * 2.0 + pairs[1][1]


def min_of_zip_with_a_key(x):
    return min(zip(x, [3.0, 1.0, 2.0]), key=lambda t: t[1])[0]


def next_with_none_in_a_while_loop(x):
    it = iter([x[0], x[1] * 2.0, x[2]])
    v = next(it, None)
    s = 0.0
    while v is not None:
        s = s + v * v
        v = next(it, None)
    return s


def comprehensions_over_one_iterator(x):
    z = map(lambda v: v * 3.0, x)  # noqa: C417 -- map itself is what is tested
    first = [v for v in z]
    second = [v for v in z]  # z is used up: empty
    return sum(first) + len(second)


def pairs_from_one_iterator(x):
    it = iter([x[0], x[1] * 2.0, x[2], x[0] * x[1]])
    s = 0.0
    for a, b in list(zip(it, it)):  # consecutive items pair up
        s = s + a * b * b
    return s


CASES = [
    Case(zip_of_starred_pairs, (rand(3, seed=1201),)),
    Case(zip_bound_to_a_name, (rand(3, seed=1202),)),
    Case(list_of_zip, (rand(3, seed=1203),)),
    Case(enumerate_bound_to_a_name, (rand(3, seed=1204),)),
    Case(enumerate_start_keyword, (rand(3, seed=1205),)),
    Case(generator_over_list_of_reversed, (rand(3, seed=1206),)),
    Case(reversed_bound_to_a_name, (rand(2, seed=1207),)),
    Case(map_of_a_module_function, (rand(3, seed=1208),)),
    Case(map_of_a_lambda_over_two_lists, (rand(3, seed=1209),)),
    Case(filter_with_a_lambda, (rand(3, seed=1210, low=0.5, high=1.0),)),
    Case(sorted_floats, (np.array([0.3, 0.7, 0.05]),)),
    Case(sorted_with_key_and_reverse, (np.array([0.3, 0.7, 0.05]),)),
    Case(iter_and_next, (rand(3, seed=1211),)),
    Case(next_then_loop_over_the_rest, (rand(3, seed=1212),)),
    Case(next_with_a_default, (rand(2, seed=1213),)),
    Case(iterator_read_twice, (rand(3, seed=1214),)),
    Case(loop_with_break_then_the_rest, (rand(3, seed=1215),)),
    Case(iterator_passed_to_a_helper, (rand(3, seed=1216),)),
    Case(chain_of_lists, (rand(3, seed=1217),)),
    Case(product_of_small_lists, (rand(3, seed=1218),)),
    Case(accumulate_running_total, (rand(3, seed=1219),)),
    Case(unused_list_still_reads_the_iterator, (rand(3, seed=1220),)),
    Case(builtin_under_another_name, (rand(3, seed=1221),)),
    Case(zip_of_an_array_and_a_dict_view, (rand(3, seed=1222),)),
    Case(dict_of_zip, (rand(3, seed=1223),)),
    Case(dict_of_enumerate, (rand(3, seed=1224),)),
    Case(enumerate_of_zip_after_next, (rand(3, seed=1225),)),
    Case(zip_header_over_a_started_iterator, (rand(3, seed=1226),)),
    Case(tuple_of_map, (rand(3, seed=1227),)),
    Case(sorted_dict_items, (rand(3, seed=1228),)),
    Case(min_of_zip_with_a_key, (rand(3, seed=1229),)),
    Case(next_with_none_in_a_while_loop, (rand(3, seed=1230),)),
    Case(comprehensions_over_one_iterator, (rand(3, seed=1231),)),
    Case(pairs_from_one_iterator, (rand(3, seed=1232),)),
]
