"""Lists of objects that add with their own methods.  `sum(objs)` and NumPy functions of a
list of objects (`np.sum([a, b])`, which makes an object array, `np.add.reduce([a, b])`)
apply the objects' own `__add__`, which need not be addition: the rules' "each item gets
g" once gave silently wrong gradients (1.0 where 2.0 is right).  They are refused now, in
reverse and forward mode, while lists of numbers, arrays and NamedTuples keep their rules
and loops written out (or `functools.reduce`) are differentiated through the methods."""

import functools
import operator
from typing import NamedTuple

import numpy as np
import pytest
from derivative_checks import assert_hessian, fd_gradient

import zygote_py as zp

X = np.array([0.7, -0.4, 1.3, 0.25])


class Weighted:
    """`+` is not addition: the right operand counts twice, a number on the left thrice."""

    def __init__(self, v):
        self.v = v

    def __add__(self, other):
        return Weighted(self.v + 2.0 * (other.v if isinstance(other, Weighted) else other))

    def __radd__(self, other):
        return Weighted(3.0 * self.v + other)


class Point(NamedTuple):
    a: float
    b: float


def builtin_sum(x):
    return sum([Weighted(x[0]), Weighted(x[1]), Weighted(x[2])]).v


def builtin_sum_start(x):
    return sum([Weighted(x[0]), Weighted(x[1])], Weighted(x[3])).v


def numpy_sum(x):
    return np.sum([Weighted(x[0]), Weighted(x[1])]).v


def ufunc_reduce(x):
    return np.add.reduce([Weighted(x[0]), Weighted(x[1])]).v


def object_array(x):
    return np.cumsum(np.array([Weighted(x[0]), Weighted(x[1])], dtype=object))[-1].v


REFUSED = [builtin_sum, builtin_sum_start, numpy_sum, ufunc_reduce, object_array]


def reduced(x):
    return functools.reduce(operator.add, [Weighted(x[0]), Weighted(x[1])]).v * x[2]


def looped(x):
    total = Weighted(x[3])
    for v in x[:3]:
        total = total + Weighted(v * v)
    return total.v


def sum_of_points(x):
    pts = [Point(x[0], x[1]), Point(x[2] * x[0], x[3])]
    return np.sum(pts) + np.sum(np.stack(pts) ** 2)


def sum_of_arrays(x):
    rows = [x[:2] * x[2:], np.sin(x[1:3]), x[::2]]
    return float(np.sum(sum(rows) ** 2)) + sum(v * v for v in x)


def _fd(f):
    return fd_gradient(f, X)


@pytest.mark.parametrize("f", REFUSED)
def test_a_list_of_objects_with_their_own_addition_is_refused(f):
    f(X)  # (the primal runs)
    with pytest.raises(zp.ZygoteError, match="Weighted"):
        zp.gradient(f, X.copy())
    with pytest.raises(zp.ZygoteError):
        zp.jvp(f, (X.copy(),), (np.ones(4),))


@pytest.mark.parametrize("f", [reduced, looped, sum_of_points, sum_of_arrays])
def test_loops_and_plain_lists_are_differentiated(f):
    (g,) = zp.gradient(f, X.copy())
    assert np.allclose(g, _fd(f), rtol=1e-6, atol=1e-8)
    v = np.array([0.3, -1.2, 0.5, 2.0])
    _, t = zp.jvp(f, (X.copy(),), (v,))
    assert t == pytest.approx(_fd(f) @ v, rel=1e-6, abs=1e-8)


def test_the_refusal_names_the_objects_and_the_loop():
    with pytest.raises(zp.ZygoteError, match=r"sum\(\) of Weighted objects.*write the loop"):
        zp.gradient(builtin_sum, X.copy())
    with pytest.raises(zp.ZygoteError, match="a list holding Weighted objects"):
        zp.gradient(numpy_sum, X.copy())


def array_of_products(x):
    y = np.array([x[1], -x[0] * x[2]])
    return y[0] * y[1] + y[1] ** 2


def test_rule_code_passing_dtype_objects_is_not_refused_under_a_hessian():
    # forward mode over np.array's cotangent meets np.asarray(g, dtype=obj.dtype): a dtype
    # object is not an object whose methods decide the call
    assert_hessian(array_of_products, X, atol=1e-6)
