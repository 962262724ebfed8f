"""Result-alias summaries of called functions (frontend/result_aliases.py): what a callee's
result may share memory with decides whether a write into it, in the caller, is a write
into the caller's arrays, a global's (refused), or a fresh array's.  Every gradient is
checked against central differences; the globals must be left as they were."""

import sys

import numpy as np
import pytest
from write_checks import check_writes

import zygote_py as zp
from zygote_py.compiler import COMPILER
from zygote_py.frontend.result_aliases import EXTERNAL

G = np.linspace(0.1, 1.0, 5)
test_module = sys.modules[__name__]  # this module, as a module object the code reads from
X = np.array([0.3, -0.2, 0.5, 0.7, 1.1])


def check_leaves_globals(f, *args):
    before = G.copy()
    check_writes(f, *args)
    np.testing.assert_array_equal(G, before)


def summary(fn):
    return COMPILER.lowered_ir(fn).meta["result_aliases"]


# -- the callees ------------------------------------------------------------------------------
def smoothed(f):
    """A fresh array: arithmetic and NumPy functions that allocate."""
    return 0.5 * (f + np.roll(f, 1))


def reshaped_fresh(f):
    flat = (np.arange(f.size) * 0.1 + f.ravel()).astype(float)
    return np.reshape(flat, f.shape)


def tail_view(a):
    return a[1:]


def pick(a, b, first):
    if first:
        return a
    return b * 2.0


def tail_after(a, n):
    return a if n == 0 else tail_after(a[1:], n - 1)


def powered(a, n):
    return a * 1.0 if n == 0 else powered(a, n - 1) * a


def global_row():
    return G[1:3]


def with_buffer(x, buf=np.zeros(3)):
    return buf


def module_attribute():
    return test_module.G  # data of a module, read while running


def stash(x, holder):
    y = x * 2.0
    holder.y = y
    return y


def unknown_call(x, f):
    return f(x)


class Blur:
    def __init__(self, k):
        self.k = k

    def apply(self, f):
        return 0.5 * (f + np.roll(f, 1)) * self.k

    def own(self):
        return self.k

    def step(self, x):
        y = self.apply(G)  # self's method, checked while running to be Blur.apply
        y[0] = x[0] * 3.0
        return np.sum(y * x)


class Passing(Blur):
    def apply(self, f):
        return f  # the global itself


BLUR = Blur(0.9)
BLUR_ARRAY = Blur(np.ones(5))


def test_the_summaries():
    assert summary(smoothed) == frozenset()
    assert summary(reshaped_fresh) == frozenset()
    assert summary(tail_view) == frozenset({0})
    assert summary(pick) == frozenset({0})  # b * 2.0 is new
    assert summary(tail_after) == frozenset({0})
    assert summary(powered) == frozenset()
    assert summary(global_row) == frozenset({EXTERNAL})
    assert summary(module_attribute) == frozenset({EXTERNAL})
    assert summary(stash) == frozenset({1})  # the result is held by the object passed in
    assert summary(unknown_call) is None


# -- a write into the result, in the caller -----------------------------------------------
def writes_into_a_fresh_result(x):
    y = smoothed(G)  # a new array, though computed from the global G
    y[0] = x[0] * 3.0
    y[1:3] += np.sin(x[1:3])
    return np.sum(y * x)


def writes_into_a_reshaped_fresh_result(x):
    y = reshaped_fresh(G)
    y[2] = x[1] ** 2
    return np.sum(y * x)


def writes_through_a_returned_view(x):
    u = x * 1.0
    v = tail_view(u)
    v[0] = 10.0 * x[1]  # u[1] changes with it
    return np.sum(u * u)


def writes_into_a_conditional_result(x):
    u = x * 1.0
    r = pick(u, x, True)
    r[0] = x[2] ** 2
    s = pick(u, G, False)  # b * 2.0 here; may be u as far as the caller knows
    s[1] = x[3]
    return np.sum(u * x) + np.sum(s)


def writes_into_recursive_results(x):
    u = x * 2.0
    t = tail_after(u, 2)  # a view of u, through two recursive calls
    t[0] = x[0] ** 2
    p = powered(G, 3)  # fresh through the recursion
    p[1] = x[4]
    return np.sum(u * u) + np.sum(p * x)


def writes_into_a_method_result(x):
    y = BLUR.apply(G)  # a method of a global object: fresh
    y[0] = x[0] * 3.0
    return np.sum(y * x)


def writes_into_a_class_function_result(x):
    y = Blur.apply(BLUR, G)
    y[4] = x[2]
    return np.sum(y * x)


@pytest.mark.parametrize("f", [writes_into_a_fresh_result, writes_into_a_reshaped_fresh_result,
                               writes_through_a_returned_view, writes_into_a_conditional_result,
                               writes_into_recursive_results, writes_into_a_method_result,
                               writes_into_a_class_function_result])
def test_writes_into_results_of_calls(f):
    check_leaves_globals(f, X)


def test_a_method_calling_a_method_of_its_own_class():
    check_leaves_globals(lambda x: Blur(0.9).step(x), X)
    before = G.copy()
    with pytest.raises(zp.MutationError, match="is not the method Blur.apply"):
        zp.gradient(lambda x: Passing(0.9).step(x), X.copy())
    np.testing.assert_array_equal(G, before)


def test_a_helper_that_writes_into_a_fresh_result_writes_nothing_of_its_caller():
    def step(v):
        w = smoothed(v)
        w[0] = 0.0
        return w

    def caller(x):
        return np.sum(step(x) ** 2)

    check_writes(caller, X)
    assert not COMPILER.lowered_ir(step).meta["param_writes"]


# -- refusals that stay ----------------------------------------------------------------------
def view_of_global(x):
    v = tail_view(G)
    v[0] = x[0]
    return np.sum(v)


def conditional_global(x):
    r = pick(G, x, x[0] > 0)
    r[0] = x[1]
    return np.sum(r)


def recursive_global(x):
    t = tail_after(G, 2)
    t[0] = x[0]
    return np.sum(t)


def returned_global(x):
    r = global_row()
    r[0] = x[0]
    return np.sum(r)


def returned_default(x):
    b = with_buffer(x)
    b[0] = x[0]
    return np.sum(b)


def returned_module_attribute(x):
    r = module_attribute()
    r[0] = x[0]
    return np.sum(r)


def written_module_attribute(x):
    r = test_module.G
    r[0] = x[0]
    return np.sum(r)


def method_returning_its_receivers_array(x):
    k = BLUR_ARRAY.own()
    k[0] = x[0]
    return np.sum(k * x)


def unknown_result_of_global(x):
    r = unknown_call(G, np.asarray)
    r[0] = x[0]
    return np.sum(r)


@pytest.mark.parametrize("f", [view_of_global, conditional_global, recursive_global,
                               returned_global, returned_default, returned_module_attribute,
                               written_module_attribute,
                               method_returning_its_receivers_array, unknown_result_of_global])
def test_results_that_may_be_outside_memory_are_refused(f):
    before = G.copy()
    with pytest.raises(zp.MutationError, match="may be"):
        zp.gradient(f, X.copy())
    np.testing.assert_array_equal(G, before)


class NotAnArray:
    def __init__(self, v):
        self.v = v

    def ravel(self):
        return G


def ravels(a):
    return a.ravel() * 1.0 if isinstance(a, np.ndarray) else a.ravel()


def test_an_ndarray_named_method_on_another_object_is_refused():
    # the summary of `ravels` takes .ravel() to return its receiver's memory: on another
    # object (whose ravel returns a global) that is checked while running
    def caller(x):
        r = ravels(NotAnArray(x))
        r[0] = x[0]
        return np.sum(r)

    before = G.copy()
    with pytest.raises(zp.MutationError, match="named like an ndarray method"):
        zp.gradient(caller, X.copy())
    np.testing.assert_array_equal(G, before)


def test_a_method_replaced_after_compiling_is_refused():
    class Local(Blur):
        pass

    obj = Local(0.5)
    global LOCAL_BLUR
    LOCAL_BLUR = obj

    def caller(x):
        y = LOCAL_BLUR.apply(G)
        y[0] = x[0]
        return np.sum(y * x)

    check_leaves_globals(caller, X)
    Local.apply = lambda self, f: f  # now it would return the global itself
    before = G.copy()
    with pytest.raises(zp.MutationError, match="is not the method"):
        zp.gradient(caller, X.copy())
    np.testing.assert_array_equal(G, before)
