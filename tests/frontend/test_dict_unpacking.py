"""`{**a, k: v, **b}` in differentiated code: Python's left-to-right merge, each key's
derivative going to the part that set it last (frontend/lower_expr.py: expr_Dict)."""

import numpy as np
from write_checks import check_hessian_writes, check_jvp_writes, check_writes


def merged(x):
    a = {"a": x[0], "b": x[1]}
    b = {"b": x[2] * x[0], "c": 2.0}
    m = {**a, "z": x[1] ** 2, **b, "a": a["a"] * 3.0}
    return m["a"] * m["b"] + m["z"] * m["c"]


def only_unpacked(x):
    p, q = {"p": np.sin(x)}, {"q": x * x}
    m = {**p, **q}
    return np.sum(m["p"] * m["q"])


def updated_in_a_loop(x):
    # the generated gradient code carries the dict as {**d, 'w': ...}: zp.hessian reads it
    grads = {"w": np.zeros(3)}
    for i in range(3):
        grads["w"] = grads["w"] + x * (i + 1.3)
    return np.sum(grads["w"] ** 2)


X = np.array([0.3, -0.5, 0.9])


def test_values_and_gradients():
    assert merged(X) == 3 * X[0] * X[2] * X[0] + 2.0 * X[1] ** 2
    for f in (merged, only_unpacked, updated_in_a_loop):
        check_writes(f, X)


def test_jvp():
    for f in (merged, only_unpacked, updated_in_a_loop):
        check_jvp_writes(f, X)


def test_hessian():
    for f in (merged, only_unpacked, updated_in_a_loop):
        check_hessian_writes(f, X)
