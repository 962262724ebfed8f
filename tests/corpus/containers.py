"""Tuples, lists and dicts: as arguments (gradients mirror their structure),
literals, indexing, unpacking (nested and starred), swaps, lists built with
append / extend and stacked, dicts built by item assignment, `in`, len."""

import numpy as np

from . import Case, rand, rfloat


def tuple_argument(t):
    a, b = t
    return a * b + a


def list_argument(xs):
    return xs[0] * xs[1] - xs[-1] ** 2


def dict_argument(d):
    return d["w"] * d["x"] + d["b"]


def dict_with_inactive_values(d):
    return d["w"] ** d["n"] + len(d["name"]) * d["w"]


def tuple_with_int_entry(t):
    n, x = t
    return x * n + x**2


def nested_containers(p, x):
    W, b = p["layer"]
    return np.sum(np.tanh(W @ x + b)) * p["scale"]


def list_of_arrays(arrs):
    s = 0.0
    for a in arrs:
        s += np.sum(a**2)
    return s * np.sum(arrs[0])


def tuple_literal(x):
    t = (x, x * 2.0, x * 3.0)
    return t[1] + t[-1] * t[0]


def list_literal(x, y):
    ys = [x, y, x * y]
    return ys[0] * ys[2] + len(ys) * ys[1]


def dict_literal(x, y):
    d = {"a": x, "b": y, 1: x * y}
    return d["a"] / d["b"] + d[1]


def dict_item_assignment(x, y):
    d = {}
    d["a"] = x * 2
    d["b"] = np.sin(y)
    d["a"] = d["a"] + y
    return d["a"] * d["b"]


def dict_membership_and_get(d):
    s = d["x"] * 2.0
    if "y" in d:
        s = s + d["y"] ** 2
    return s + d.get("z", 1.0) * d["x"]


def dict_items_loop(d):
    s = 0.0
    for k, v in d.items():
        s += v * len(k)
    for v in d.values():
        s += v * v
    for k in d.keys():  # noqa: SIM118 -- .keys() is the point
        s += d[k]
    return s


def append_then_stack(x, W):
    hs = []
    h = x
    for _ in range(3):
        h = np.tanh(W @ h)
        hs.append(h)
    return np.sum(np.stack(hs))


def append_floats_then_sum(x):
    vals = []
    for i in range(4):
        vals.append(x**i)
    return sum(vals)


def extend_list(x, y):
    xs = [x]
    xs.extend([x * 2.0, y])
    xs.extend((y * y,))
    return xs[0] * xs[1] + xs[2] * xs[3]


def starred_unpack_tail(xs):
    a, *rest = xs
    return a * sum(rest)


def starred_unpack_middle(x, y, z, w):
    first, *mid, last = (x, y, z, w)
    return first * last + mid[0] * mid[1]


def nested_unpack(x, y, z):
    (a, b), c = (x, y), z
    return a * b * c + b


def swap(x, y):
    a, b = x, y
    a, b = b, a * 2.0
    return a**2 * b


def concat_tuples_and_lists(x, y):
    t = (x,) + (y, x * y)
    ys = [x] * 2 + [y]
    return t[2] * ys[1] + t[0] * ys[2]


def list_slice(xs):
    head = xs[:2]
    tail = xs[2:]
    return head[0] * head[1] + sum(tail)


CASES = [
    Case(tuple_argument, ((rfloat(1), rfloat(2)),)),
    Case(list_argument, ([rfloat(3), rfloat(4), rfloat(5)],)),
    Case(dict_argument, ({"w": rfloat(6), "x": rfloat(7), "b": rfloat(8)},)),
    Case(dict_with_inactive_values, ({"w": rfloat(9, 0.5, 1.0), "n": 3, "name": "abc"},)),
    Case(tuple_with_int_entry, ((2, rfloat(10)),)),
    Case(
        nested_containers,
        ({"layer": (rand(2, 3, seed=11), rand(2, seed=12)), "scale": 1.5}, rand(3, seed=13)),
    ),
    Case(list_of_arrays, ([rand(3, seed=14), rand(2, 2, seed=15)],)),
    Case(tuple_literal, (rfloat(16),)),
    Case(list_literal, (rfloat(17), rfloat(18))),
    Case(dict_literal, (rfloat(19), rfloat(20, 0.5, 1.0))),
    Case(dict_item_assignment, (rfloat(21), rfloat(22))),
    Case(dict_membership_and_get, ({"x": rfloat(23), "y": rfloat(24)},), tag="with-y"),
    Case(dict_membership_and_get, ({"x": rfloat(25), "z": rfloat(26)},), tag="with-z"),
    Case(dict_items_loop, ({"a": rfloat(27), "bcd": rfloat(28)},)),
    Case(append_then_stack, (rand(3, seed=29), rand(3, 3, seed=30))),
    Case(append_floats_then_sum, (rfloat(31),)),
    Case(extend_list, (rfloat(32), rfloat(33))),
    Case(starred_unpack_tail, ([rfloat(34), rfloat(35), rfloat(36)],)),
    Case(starred_unpack_middle, (rfloat(37), rfloat(38), rfloat(39), rfloat(40))),
    Case(nested_unpack, (rfloat(41), rfloat(42), rfloat(43))),
    Case(swap, (rfloat(44), rfloat(45))),
    Case(concat_tuples_and_lists, (rfloat(46), rfloat(47))),
    Case(list_slice, ([rfloat(48), rfloat(49), rfloat(50), rfloat(51)],)),
]
