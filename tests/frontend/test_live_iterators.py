"""Iterators, generators and dict views read their sources as they are consumed in
Python; zygote_py's take their items when they are made (runtime/iterators.Items).  An
update of the source while one may still read it would give other values, so it is
refused (frontend/lower_containers.py: start_iterating, lazily_read_sources;
lower_writes.py: refuse_write_read_lazily).  Each of these returned a wrong value and
gradient with no error before."""

import numpy as np
import pytest

import zygote_py as zp

X = np.array([0.5, 2.0])


def items_loop_updating_a_later_key(x):
    d = {"a": x[0], "b": x[1]}
    for _k, v in d.items():  # noqa: PERF102 (the items view is what is tested)
        d["b"] = v * 3.0
    return d["b"]


def values_loop(x):
    d = {"a": x[0], "b": x[1]}
    for v in d.values():
        d["b"] = v * 3.0
    return d["b"]


def iter_loop(x):
    p = [x[0], x[1]]
    for a in iter(p):
        p[1] = a * 3.0
    return p[1]


def map_loop(x):
    p = [x[0], x[1]]
    for a in map(lambda t: t * 1.0, p):  # noqa: C417
        p[1] = a * 3.0
    return p[1]


def stored_iterator(x):
    p = [x[0], x[1]]
    it = iter(p)
    p[1] = x[0] * 5.0
    next(it)
    return next(it)


def stored_view(x):
    d = {"a": x[0], "b": x[1]}
    v = d.values()
    d["b"] = x[0] * 5.0
    return sum(v)


def stored_map(x):
    p = [x[0], x[1]]
    m = map(lambda t: t * 2.0, p)  # noqa: C417
    p[1] = x[0] * 5.0
    return sum(m)


def stored_generator(x):
    p = [x[0], x[1]]
    g = (t * 2.0 for t in p)
    p[1] = x[0] * 5.0
    return sum(g)


def stored_generator_reading_an_array(x):
    y = x * 1.0
    g = (t * y[0] for t in [1.0, 2.0])
    y[0] = 5.0
    return sum(g)


def iterator_over_an_array(x):
    y = x * 1.0
    it = iter(y)
    y[1] = x[0] * 5.0
    next(it)
    return next(it)


def enumerate_over_an_array(x):
    y = x * 1.0
    rows = enumerate(y)
    y *= 3.0
    return sum(v for _i, v in rows)


REFUSED = [items_loop_updating_a_later_key, values_loop, iter_loop, map_loop, stored_iterator,
           stored_view, stored_map, stored_generator, stored_generator_reading_an_array,
           iterator_over_an_array, enumerate_over_an_array]


@pytest.mark.parametrize("f", REFUSED, ids=lambda f: f.__name__)
def test_refused_never_a_snapshot(f):
    with pytest.raises(zp.MutationError, match="iterat|view|generator"):
        zp.gradient(f, X.copy())


def sorted_copy_loop(x):
    p = [x[0], x[1]]
    for a in sorted(p):  # sorted made a list: Python's loop does not see the update
        p[1] = a * 3.0
    return p[1]


def iterator_made_after_the_update(x):
    p = [x[0], x[1]]
    p[1] = x[0] * 5.0
    it = iter(p)
    next(it)
    return next(it)


def generator_consumed_before_the_update(x):
    p = [x[0], x[1]]
    total = sum(t * 2.0 for t in p)  # passed straight to sum: read at once
    p[1] = total
    return p[1] * p[0]


@pytest.mark.parametrize("f", [sorted_copy_loop, iterator_made_after_the_update,
                               generator_consumed_before_the_update], ids=lambda f: f.__name__)
def test_still_differentiated(f):
    value, (grad,) = zp.withgradient(f, X.copy())
    assert value == pytest.approx(f(X.copy()))
    h = 1e-6
    want = [(f(X + h * e) - f(X - h * e)) / (2 * h) for e in np.eye(2)]
    np.testing.assert_allclose(grad, want, rtol=1e-6, atol=1e-8)


# -- writes into what a for loop iterates, other than through its own row ---------------
def array_written_ahead_of_the_loop(x):
    y = np.array([1.0, 2.0]) * 1.0
    for v in y:
        y[1] = v * x[0]  # Python's next step reads this new y[1]
    return y[1] * x[1]


def argument_list_written_ahead(x, p):
    for v in p:
        p[1] = v * x[0]
    return p[1] * x[1]


class _Holder:
    def __init__(self, p):
        self.p = p


def attribute_list_written_ahead(x, h):
    for v in h.p:
        h.p[1] = v * x[0]
    return h.p[1] * x[1]


@pytest.mark.parametrize("f, extra", [(array_written_ahead_of_the_loop, ()),
                                      (argument_list_written_ahead, ([1.0, 2.0],)),
                                      (attribute_list_written_ahead, (_Holder([1.0, 2.0]),))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_writes_ahead_of_a_loop_are_refused(f, extra):
    with pytest.raises(zp.MutationError, match="for loop iterates over it"):
        zp.gradient(f, X.copy(), *extra)


def rows_written_through_the_loop_variable(x):
    a = np.array([[1.0, 2.0], [3.0, 4.0]]) * x[0]
    for row in a:
        row *= x[1]
    for i, row in enumerate(a):
        row[0] = row[1] * i
    return np.sum(a)


class _Model:
    def __init__(self):
        self.layers = [1.0, 2.0]
        self.cache = {}


def another_attribute_updated_in_the_loop(x):
    m = _Model()
    for w in m.layers:
        m.cache[w] = w * x[0]
    return m.cache[1.0] + m.cache[2.0] * x[1]


@pytest.mark.parametrize("f", [rows_written_through_the_loop_variable,
                               another_attribute_updated_in_the_loop], ids=lambda f: f.__name__)
def test_loops_that_only_write_their_own_row_or_other_data(f):
    test_still_differentiated(f)
