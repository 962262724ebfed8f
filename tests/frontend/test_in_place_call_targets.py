"""In-place NumPy calls whose target is an item or view of a variable (`np.add.at(buf[1], ...)`,
`np.multiply(a, c, out=buf[1])`, `np.copyto(lst[0], v)`): written as Python would through
`t = buf[1]` (frontend/lower_writes.py: written_name).  These were refused."""

import numpy as np
import pytest
from write_checks import check_hessian_writes, check_jvp_writes, check_writes


def add_at_into_a_row(x, c):
    buf = np.stack([x, x * 2.0])
    np.add.at(buf[1], [0, 0, 2], c)
    return np.sum(np.sin(buf))


def out_is_a_row(x, c):
    buf = np.stack([x, x * 2.0])
    np.multiply(buf[0], c, out=buf[1])
    return np.sum(np.sin(buf))


def copyto_into_a_list_item(x, c):
    buf = np.stack([x, x * 2.0])
    lst = [buf[0]]
    np.copyto(lst[0], buf[1] * c)
    return np.sum(np.sin(buf))


def out_tuple_of_a_slice(x, c):
    buf = np.stack([x, x * 2.0])
    np.exp(buf[:, 1:], out=(buf[:, :2],))
    return np.sum(np.sin(buf)) * c


def multiply_at_into_a_row(x, c):
    buf = np.stack([x, x * 2.0])
    np.multiply.at(buf[0], [1, 1], c)
    return np.sum(np.sin(buf))


CASES = [add_at_into_a_row, out_is_a_row, copyto_into_a_list_item, out_tuple_of_a_slice,
         multiply_at_into_a_row]
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
