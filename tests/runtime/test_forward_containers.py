"""Forward mode through lists and dicts updated in place (runtime/forward_containers.py,
ad/forward/writes.py): a tangent container mirrors the primal's structure and is updated by
the same operation -- the updates of a list or dict from outside the call (an argument, a
function's argument called by name, an object's attribute) and item writes.  zp.jvp
against central differences of plain runs on fresh containers, and zp.hessian (forward
over the gradient, which saves and restores what each update replaced) against central
differences of the gradient (tests/forward_object_checks.py)."""

import numpy as np
import pytest
from forward_object_checks import check_hessian, check_jvp

import zygote_py as zp

X = np.array([0.3, -0.5, 0.9])
V = np.array([0.7, 0.2, -1.1])


def list_updates(x, acc):
    """Every list update followed on a list passed in."""
    acc.append(x[0] * 2.0)
    acc.extend([x[1], np.sin(x[2])])
    acc.insert(1, x[0] * x[1])
    first = acc.pop(0)
    acc[0] = acc[0] * x[2]
    acc[1] += first
    acc.reverse()
    del acc[2]
    acc.remove(acc[-1])
    return sum(acc) * x[1] + first


def dict_updates(x, d):
    """Every dict update followed on a dict passed in."""
    d["a"] = x[0] * x[1]
    d.update(b=np.cos(x[2]), c=x[0])
    d.setdefault("e", x[1] ** 2)
    d["a"] += d["c"] * x[2]
    old = d.pop("c")
    del d["b"]
    return d["a"] * d["e"] + old + d["z"] * x[0]


def test_list_updates_on_an_argument():
    tangent = check_jvp(lambda: lambda x: list_updates(x, [1.5, -0.25]), X, V)
    acc = [1.5, -0.25]
    _, t = zp.jvp(list_updates, (X, acc), (V, [0.5, 2.0]))  # the list's own tangent too
    h = 1e-6
    fd = (list_updates(X + h * V, [1.5 + 0.5 * h, -0.25 + 2.0 * h])
          - list_updates(X - h * V, [1.5 - 0.5 * h, -0.25 - 2.0 * h])) / (2 * h)
    assert np.isclose(t, fd) and not np.isclose(t, tangent)
    plain = [1.5, -0.25]
    list_updates(X, plain)
    assert acc == plain  # the caller sees the updates


def test_dict_updates_on_an_argument():
    check_jvp(lambda: lambda x: dict_updates(x, {"z": 0.5}), X, V)
    d = {"z": 0.5}
    _, t = zp.jvp(dict_updates, (X, d), (V, {"z": 1.0}))
    h = 1e-6
    fd = (dict_updates(X + h * V, {"z": 0.5 + h}) - dict_updates(X - h * V, {"z": 0.5 - h})) / (2 * h)
    assert np.isclose(t, fd)
    plain = {"z": 0.5}
    dict_updates(X, plain)
    assert d == plain


# -- zp.hessian: the containers are made in the function and updated by a function called
#    by name (a function that updates its arguments in place).  Two inputs and small
#    callees: forward mode over a callee's back function compiles it once per column.
def grow(acc, x):
    acc.append(x[0] * x[1])
    acc.insert(0, np.sin(x[0]))
    acc[1] = acc[1] * x[1]
    last = acc.pop()
    del acc[0]
    return last


def fill(d, x):
    d["a"] = x[0] * x[1]
    d.update(b=np.cos(x[0]))
    d["a"] += d["b"] * x[1]
    return d.pop("b")


def hessian_of_lists(x):
    acc = [x[1], 0.5]
    last = grow(acc, x)
    return last * acc[0] + sum(acc)


def hessian_of_dicts(x):
    d = {"z": x[0]}
    b = fill(d, x)
    return d["a"] * d["z"] + b * x[1]


def test_hessians_through_list_and_dict_updates():
    check_hessian(lambda: hessian_of_lists, X[:2])
    check_hessian(lambda: hessian_of_dicts, X[:2])


class Log:
    def __init__(self):
        self.items = []
        self.table = {}


LOG = Log()


def record(log, x):
    """Updates of the containers an object holds, by a function called by name."""
    log.items.append(x[0] * x[1])
    log.items[0] = log.items[0] * x[0]
    log.table.update(k=np.tanh(x[1]))


def through_attributes(x):
    record(LOG, x)
    return sum(LOG.items) * LOG.table["k"]


def fresh_log():
    LOG.items, LOG.table = [], {}
    return through_attributes


def test_updates_through_an_objects_attributes():
    check_jvp(fresh_log, X[:2], V[:2])
    check_hessian(fresh_log, X[:2])


def test_a_global_objects_list_updated_by_an_expression_is_refused_as_in_reverse_mode():
    def f(x):
        LOG.items.append(x * 2.0)
        return LOG.items[-1]

    for run in (lambda: zp.gradient(f, 0.5), lambda: zp.jvp(f, (0.5,), (1.0,))):
        with pytest.raises(zp.MutationError, match="did not create"):
            run()


def test_builtin_max_hessian_through_its_cotangent_helpers_list_write():
    # (86bad35: the Hessian was silently 0 when forward mode left a list write's tangent out)
    def f(x):
        m = max(x[0] * x[1], x[2], x[0])
        return m * np.sum(x)

    check_hessian(lambda: f, X)


def test_a_slice_assignment_into_a_list_argument_is_refused_as_in_reverse_mode():
    def f(x, acc):
        acc[0:1] = [x * 2.0]
        return acc[0]

    with pytest.raises(zp.ZygoteError):
        zp.gradient(f, 0.5, [1.0])
    with pytest.raises(zp.ZygoteError):
        zp.jvp(f, (0.5, [1.0]), (1.0, None))
