"""Values the adjoint reads only for their shape are saved as an ArrayShape in loops
(splice.py: shape_only; adjoint.py: fetch_shape; runtime/helpers.py: array_shape), so
a loop's tape does not keep the arrays alive.  Every gradient here is checked against
finite differences, including where the array is also read whole, aliased, returned, or
is not a plain ndarray."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from corpus.finite_diff import numerical_gradient

import zygote_py as zp
from zygote_py.runtime.helpers import ArrayShape, array_shape

rng = np.random.default_rng(11)


def _check(f, *args):
    got = zp.gradient(f, *args)
    fd = numerical_gradient(f, args)
    for g, n in zip(got, fd):
        np.testing.assert_allclose(g, n, rtol=1e-6, atol=1e-8)


def _broadcast_in_loop(x, b):
    for _ in range(3):
        t = x * 0.9
        x = np.tanh(t + b)  # t's cotangent needs only t's shape; b (4,) broadcasts
    return np.sum(x**2)


def _slices_in_loop(x, w):
    h = x
    for _ in range(3):
        z = h @ w
        a = np.tanh(z[:, :2])  # z is read by the slices' cotangents for its shape alone
        c = np.sin(z[:, 2:])
        h = np.concatenate([a, c], axis=1)
    return np.sum(h**2)


def _reductions_in_loop(x):
    s = 0.0
    for _ in range(3):
        y = np.exp(x * 0.3)
        m = np.sum(y, axis=1, keepdims=True)  # expand_reduced reads y's shape
        x = np.log(m) - x * 0.5
        s = s + np.mean(y)
    return s + np.sum(x)


def _kept_by_the_user(x):
    kept = []
    for _ in range(3):
        t = x * 1.5
        kept.append(t)  # the user keeps the intermediate: it must stay as it was
        x = np.sin(t + 0.1)
    return np.sum(x) + np.sum(kept[0] * kept[2])


def _returned_and_used(x):
    for _ in range(2):
        t = x * 2.0
        x = np.cos(t) + t
    return np.sum(x**2)


def _scalar_and_array(x, s):
    for _ in range(3):
        u = x * s  # s a float: the scalar side is left alone
        x = np.tanh(u + 1.0)
    return np.sum(x)


CASES = [
    (_broadcast_in_loop, (rng.standard_normal((3, 4)), rng.standard_normal(4))),
    (_slices_in_loop, (rng.standard_normal((2, 4)), 0.5 * rng.standard_normal((4, 4)))),
    (_reductions_in_loop, (rng.standard_normal((3, 4)),)),
    (_kept_by_the_user, (rng.standard_normal(5),)),
    (_returned_and_used, (rng.standard_normal((2, 3)),)),
    (_scalar_and_array, (rng.standard_normal(4), 0.7)),
]


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_gradient_matches_finite_differences(f, args):
    _check(f, *args)


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_forward_mode_over_the_same_code_matches(f, args):
    tangents = tuple(np.ones_like(a) if isinstance(a, np.ndarray) else 1.0 for a in args)
    _, got = zp.jvp(f, args, tangents)
    eps = 1e-6
    plus = f(*(a + eps * t for a, t in zip(args, tangents)))
    minus = f(*(a - eps * t for a, t in zip(args, tangents)))
    np.testing.assert_allclose(got, (plus - minus) / (2 * eps), rtol=1e-6, atol=1e-8)


def test_the_tape_keeps_shapes_not_arrays():
    source = zp.grad_source(_broadcast_in_loop, args=CASES[0][1])
    assert "_zp_array_shape(t)" in source
    source = zp.grad_source(_slices_in_loop, args=CASES[1][1])
    assert "_zp_array_shape(z)" in source


ROW = np.linspace(0.5, 1.0, 200)


def _many_wide_steps(x, b):
    for _ in range(40):
        t = x * ROW
        x = np.tanh(t + b)
    return np.sum(x)


def test_a_loop_no_longer_keeps_its_shape_only_temporaries():
    x, b = 0.1 * rng.standard_normal((50, 200)), rng.standard_normal(200)
    zp.gradient(_many_wide_steps, x, b)  # compiled outside the measurement
    tracemalloc.start()
    try:
        zp.gradient(_many_wide_steps, x, b)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    step = x.nbytes
    # x (the tanh output, read whole by its rule) is kept per step; t and t + b were kept
    # as well before (3 arrays a step), only for their shapes
    assert peak < 1.6 * 40 * step, peak / step


def test_array_shape_stands_in_for_exact_ndarrays_only():
    a = np.ones((2, 3), dtype=np.float32)
    saved = array_shape(a)
    assert isinstance(saved, ArrayShape)
    assert (saved.shape, saved.dtype, saved.ndim) == ((2, 3), np.float32, 2)
    for other in (1.5, [1.0, 2.0], np.float64(2.0), np.ma.masked_array([1.0, 2.0])):
        assert array_shape(other) is other
