"""`c[k][i] = v` and `c[k][i] op= v` with c a variable of the function: Python reads
c[k] once and writes into that object, as `a = c[k]; a[i] = v` does
(frontend/lower.py: item_of_item_store).  These were refused ("item assignment writes
into an object reached through an expression")."""

import numpy as np
import pytest
from write_checks import check_hessian_writes, check_jvp_writes, check_writes

import zygote_py as zp


def list_item_slice_written(x, c):
    buf = x * 1.0
    lst = [buf, 2.0]
    lst[0][1:] = c * lst[0][:2]
    return np.sum(np.sin(buf)) * lst[1]


def dict_item_element_incremented(x, c):
    d = {"a": x * 1.0}
    d["a"][0] += c
    return np.sum(d["a"] ** 2)


def rows_of_a_stack_scaled(x, c):
    m = np.stack([x, x * 2.0])
    rows = [m[0], m[1]]
    rows[1][::2] *= c
    return np.sum(m ** 2)


def three_levels(x, c):
    grid = [[x * 1.0, x * 2.0], [x * 3.0]]
    grid[0][1][2] = c
    return np.sum(grid[0][1] * grid[1][0])


def _set_second(lst, c):
    lst[0][1] = c
    return np.sum(lst[0] ** 2)


def argument_list_item(x, c):
    return _set_second([x * 1.0], c)


CASES = [list_item_slice_written, dict_item_element_incremented, rows_of_a_stack_scaled,
         three_levels, argument_list_item]
X = np.array([0.3, -0.5, 0.9])


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_gradient(f):
    check_writes(f, X, 0.7)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_jvp(f):
    check_jvp_writes(f, X, 0.7)


@pytest.mark.parametrize("f", CASES[:4], ids=lambda f: f.__name__)
def test_hessian(f):
    check_hessian_writes(lambda x: f(x, 1.3), X)


def test_an_argument_lists_array_is_written_for_the_caller():
    a = X.copy()
    grads = zp.gradient(_set_second, [a], 0.7)
    np.testing.assert_array_equal(a, [X[0], 0.7, X[2]])  # as a plain call leaves it
    np.testing.assert_allclose(grads[0][0], [2 * X[0], 0.0, 2 * X[2]])
    assert grads[1] == pytest.approx(1.4)


def test_a_list_inside_a_list_is_refused():
    def f(x, c):
        lst = [[x * 1.0]]
        lst[0][0] = c
        return lst[0][0]

    with pytest.raises(zp.MutationError, match="holds a list updated in place"):
        zp.gradient(f, X, 0.7)
