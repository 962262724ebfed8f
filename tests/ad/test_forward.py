"""zp.jvp end to end: the forward transform through loops, branches, calls, closures,
containers and objects, each against central finite differences in float64; the
generated code; errors at the user's line."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.forward_compiler import FORWARD
from zygote_py.kinds import scalar_kinds

EPS = 1e-6


def central(f, xs, vs):
    plus = f(*[_moved(x, v, EPS) for x, v in zip(xs, vs)])
    minus = f(*[_moved(x, v, -EPS) for x, v in zip(xs, vs)])
    return _diff(plus, minus)


def _moved(x, v, step):
    if v is None:
        return x
    if isinstance(x, (list, tuple)):
        return type(x)(_moved(a, b, step) for a, b in zip(x, v))
    if isinstance(x, dict):
        return {k: _moved(x[k], v.get(k), step) for k in x}
    return x + step * v


def _diff(p, m):
    if isinstance(p, (list, tuple)):
        return type(p)(_diff(a, b) for a, b in zip(p, m))
    return (np.asarray(p) - np.asarray(m)) / (2 * EPS)


def assert_jvp(f, xs, vs):
    y, dy = zp.jvp(f, xs, vs)
    expected = central(f, xs, vs)
    _close(dy, expected)
    _close(y, f(*xs))
    return dy


def _close(a, b):
    if isinstance(b, (list, tuple)):
        assert len(a) == len(b)
        for ai, bi in zip(a, b):
            _close(ai, bi)
    else:
        np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-5, atol=1e-7)


rng = np.random.default_rng(0)
X = rng.standard_normal(3)
V = rng.standard_normal(3)


def scalar_loop(x):
    for i in range(10):
        x = np.sin(x) * x + 0.5 * np.cos(x) / (1 + x * x)
    return x


def test_straight_line_and_loop():
    assert_jvp(scalar_loop, (X,), (V,))
    assert_jvp(scalar_loop, (0.3,), (1.0,))


def branches(x):
    if np.sum(x) > 0:
        y = x * 2
    else:
        y = np.exp(x)
    return y


def test_branches_both_ways():
    assert_jvp(branches, (np.abs(X),), (V,))
    assert_jvp(branches, (-np.abs(X),), (V,))


def while_loop(x):
    i = 0
    while i < 4:
        x = x * 1.1 + np.sin(x)
        i += 1
    return x


def early_exit(x):
    for i in range(5):
        if np.sum(x) > 3:
            break
        x = x * 1.5
    return x


def test_while_and_break():
    assert_jvp(while_loop, (X,), (V,))
    assert_jvp(early_exit, (np.abs(X),), (V,))


def helper(a, b=2.0):
    return a * b + np.tanh(a)


def calls(x):
    return helper(x) + helper(x, b=3.0) + helper(b=x, a=1.0)


def star_calls(x):
    args = (x, 3.0)
    return helper(*args)


def test_calls_of_user_functions():
    assert_jvp(calls, (X,), (V,))
    assert_jvp(star_calls, (X,), (V,))


def recursive(x, n):
    if n == 0:
        return x
    return np.sin(recursive(x, n - 1))


def test_recursion():
    assert_jvp(lambda x: recursive(x, 4), (X,), (V,))


def closures(x):
    g = lambda y: x * y
    def h(z):
        return np.exp(z) * x
    return g(np.cos(x)) + h(x)


def test_closures():
    assert_jvp(closures, (X,), (V,))


def containers(x):
    xs = []
    for i in range(3):
        xs.append(x * i)
    a, b, c = xs
    d = {"k": a, "j": c}
    d["m"] = b * b
    t = (b, d["k"])
    first, *rest = [a, b, c]
    return t[0] + t[1] + d["j"] + d["m"] + first + rest[1]


def iterate_rows(x):
    s = 0.0
    for row in x:
        s = s + np.sum(row ** 2)
    return s


def test_containers_and_iteration():
    assert_jvp(containers, (X,), (V,))
    m, dm = rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    assert_jvp(iterate_rows, (m,), (dm,))
    assert_jvp(lambda xs: xs[0] * xs[1] + sum(xs), ([1.5, 2.0],), ([0.3, -1.0],))
    assert_jvp(lambda d: d["a"] * np.sin(d["b"]), ({"a": 1.5, "b": X},), ({"a": 0.5, "b": V},))


def over_items(d):
    total = 0.0
    for key, value in d.items():
        total = total + value * value
    return total


def test_dict_items_loop():
    assert_jvp(over_items, ({"a": 1.5, "b": 2.0},), ({"a": 0.5, "b": -1.0},))


@dataclass
class Linear:
    W: np.ndarray
    b: np.ndarray

    def __call__(self, x):
        return np.tanh(self.W @ x + self.b)

    def scale(self, s):
        return self.W * s


def test_objects_methods_and_callables():
    W, dW = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
    b, db = rng.standard_normal(2), rng.standard_normal(2)
    layer = Linear(W, b)
    y, dy = zp.jvp(lambda m, x: m(x), (layer, X), ({"W": dW, "b": db}, V))
    expected = central(lambda W, b, x: Linear(W, b)(x), (W, b, X), (dW, db, V))
    _close(dy, expected)
    y, dy = zp.jvp(lambda m: m.scale(2.0).sum(), (layer,), ({"W": dW, "b": None},))
    assert np.isclose(dy, 2.0 * dW.sum())


def test_numpy_methods_and_linear_algebra():
    x4, v4 = rng.standard_normal(4), rng.standard_normal(4)
    assert_jvp(lambda x: x.reshape(2, 2).T.sum(axis=0) * x.mean(), (x4,), (v4,))
    A = np.eye(3) * 2 + 0.1 * rng.standard_normal((3, 3))
    dA = rng.standard_normal((3, 3))
    assert_jvp(lambda A: np.linalg.inv(A) @ np.linalg.solve(A, np.ones(3)) + np.linalg.det(A),
               (A,), (dA,))
    assert_jvp(lambda A: np.einsum("ij,jk->ik", A, A), (A,), (dA,))
    assert_jvp(lambda A: np.linalg.svd(A)[1], (A,), (dA,))


def test_several_inputs_and_tuple_outputs():
    f = lambda x, y: (x * y, np.sum(x) + y[0])
    assert_jvp(f, (X, V), (V, X))
    y, dy = zp.jvp(f, (X, V), (V, None))  # None: a zero tangent
    _close(dy, (V * V, np.sum(V)))


def test_zero_tangent_output_is_dense():
    y, dy = zp.jvp(lambda x, c: c * 2.0, (X, X), (V, None))
    assert isinstance(dy, np.ndarray) and np.all(dy == 0.0)


def test_generated_code_is_readable():
    source = FORWARD.forward_entry(scalar_loop, (True,), (), scalar_kinds((X,))).source
    assert "def scalar_loop_jvp(x, x_dot):" in source
    # the rules are spliced as expressions: no call of a forward rule is left
    assert "x_dot = t_2 + x_dot * t + (-x_dot * t * 0.5 / t_4 - t_3 * t_5 / t_4)" in source
    assert "return (x, x_dot)" in source
    # the strong zero is kept where a factor may be infinite (x), and left out where the
    # factor is bounded (sin) or the divisor is at least 1 (analysis/ranges.py)
    assert source.count("_zp_strong_times(") == 2 and "_zp_strong_zero(" not in source
    assert "_zp_jvp" not in source


def test_errors_at_the_users_line():
    class Opaque:
        def __init__(self, v):
            self.v = v

    def builds(x):
        return Opaque(x)

    # an object built in the function: its tangent is the dict of its attributes' tangents
    # (calls/forward_objects.py)
    y, dy = zp.jvp(builds, (X,), (V,))
    assert isinstance(y, Opaque) and set(dy) == {"v"} and np.array_equal(dy["v"], V)

    def chained(x, y):
        s = 0.0
        for a in itertools.chain(iter(x), y):  # of an iterator: refused
            s = s + a * a
        return s

    with pytest.raises(zp.NoDerivativeRule, match="forward mode") as err:
        zp.jvp(chained, (X, X), (V, V))
    assert err.value.loc.line == chained.__code__.co_firstlineno + 2


def zipped(x, y):
    s = 0.0
    for i, (a, b) in enumerate(zip(x, y)):
        s = s + a * b * i
    for b in reversed(y):
        s = s * b
    return s


def zip_of_an_iterator(x, y):
    s = 0.0
    for a, b in zip(iter(x), y):
        s = s + a * b
    return s


def test_zip_enumerate_reversed():
    assert_jvp(zipped, (X, X * 2), (V, -V))
    assert_jvp(zip_of_an_iterator, (X, X * 2), (V, -V))


def test_custom_adjoint_is_refused_in_forward_mode():
    def cube(x):
        return x ** 3

    @zp.adjoint(cube)
    def _cube_rule(x):
        return cube(x), lambda g: (3 * x ** 2 * g,)

    try:
        with pytest.raises(zp.NoDerivativeRule, match="forward-mode"):
            zp.jvp(lambda x: cube(x) + 1.0, (2.0,), (1.0,))
    finally:
        from zygote_py.rules import registry
        registry._CUSTOM_RULES.pop(cube, None)


def test_tangent_shape_is_checked():
    with pytest.raises(zp.ZygoteError, match="shape"):
        zp.jvp(np.sin, (X,), (np.ones(2),))
    with pytest.raises(zp.ZygoteError, match="tangents"):
        zp.jvp(np.sin, (X,), ())


def test_a_rule_function_directly():
    assert_jvp(np.sin, (X,), (V,))


# -- writes (runtime/writes.py) under forward mode: followed (tests/ad/test_forward_writes.py) --


def _augmented_array_alias(a):
    b = a * 1.0
    c = b
    b += a  # written into the array c holds too
    return np.sum(c * c)


def _fill_loop(a):
    out = np.zeros(3)
    for i in range(3):
        out[i] = a[i] * a[i]
    return np.sum(out)


@pytest.mark.parametrize("f", [_augmented_array_alias, _fill_loop])
def test_forward_mode_follows_writes_into_arrays(f):
    assert_jvp(f, (np.array([1.0, 2.0, 3.0]),), (np.array([0.5, -1.0, 2.0]),))
