"""`c[k] op= v` where c is a list or dict and c[k] an ndarray: Python runs
`c[k] = c[k].__iop__(v)`, which writes the array in place, so every other name holding
it or a view of it sees the new values (frontend/lower_writes.py: augmented_item).
These were silently wrong (the item was rebound to `c[k] op v`, a new array, and the
other names kept the old values) until found by a random view-and-write program hunt."""

import numpy as np
import pytest
from write_checks import check_hessian_writes, check_jvp_writes, check_writes

import zygote_py as zp


def list_item_scaled_seen_by_its_name(x, c):
    buf = x * 1.0
    tmp = [buf]
    tmp[0] += c
    return np.sum(buf ** 2)


def dict_item_scaled_seen_by_its_name(x, c):
    buf = x * 1.0
    d = {"a": buf}
    d["a"] *= c
    return np.sum(buf ** 2)


def dict_item_is_a_view(x, c):
    buf = x * 1.0
    d = {"v": buf[1:]}
    d["v"] *= c
    return np.sum(np.cos(buf)) + np.sum(d["v"])


def list_item_view_of_a_transpose(x, c):
    buf = np.stack([x, 2.0 * x]).T
    tmp = [buf[0]]
    tmp[0] -= c * tmp[0]
    return np.sum(np.sin(buf))


def accumulated_in_a_loop(x, c):
    grads = {"w": np.zeros(3)}
    for i in range(3):
        grads["w"] += x * (i + c)
    return np.sum(grads["w"] ** 2)


def numbers_and_arrays_mixed(x, c):
    acc = [0.0, np.zeros(3)]
    for i in range(2):
        acc[0] += c * i  # a float: rebound
        acc[1] += np.sin(x) * c  # an array: in place
    return acc[0] + np.sum(acc[1] ** 2)


def list_in_a_helper_writes_the_callers_array(x, c):
    buf = x * 1.0
    _scale_first(buf, c)
    return np.sum(buf ** 2)


def _scale_first(b, c):
    items = [b]
    items[0] *= c


CASES = [list_item_scaled_seen_by_its_name, dict_item_scaled_seen_by_its_name,
         dict_item_is_a_view, list_item_view_of_a_transpose, accumulated_in_a_loop,
         numbers_and_arrays_mixed, list_in_a_helper_writes_the_callers_array]
X = np.array([0.3, -0.5, 0.9])


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_gradient(f):
    check_writes(f, X, 1.7)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_jvp(f):
    check_jvp_writes(f, X, 1.7)


@pytest.mark.parametrize("f", [list_item_scaled_seen_by_its_name, accumulated_in_a_loop,
                               dict_item_is_a_view], ids=lambda f: f.__name__)
def test_hessian(f):
    check_hessian_writes(lambda x: f(x, 1.3), X)


def test_the_value_is_the_in_place_one():
    value = zp.withgradient(list_item_scaled_seen_by_its_name, X, 1.7)[0]
    assert value == pytest.approx(np.sum((X + 1.7) ** 2))


def test_a_list_item_that_is_a_list_is_refused():
    # `p[0] += [c]` extends the inner list in place; forward and reverse mode do not
    # follow lists updated in place through another list, so it is refused, not rebound
    def f(x, c):
        p = [[x[0]], [x[1]]]
        p[0] += [c]
        return p[0][0] * p[0][1]

    with pytest.raises(zp.MutationError, match="update this list in place"):
        zp.gradient(f, X, 1.7)


def test_an_object_holding_the_written_array_is_refused():
    # `a.items[0] += v` writes an array the object also holds: refused when the object is
    # written back, never the old values (this gave a wrong gradient before)
    class Acc:
        def __init__(self):
            self.items = [np.zeros(3)]

    def f(x, c):
        a = Acc()
        a.items[0] += x * c
        first = a.items[0]
        a.items[0] *= c
        return np.sum(first ** 2)

    with pytest.raises(zp.MutationError):
        zp.gradient(f, X, 1.7)


def test_the_same_array_at_two_keys():
    # pair[1] is the array pair[0] writes into: it sees the write (once rebound, not)
    def f(x, c):
        y = x * 1.0
        pair = {"p": y, "q": y}
        pair["p"] *= c
        return np.sum(pair["q"] ** 2)

    check_writes(f, X, 1.7)
    check_jvp_writes(f, X, 1.7)
