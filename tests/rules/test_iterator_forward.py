"""Forward mode through list(), tuple(), sorted, list.sort, list item writes, next(), itertools.chain,
itertools.product and itertools.accumulate (rules/jvp_structural.py), and forward mode over the gradient code their
reverse rules run (rules/iterators.py, rules/containers.py: built without writing into
lists), each against central differences: zp.jvp along a random direction, zp.hessian
against differences of reverse-mode gradients."""

import itertools

import numpy as np
import pytest
from write_checks import check_hessian_writes, check_jvp_writes

import zygote_py as zp

X = np.array([0.3, -0.2, 0.5, 0.7])


def sorted_list(x):
    s = sorted([x[0], x[1] * 2, x[2]])
    return s[0] ** 2 * s[2] + s[1] ** 3


def sorted_reverse_of_an_array(x):
    s = sorted(x * x, reverse=True)
    return s[0] * s[1] ** 2 + s[3]


def list_sort(x):
    items = [x[0] * x[1], x[2], x[3] ** 2]
    items.sort()
    return items[0] * items[1] ** 2 + items[2]


def list_item_writes(x):
    items = [x[0], x[1], x[2]]
    items[1] = x[3] ** 2
    items[0:3:2] = [x[1] * x[0], x[2] ** 2]
    return items[0] * items[1] * items[2]


def product_loop(x):
    s = 0.0
    for a, b in itertools.product([x[0], x[1]], [x[2], x[3]]):
        s = s + a * b ** 2
    return s


def product_with_constants(x):
    s = 0.0
    for a, b in itertools.product([x[0], 2.0], [1.0, x[3]]):
        s = s + a * b * b
    return s


def chain_loop(x):
    s = 0.0
    for a in itertools.chain([x[0], x[1] ** 2], (x[2], x[3])):
        s = s + a * a * x[0]
    return s


def accumulate_loop(x):
    s = 0.0
    for a in itertools.accumulate([x[0], x[1] ** 2, x[2]]):
        s = s + a * a * x[3]
    return s


def accumulate_initial(x):
    totals = list(itertools.accumulate((x[1], x[2] * x[0]), initial=x[3]))
    return totals[0] * totals[1] * totals[2] ** 2


def next_items(x):
    it = iter([x[0] * x[1], x[2], x[3] ** 2])
    first = next(it)
    second = next(it)
    rest = 0.0
    for a in it:  # the loop starts where next() left the iterator
        rest = rest + a * first
    return first * second ** 2 + rest + next(it, x[1]) ** 3


def list_and_tuple_of_iterables(x):
    it = iter([x[0] * x[1], x[2], x[3] ** 2])
    next(it)
    rest = tuple(it)  # from where next() left it
    rows = list(np.outer(x[:2], x[2:]))  # an array's rows
    keys = list({"a": x[0]})  # a dict's keys: no tangent
    return rest[0] * rest[1] ** 2 + np.sum(rows[1] * rows[0]) + len(keys)


CASES = [list_and_tuple_of_iterables, sorted_list, sorted_reverse_of_an_array, list_sort, list_item_writes, product_loop,
         product_with_constants, chain_loop, accumulate_loop, accumulate_initial, next_items]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_jvp(f):
    check_jvp_writes(f, X)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_hessian(f):
    check_hessian_writes(f, X)


def test_sorted_keys_of_a_dict_carry_no_tangent():
    """autograd's test_dict.py::test_iter: a loop over sorted(d) reads d[k] in key order."""
    def weighted(d):
        total = 0.0
        for i, k in enumerate(sorted(d)):
            total = total + np.sum(np.sin(d[k])) * (i + 1.0)
        return total

    d = {"b": np.array([0.3, 0.1]), "a": np.array([0.2])}
    t = {"b": np.array([1.0, -2.0]), "a": np.array([0.5])}
    _, dy = zp.jvp(weighted, (d,), (t,))
    assert dy == pytest.approx(0.5 * np.cos(0.2) + 2 * (np.cos(0.3) - 2 * np.cos(0.1)))


def test_sorted_with_a_key():
    def by_key(x):
        s = sorted((x[0], -x[1], x[2] * 3), key=abs)
        return s[0] * 7 + s[1] * 5 + s[2]

    check_jvp_writes(by_key, X)


def test_the_hessian_of_sorted_with_an_itemgetter_key():
    """autograd's test_dict.py::test_items_values_keys: sorted(d.items(), key=itemgetter(0));
    the rule's body computes the sort order (rules/nondiff.py: sort_order), which forward
    mode over the gradient runs as it is."""
    import operator

    def by_name(x):
        items = [("b", x[:2] * x[3]), ("a", np.sin(x[2:]))]
        total = 0.0
        for i, (_, v) in enumerate(sorted(items, key=operator.itemgetter(0))):
            total = total + np.sum(v * v) * (i + 1.0)
        return total

    check_hessian_writes(by_name, X)


def test_an_iterator_source_is_refused_clearly():
    def over_iterator(x):
        it = iter([x[0], x[1]])
        return sum(itertools.chain(it, [x[2]]))

    with pytest.raises(zp.NoDerivativeRule, match="iterator"):
        zp.jvp(over_iterator, (X,), (np.ones(4),))
