"""List and dict comprehensions and generator expressions, consumed by
sum(...), np.array(...), np.stack(...), with conditions, nesting, zip,
enumerate, and closing over the function's variables."""

import numpy as np

from . import Case, rand, rfloat


def list_comprehension_sum(xs):
    return sum([v * v for v in xs])


def generator_sum(xs):
    return sum(v**3 for v in xs)


def comprehension_with_condition(xs):
    return sum([v * 2.0 for v in xs if v > 0])


def nested_comprehension(xs, ys):
    return sum([a * b for a in xs for b in ys])


def comprehension_to_np_array(x, w):
    powers = np.array([x**i for i in range(4)])
    return np.sum(powers * w)


def comprehension_to_np_stack(A):
    return np.sum(np.stack([row * 2.0 + row**2 for row in A]) ** 2)


def dict_comprehension(keys, vals):
    d = {k: v**2 for k, v in zip(keys, vals)}
    return d["a"] + d["b"] * 2.0


def generator_over_index(a):
    return sum(a[i] * a[i + 1] for i in range(len(a) - 1))


def comprehension_closes_over(x):
    return sum([x * v for v in range(1, 4)]) * x


def enumerate_in_generator(xs):
    return sum(i * v for i, v in enumerate(xs))


def zip_in_comprehension(a, b):
    return sum([np.sin(u) * v for u, v in zip(a, b)])


def comprehension_of_arrays(W, x):
    layers = [np.tanh(W * k) for k in range(1, 3)]
    return np.sum(np.stack([L @ x for L in layers]))


def max_of_generator(xs):
    return max(v * v for v in xs) + min([v for v in xs])


CASES = [
    Case(list_comprehension_sum, ([rfloat(1), rfloat(2), rfloat(3)],)),
    Case(list_comprehension_sum, (rand(4, seed=4),), tag="array"),
    Case(generator_sum, ([rfloat(5), rfloat(6)],)),
    Case(comprehension_with_condition, ([0.4, -0.7, 1.2, -0.1],)),
    Case(nested_comprehension, ([rfloat(7), rfloat(8)], (rfloat(9), rfloat(10), rfloat(11)))),
    Case(comprehension_to_np_array, (rfloat(12), rand(4, seed=13))),
    Case(comprehension_to_np_stack, (rand(3, 2, seed=14),)),
    Case(dict_comprehension, (("a", "b"), [rfloat(15), rfloat(16)])),
    Case(generator_over_index, (rand(5, seed=17),)),
    Case(comprehension_closes_over, (rfloat(18),)),
    Case(enumerate_in_generator, ([rfloat(19), rfloat(20), rfloat(21)],)),
    Case(zip_in_comprehension, (rand(3, seed=22), rand(3, seed=23))),
    Case(comprehension_of_arrays, (rand(2, 3, seed=24), rand(3, seed=25))),
    Case(max_of_generator, ([0.3, -0.9, 0.6],), note="no ties"),
]
