"""codegen/emit.py: closure cells are read where they are used, and a nested def that
captures a variable some path leaves unassigned gets an empty cell for it.

Python's closures bind late: a variable the enclosing function assigns under an `if`
that did not run is only an error if the nested function reads it.  Generated code
must fail no sooner (neither reading the cell at the function's entry nor capturing
the unassigned variable when the nested function is made)."""

import numpy as np
import pytest

import zygote_py as zp

EPS = 1e-6


def fd(f, x):
    return (f(x + EPS) - f(x - EPS)) / (2 * EPS)


def make(x, flag):
    if flag:
        y = x * 2.0
    def inner(z):  # (a def right after the branch is the case)
        if flag:
            return z * y + y * y
        return z
    return inner


def built_and_called(x, flag):
    g = make(x, flag)
    return g(x)


MADE_WITHOUT_Y = make(0.5, False)  # its cell `y` is empty


def calls_a_closure_with_an_empty_cell(x):
    return MADE_WITHOUT_Y(x) * np.sin(x)


def halves(x, n):
    if n <= 0:
        return x  # this path's back never binds the pullbacks of the other path's calls
    return halves(x * 0.5, n - 1)


def loop_over_a_recursive_helper(a):
    acc = 0.3
    k = 0
    while True:
        k += 1
        acc = acc * 0.7 + np.sin(np.sum(a) / (2.0 + np.sin(halves(acc, 3))))
        if k >= 1:
            break
    return acc + np.sum(a * a) * acc


@pytest.mark.parametrize("flag", [True, False])
def test_a_closure_over_a_variable_bound_on_one_path(flag):
    x = 0.3
    (g, _) = zp.gradient(built_and_called, x, flag)
    assert g == pytest.approx(fd(lambda v: built_and_called(v, flag), x), rel=1e-6)


def test_reverse_forward_and_second_order_through_an_empty_cell():
    f, x = calls_a_closure_with_an_empty_cell, 0.3
    (g,) = zp.gradient(f, x)
    assert g == pytest.approx(fd(f, x), rel=1e-6)
    y, t = zp.jvp(f, (x,), (1.0,))
    assert y == pytest.approx(f(x)) and t == pytest.approx(fd(f, x), rel=1e-6)
    h = zp.hessian(f, x)
    assert h == pytest.approx(fd(lambda v: zp.gradient(f, v)[0], x), rel=1e-5)


def reads_the_unassigned_variable(v, flag):
    if flag:
        w = v * 3.0
    def g():
        return w * v
    return make(v, flag)(v) + g()


@pytest.mark.parametrize("flag", [True, False])
def test_reading_the_unassigned_variable_fails_as_in_python(flag):
    f, x = reads_the_unassigned_variable, 0.3
    if flag:
        (g, _) = zp.gradient(f, x, flag)
        assert g == pytest.approx(fd(lambda v: f(v, flag), x), rel=1e-6)
        return
    with pytest.raises(NameError):
        f(x, flag)
    with pytest.raises(NameError, match="'w'"):  # the user's own error, not an internal one
        zp.gradient(f, x, flag)


def test_hessian_of_a_loop_calling_a_recursive_helper():
    # the back of `halves` at n == 0 never binds the cells `_zp_back`, `_zp_back_1` of the
    # other path; forward mode over it read them at its entry (a NameError)
    a = np.array([0.1, -0.2, 0.4])
    f = loop_over_a_recursive_helper
    (g,) = zp.gradient(f, a)
    want = [(f(a + EPS * e) - f(a - EPS * e)) / (2 * EPS) for e in np.eye(3)]
    np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-9)
    h = zp.hessian(f, a)
    rows = [(zp.gradient(f, a + 1e-5 * e)[0] - zp.gradient(f, a - 1e-5 * e)[0]) / 2e-5 for e in np.eye(3)]
    np.testing.assert_allclose(h, np.array(rows), rtol=1e-5, atol=1e-8)
