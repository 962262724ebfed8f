"""Methods that modify a list or dict the function created (issue 12): each
item's cotangent must reach the value that was put at its place, after
insert, reverse, pop, remove, sort, extend, del, item and slice assignment,
dict update / setdefault / pop, dict(k=v), views read by sum / max / list,
and item assignment into a copy (which leaves the original alone)."""

import numpy as np

from . import Case, rand


def dict_update_with_a_literal(x):
    d = {"a": x[0]}
    d.update({"b": x[1]})
    return d["a"] * d["b"]


def dict_update_with_keywords(x):
    d = {"a": x[0]}
    d.update(b=x[1], a=x[2] * 2.0)
    return d["a"] * d["b"]


def dict_update_with_another_dict(x):
    d = {"a": x[0], "b": x[2]}
    other = {"b": x[1] * 2.0}
    d.update(other)
    return d["a"] * d["b"]


def dict_of_keywords(x):
    d = dict(a=x[0], b=x[1])  # noqa: C408 -- dict(k=v) is what is tested
    e = dict(d, c=x[2])
    return d["a"] * d["b"] + e["c"] * e["a"]


def dict_setdefault_present_and_missing(x):
    d = {"a": x[0]}
    b = d.setdefault("b", x[1])
    a = d.setdefault("a", x[2])
    return d["a"] + d["b"] * 3.0 + a * b


def sum_of_dict_values(x):
    d = {"a": x[0], "b": x[1] * 2.0}
    return sum(d.values())


def max_of_dict_values(x):
    d = {"a": x[0], "b": x[1] + 5.0}
    return max(d.values())


def list_of_dict_values(x):
    d = {"a": x[0], "b": x[1] * 2.0}
    values = list(d.values())
    return values[1] * 3.0 + values[0]


def dict_items_in_a_loop(x):
    d = {"a": x[0], "b": x[1] * 2.0}
    s = 0.0
    for k, v in d.items():
        s = s + v * v * len(k)
    return s


def dict_pop_used(x):
    d = {"a": x[0], "b": x[1] * 2.0}
    v = d.pop("a")
    w = d.pop("z", x[2])
    return v * 3.0 + sum(d.values()) + w * w


def item_assignment_into_a_copy(x):
    d = {"a": x[0], "b": x[1] * 2.0}
    e = d.copy()
    e["a"] = x[2]
    p = [x[0], x[1]]
    q = p.copy()
    q[0] = x[2] * 5.0
    return d["a"] * e["a"] + e["b"] + p[0] * q[0]


def list_insert_at_the_front(x):
    p = [x[0], x[1]]
    p.insert(0, x[2])
    return p[0] + 2.0 * p[1]


def list_reverse(x):
    p = [x[0], x[1] * 2.0]
    p.reverse()
    return p[0]


def list_pop_used(x):
    p = [x[0], 2.0 * x[1], 3.0 * x[2]]
    v = p.pop()
    w = p.pop(0)
    return v * p[0] + w


def list_pop_unused(x):
    p = [x, 2 * x, 3 * x]
    p.pop()
    return np.sum(p[0]) + np.sum(p[-1] ** 2)


def list_extend_and_remove(x):
    p = [x[0]]
    p.extend([x[1], 2.0, x[2]])
    p.remove(2.0)
    return p[2] * p[0] + p[1]


def list_del_items(x):
    p = [x[0], x[1], x[2], x[0] * x[1]]
    del p[0]
    del p[1:2]
    return p[0] * 2.0 + p[1]


def list_sort_in_place(x):
    p = [x[0], x[1] * 2.0, x[2] * 3.0]
    p.sort()
    return p[0] + 10.0 * p[2]


def list_item_and_slice_assignment(x):
    p = [x[0], x[1], x[2]]
    p[0:2] = [x[2], x[2] * x[1]]
    p[-1] = x[0] * 4.0
    p[1] += x[0]
    return p[0] * p[1] + p[2]


def list_updated_in_a_loop(x):
    p = []
    for v in x:
        p.insert(0, v * v)
    return p[0] + 2.0 * p[2]


def dict_del_and_clear(x):
    d = {"a": x[0], "b": x[1] * 2.0, "c": x[2]}
    del d["a"]
    e = dict(d)
    e.clear()
    e["z"] = x[0] * 5.0
    p = [x[2], x[1]]
    p.clear()
    p.append(x[1] * 7.0)
    return d["b"] * d["c"] + e["z"] + p[0]


def updates_from_iterators(x):
    d = {"a": x[0], "b": x[1]}
    d.update(zip(["a"], [x[2] * 3.0]))  # replaces a: x[0] no longer counts
    p = [x[0], x[1], x[2]]
    p[0:2] = map(lambda v: v * 2.0, [x[1], x[2]])  # noqa: C417 -- map itself is what is tested
    q = [x[0]]
    q.extend(map(lambda v: v * 2.0, [x[1], x[2]]))  # noqa: C417 -- map itself is what is tested
    return d["a"] + d["b"] + p[0] + 10.0 * p[1] + 100.0 * p[2] + q[0] * q[2]


CASES = [
    Case(dict_update_with_a_literal, (rand(3, seed=1301),)),
    Case(dict_update_with_keywords, (rand(3, seed=1302),)),
    Case(dict_update_with_another_dict, (rand(3, seed=1303),)),
    Case(dict_of_keywords, (rand(3, seed=1304),)),
    Case(dict_setdefault_present_and_missing, (rand(3, seed=1305),)),
    Case(sum_of_dict_values, (rand(3, seed=1306),)),
    Case(max_of_dict_values, (rand(3, seed=1307),)),
    Case(list_of_dict_values, (rand(3, seed=1308),)),
    Case(dict_items_in_a_loop, (rand(3, seed=1309),)),
    Case(dict_pop_used, (rand(3, seed=1310),)),
    Case(item_assignment_into_a_copy, (rand(3, seed=1311),)),
    Case(list_insert_at_the_front, (rand(3, seed=1312),)),
    Case(list_reverse, (rand(3, seed=1313),)),
    Case(list_pop_used, (rand(3, seed=1314),)),
    Case(list_pop_unused, (rand(3, seed=1315),)),
    Case(list_extend_and_remove, (rand(3, seed=1316),)),
    Case(list_del_items, (rand(3, seed=1317),)),
    Case(list_sort_in_place, (np.array([0.3, 0.7, 0.05]),)),
    Case(list_item_and_slice_assignment, (rand(3, seed=1318),)),
    Case(list_updated_in_a_loop, (rand(3, seed=1319),)),
    Case(dict_del_and_clear, (rand(3, seed=1320),)),
    Case(updates_from_iterators, (rand(3, seed=1321),)),
]
