"""Lists and dicts the differentiated function did not create, updated in place
(frontend/lower_containers.py: outside_update; runtime/outside_containers.py; item writes:
runtime/writes.py).  Each form: the value and the container the caller sees after the
gradient call are a plain call's, and the gradient with respect to the number passed and
to every number the container held at the call matches central differences."""

import copy

import numpy as np
import pytest

import zygote_py as zp

H = 1e-6


def _leaves(c, path=()):
    """(path, value) of every float in a nest of lists, dicts and objects."""
    if isinstance(c, float):
        yield path, c
    elif isinstance(c, list):
        for i, v in enumerate(c):
            yield from _leaves(v, path + (i,))
    elif isinstance(c, dict):
        for k, v in c.items():
            yield from _leaves(v, path + (k,))
    elif hasattr(c, "__dict__"):
        for k, v in vars(c).items():
            yield from _leaves(v, path + (k,))


def _get(c, path):
    for p in path:
        c = c[p] if isinstance(c, (list, dict)) else getattr(c, p)
    return c


def _set(c, path, value):
    *head, last = path
    c = _get(c, head)
    if isinstance(c, (list, dict)):
        c[last] = value
    else:
        setattr(c, last, value)


def check(f, x, container):
    """zp.withgradient(f, x, container) against a plain call and central differences."""
    plain = copy.deepcopy(container)
    expected_value = f(x, plain)
    passed = copy.deepcopy(container)
    value, (gx, gc) = zp.withgradient(f, x, passed)
    assert value == pytest.approx(expected_value, rel=1e-12)
    assert _state(passed) == _state(plain)  # the caller sees the update
    fx = (f(x + H, copy.deepcopy(container)) - f(x - H, copy.deepcopy(container))) / (2 * H)
    assert (gx or 0.0) == pytest.approx(fx, rel=1e-6, abs=1e-8)
    for path, leaf in _leaves(container):
        up, down = copy.deepcopy(container), copy.deepcopy(container)
        _set(up, path, leaf + H)
        _set(down, path, leaf - H)
        want = (f(x, up) - f(x, down)) / (2 * H)
        got = _get(gc, path) if gc is not None else None
        assert (got or 0.0) == pytest.approx(want, rel=1e-6, abs=1e-8), path
    return gc


def _state(c):
    return vars(c) if hasattr(c, "__dict__") and not isinstance(c, (list, dict)) else c


# -- lists passed in ---------------------------------------------------------------------------
def append_to_argument(x, acc):
    acc.append(x * 2.0)
    return sum(acc) * acc[0]


def extend_argument(x, acc):
    acc.extend([x * x, 3.0 * acc[0]])
    return acc[-1] * acc[-2] + acc[1]


def insert_into_argument(x, acc):
    acc.insert(1, np.sin(x))
    acc.insert(-10, x)  # clamped to the front, as Python does
    return acc[0] * acc[1] + acc[2] * acc[3]


def pop_from_argument(x, acc):
    last = acc.pop()
    first = acc.pop(0)
    return last * x + first * acc[0]


def remove_reverse_sort_clear(x, acc):
    acc.append(x)
    acc.remove(acc[1])
    acc.reverse()
    acc.sort()
    total = acc[0] * 2.0 + acc[-1] * acc[1]
    acc.clear()
    acc.append(total * x)
    return acc[0]


def item_writes_into_argument(x, acc):
    acc[0] = x * acc[1]
    acc[-1] += x * x
    acc[1] *= acc[0]
    return acc[0] + acc[1] * acc[2]


def del_from_argument(x, acc):
    del acc[0]
    acc.append(x)
    return acc[0] * acc[-1]


def updates_in_a_loop(x, acc):
    for k in range(4):
        acc.append(acc[-1] * x + k)
    return sum(acc)


def alias_sees_the_update(x, acc):
    same = acc
    acc.append(x * 3.0)
    return same[-1] * same[0]


def list_of_arrays(x, acc):
    acc.append(np.tanh(acc[0] * x))
    acc[0] = acc[0] * 2.0
    return float(np.sum(np.stack(acc) ** 2))


@pytest.mark.parametrize("f, container", [
    (append_to_argument, [1.5]), (extend_argument, [0.5, 2.0]), (insert_into_argument, [1.0, 2.0]),
    (pop_from_argument, [1.0, 2.0, 3.0]), (remove_reverse_sort_clear, [3.0, 1.0, 2.0]),
    (item_writes_into_argument, [1.0, 2.0, 3.0]), (del_from_argument, [4.0, 2.0]),
    (updates_in_a_loop, [0.5]), (alias_sees_the_update, [2.0]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_lists_passed_in(f, container):
    check(f, 0.7, container)


def test_a_list_of_arrays_passed_in():
    w = np.array([0.3, -0.4, 0.8])
    acc = [w.copy()]
    value, (gx, gacc) = zp.withgradient(list_of_arrays, 0.7, acc)
    assert len(acc) == 2 and np.array_equal(acc[0], 2 * w)
    assert len(gacc) == 1  # the list as it was at the call
    plain = lambda x, a: list_of_arrays(x, [a.copy()])  # noqa: E731
    fd = np.array([(plain(0.7, w + H * e) - plain(0.7, w - H * e)) / (2 * H) for e in np.eye(3)])
    np.testing.assert_allclose(gacc[0], fd, rtol=1e-6)
    assert gx == pytest.approx((list_of_arrays(0.7 + H, [w.copy()])
                                - list_of_arrays(0.7 - H, [w.copy()])) / (2 * H), rel=1e-6)


# -- dicts passed in ---------------------------------------------------------------------------
def dict_item_writes(x, d):
    d["new"] = x * d["a"]
    d["a"] = d["a"] * x
    d["b"] += d["new"]
    return d["a"] * d["b"] + d["new"]


def dict_methods(x, d):
    d.update({"a": x * d["a"]}, c=d["b"] * x)
    old = d.pop("b")
    got = d.setdefault("e", x * x) + d.setdefault("a", 100.0)
    return d["a"] * d["c"] + old * got + d.pop("missing", 0.5)


def dict_del_and_clear(x, d):
    del d["a"]
    s = d["b"] * x
    d.clear()
    d["c"] = s * s
    return d["c"]


@pytest.mark.parametrize("f", [dict_item_writes, dict_methods, dict_del_and_clear],
                         ids=lambda v: v.__name__)
def test_dicts_passed_in(f):
    check(f, 0.7, {"a": 1.5, "b": -2.0})


# -- containers held by objects --------------------------------------------------------------
class History:
    def __init__(self, first):
        self.items = [first]
        self.stats = {"n": 1.0}

    def add(self, v):
        self.items.append(v)
        self.stats["n"] = self.stats["n"] + 1.0


def through_attributes(x, h):
    h.add(x * 2.0)
    h.items[0] = h.items[0] * x
    return sum(h.items) * h.stats["n"]


def test_containers_held_by_an_object_passed_in():
    check(through_attributes, 0.7, History(1.5))


GLOBAL_HISTORY = History(1.5)


def through_a_global_object(x):
    GLOBAL_HISTORY.add(x * x)
    return GLOBAL_HISTORY.items[-1] * GLOBAL_HISTORY.items[0]


def test_a_container_held_by_a_global_object():
    global GLOBAL_HISTORY
    GLOBAL_HISTORY = History(1.5)
    g = zp.gradient(through_a_global_object, 0.7)[0]
    assert g == pytest.approx(2 * 0.7 * 1.5)
    assert GLOBAL_HISTORY.items == [1.5, 0.7 * 0.7]  # the object sees the update


# -- through called functions, pullbacks -----------------------------------------------------
def record(v, log):
    log.append(v * v)
    log[0] = log[0] + v


def calls_a_helper_that_appends(x, log):
    record(x, log)
    record(2.0 * x, log)
    return log[0] * log[1] + log[2]


def test_a_called_function_updates_the_list_passed_to_it():
    check(calls_a_helper_that_appends, 0.7, [1.0])


def test_a_pullback_runs_twice_and_the_caller_sees_the_update():
    acc = [1.5]
    y, back = zp.pullback(append_to_argument, 0.7, acc)
    assert acc == [1.5, 1.4]
    first, second = back(1.0), back(1.0)
    assert first[0] == pytest.approx(2.0 * 1.5) and second[0] == pytest.approx(first[0])
    assert first[1] == second[1] and len(first[1]) == 1
    assert acc == [1.5, 1.4]


# -- refusals ----------------------------------------------------------------------------------
LOG = []


def appends_through_a_second_name_of_a_global(x):
    log = LOG
    log.append(x)
    return sum(LOG)


def reads_a_holder_after_the_update(x, acc):
    held = [acc]
    acc.append(x)
    return sum(held[0])


def sorts_an_argument_by_key(x, acc):
    acc.append(x * x)
    acc.sort(key=lambda v: -v, reverse=True)
    return acc[0] * 2.0 + acc[-1]


def sorts_an_array_argument(x, a):
    a.sort()  # an ndarray's in-place sort, as before
    return float(a[0] * x + a[-1])


def test_sort_of_a_list_or_an_array_passed_in():
    check(sorts_an_argument_by_key, 0.7, [3.0, 0.1, 2.0])
    a = np.array([3.0, 1.0, 2.0])
    g = zp.gradient(sorts_an_array_argument, 0.7, a)
    assert np.array_equal(a, [1.0, 2.0, 3.0]) and g[0] == pytest.approx(1.0)
    np.testing.assert_allclose(g[1], [1.0, 0.7, 0.0])  # (a's elements as passed)


def slice_assignment_into_argument(x, acc):
    acc[0:1] = [x]
    return acc[0]


@pytest.mark.parametrize("f, args, match", [
    (appends_through_a_second_name_of_a_global, (0.5,), "did not create"),
    (reads_a_holder_after_the_update, (0.5, [1.0]), "updated in place"),
    (slice_assignment_into_argument, (0.5, [1.0, 2.0]), "integer index"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_refused(f, args, match):
    LOG.clear()
    with pytest.raises(zp.MutationError, match=match):
        zp.gradient(f, *args)
    assert LOG == []


def test_an_argument_held_by_another_argument_is_refused():
    acc = [1.0]
    with pytest.raises(zp.MutationError, match="also holds"):
        zp.gradient(lambda x, a, b: append_to_argument(x, a) + b[0][0], 0.5, acc, [acc])
