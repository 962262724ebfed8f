"""A list, tuple or dict that holds an array (or views of it) sees a later write into
that array, as in Python (runtime/writes.py: view_writeback and its cotangents for
containers; runtime/forward_writes.py: _held_writeback_tangent).  These were refused
("'z' shares memory with an array written after it was made")."""

import numpy as np
import pytest
from write_checks import check_hessian_writes, check_jvp_writes, check_writes

import zygote_py as zp


def list_sees_augmented_name(x, c):
    y = x * 1.0
    z = [y]
    y += c
    return np.sum(z[0] ** 2)


def tuple_sees_slice_write(x, c):
    y = x * 1.0
    t = (y, 2.0)
    y[1:] *= c
    return np.sum(t[0] ** 2) * t[1]


def nested_views_in_a_dict_and_tuple(x, c):
    y = x * 1.0
    z = [y, (2.0, y[1:]), {"a": y[::-1], "b": c}]
    y[1] *= c
    return (np.sum(z[0] ** 2) + np.sum(np.sin(z[1][1])) * z[1][0]
            + np.sum(z[2]["a"] * x) * z[2]["b"])


def same_array_twice_written_through_one_item(x, c):
    y = x * 1.0
    pair = [y, y]
    pair[0] *= c
    return np.sum(pair[1] * pair[0]) + np.sum(y)


def written_in_a_loop(x, c):
    y = x * 1.0
    history = [y]
    for i in range(3):
        y[i] = y[i] * c + 0.1 * i
    return np.sum(np.cos(history[0]))


CASES = [list_sees_augmented_name, tuple_sees_slice_write, nested_views_in_a_dict_and_tuple,
         same_array_twice_written_through_one_item, written_in_a_loop]
X = np.array([0.3, -0.5, 0.9])


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_gradient(f):
    check_writes(f, X, 0.7)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_jvp(f):
    check_jvp_writes(f, X, 0.7)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_hessian(f):
    check_hessian_writes(lambda x: f(x, 1.3), X)


def test_the_values_are_pythons():
    assert zp.withgradient(same_array_twice_written_through_one_item, X, 0.7)[0] == \
        pytest.approx(same_array_twice_written_through_one_item(X.copy(), 0.7))
