"""NumPy's in-place functions differentiated (docs/mutation.md): np.put, np.place,
np.putmask, np.put_along_axis, np.fill_diagonal, a.sort() / np.ndarray.sort, a.put, np.multiply.at / np.divide.at,
np.copyto(where=), ufunc output arrays (out=, out=(a,), positional, where=), each against
central differences, by reverse and forward mode and as Hessians; standalone modules agree
(frontend/lower_writes.py: in_place_call, runtime/writes.py, rules/ufunc_methods.py)."""

import types

import numpy as np
import pytest
from write_checks import check_hessian_writes, check_jvp_writes, check_writes

import zygote_py as zp
from zygote_py.aot.module import standalone_module

rng = np.random.default_rng(21)
X = rng.normal(size=6)
M = rng.normal(size=(3, 3))


def put(x):
    y = x * 2.0
    np.put(y, [0, 2, -1, 2], x[:2] ** 2)  # values repeated to the count; the last 2 wins
    return np.sum(y * x)


def put_method_wrap(x):
    y = x * 2.0
    y.put([5, 7], np.sin(x[3]), mode="wrap")
    return np.sum(y ** 2)


def put_2d(m):
    a = m * 1.0
    np.put(a, np.array([[0, 4], [8, 1]]), m[1] * 3.0)
    return np.sum(a * m)


def put_empty_values(x):
    y = x * 1.0
    np.put(y, [0, 1], np.zeros(0))  # nothing is written, as in NumPy
    return np.sum(y * y)


def place(x):
    y = np.cos(x)
    np.place(y, x > 0, x[:2] * 3.0)
    return np.sum(y * x)


def fill_diagonal(m):
    a = m * 1.0
    np.fill_diagonal(a, m[0] ** 2)
    return np.sum(a * m)


def fill_diagonal_tall_wrap(x):
    a = np.outer(x, x[:3])
    np.fill_diagonal(a, x[1], wrap=True)
    return np.sum(a * a)


def sort_method(x):
    y = x * np.arange(6.0)
    y.sort()
    return np.sum(y * np.linspace(0.0, 1.0, 6))


def sort_function(m):
    a = m * 1.0
    np.ndarray.sort(a, axis=0)
    return np.sum(a * np.arange(9.0).reshape(3, 3))


def multiply_at(x):
    y = x * 1.5
    np.multiply.at(y, [0, 2, 2, 5, 0, 0], x + 1.0)  # unbuffered: every repeat multiplies
    return np.sum(y * np.arange(6.0))


def multiply_at_zero(x):
    y = x * 1.5
    b = x[:3] * 1.0
    b[1] = 0.0
    np.multiply.at(y, [1, 1, 1], b)
    return np.sum(y * np.arange(6.0))


def divide_at(x):
    y = np.exp(x)
    np.divide.at(y, [0, 2, 2], np.cosh(x[:3]))
    return np.sum(y ** 2)


def copyto_where(x):
    y = x * 1.0
    np.copyto(y, np.exp(x), where=x > 0)
    return np.sum(y * y)


def unary_out(x):
    y = x * 1.0
    np.negative(y, out=y)
    np.exp(y, out=(y,))
    return np.sum(y * x)


def positional_out(x):
    y = np.zeros(6)
    np.negative(x, y)
    np.add(y, x * x, y)
    return np.sum(y * x)


def out_where(x):
    y = np.ones(6) * 0.5
    np.multiply(x, x, out=y, where=x > 0)
    np.exp(y, y, where=x < 0.5)
    return np.sum(y * x)


def putmask(x):
    y = x * 2.0
    np.putmask(y, x > 0, x[:4] ** 2)  # values.flat[i % 4] for the element at flat position i
    return np.sum(y * x)


def put_along_axis(m):
    a = m * 1.0
    np.put_along_axis(a, np.array([[0, 0], [2, 1], [1, 1]]), m[:, :2] ** 2, axis=1)
    return np.sum(a * m)


def put_along_no_axis(x):
    a = x * 1.0
    np.put_along_axis(a, np.array([4, 1, 4]), np.sin(x[:3]), axis=None)
    return np.sum(a * x)


CASES = [(put, X), (put_method_wrap, X), (put_2d, M), (put_empty_values, X), (place, X),
         (fill_diagonal, M), (fill_diagonal_tall_wrap, X), (sort_method, X), (sort_function, M),
         (multiply_at, X), (multiply_at_zero, X), (divide_at, X), (copyto_where, X),
         (unary_out, X), (positional_out, X), (out_where, X), (putmask, X),
         (put_along_axis, M), (put_along_no_axis, X)]


@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_gradient_matches_central_differences(f, x):
    check_writes(f, x)


@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_forward_mode_matches_central_differences(f, x):
    check_jvp_writes(f, x)


@pytest.mark.parametrize("f, x", CASES[::2], ids=[f.__name__ for f, _ in CASES[::2]])
def test_hessian_matches_central_differences(f, x):
    check_hessian_writes(f, x)


@pytest.mark.parametrize("f, x", [(put, X), (sort_method, X), (multiply_at, X),
                                  (positional_out, X)], ids=lambda v: getattr(v, "__name__", ""))
def test_standalone_module_agrees(f, x):
    module = types.ModuleType(f.__name__ + "_grad")
    exec(compile(standalone_module(f, args=(x,)), f"<{f.__name__}>", "exec"), module.__dict__)
    (got,) = getattr(module, "grad_" + f.__name__)(x.copy())
    (want,) = zp.gradient(f, x.copy())
    np.testing.assert_allclose(got, want, rtol=1e-12)


# -- refused clearly --------------------------------------------------------------------------
def maximum_at(x):
    y = x * 1.0
    np.maximum.at(y, [0, 1], x[:2])
    return np.sum(y)


def modf_out(x):
    a, b = np.zeros(6), np.zeros(6)
    np.modf(x, a, b)
    return np.sum(a * b)


def out_into_a_list_item(x):
    ys = [np.zeros(6)]
    np.exp(x, out=ys[0])
    return np.sum(ys[0])


class _Holder:
    def __init__(self):
        self.a = np.zeros(6)


def out_into_an_attribute(x):
    h = _Holder()
    np.exp(x, out=h.a)
    return np.sum(h.a)


def sort_a_list_argument(x, xs):
    xs.sort()
    return x[0] * xs[0]


def test_refusals():
    with pytest.raises(zp.MutationError, match="np.add, np.subtract, np.multiply"):
        zp.gradient(maximum_at, X.copy())
    with pytest.raises(zp.MutationError, match="one-output ufunc"):
        zp.gradient(modf_out, X.copy())
    with pytest.raises(zp.MutationError, match="output array in place"):
        zp.gradient(out_into_an_attribute, X.copy())
    check_writes(out_into_a_list_item, X)  # an item of a variable's list: followed
    # a list passed in is sorted in place (tests/frontend/test_outside_containers.py)
    xs = [2.0, 1.0]
    g = zp.gradient(sort_a_list_argument, X.copy(), xs)
    assert xs == [1.0, 2.0] and g[1][0] is None and g[1][1] == X[0]


def test_numpy_errors_are_numpys():
    def out_of_bounds(x):
        y = x * 1.0
        np.put(y, [9], 1.0)
        return np.sum(y)

    def unequal_diagonal(x):
        a = np.zeros((2, 3, 4))
        np.fill_diagonal(a, x[0])
        return np.sum(a)

    with pytest.raises(IndexError):
        zp.gradient(out_of_bounds, X.copy())
    with pytest.raises(ValueError):
        zp.gradient(unequal_diagonal, X.copy())


def sum_positional_out(x):
    y = np.zeros(())
    np.sum(x, 0, None, y)  # out passed positionally: was dropped, a silently zero gradient
    return float(y) * x[0]


def clip_positional_out(x):
    o = np.zeros(6)
    np.clip(x, 0.2, 0.5, o)
    return np.sum(o * x)


def method_positional_out(x):
    o = np.zeros(6)
    x.cumsum(0, None, o)
    return np.sum(o * x)


def method_keyword_out(x):
    y = np.zeros(())
    x.sum(out=y)
    return float(y) * x[0]


class _Summer:
    def __init__(self, w):
        self.w = w

    def sum(self, a, b, out):  # a method of that name on another object: runs as usual
        return np.sum(self.w) * a * b * out


def same_name_on_an_object(x):
    return _Summer(x).sum(1.0, 2.0, 3.0)


@pytest.mark.parametrize("f", [sum_positional_out, clip_positional_out, method_positional_out,
                               method_keyword_out], ids=lambda f: f.__name__)
def test_an_output_array_of_a_library_function_is_refused(f):
    with pytest.raises(zp.MutationError, match="output array"):
        zp.gradient(f, X.copy())


def test_a_method_named_like_an_ndarray_one_is_not_refused():
    (g,) = zp.gradient(same_name_on_an_object, X.copy())
    np.testing.assert_allclose(g, np.full(6, 6.0))
