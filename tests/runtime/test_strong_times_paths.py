"""The short paths of the strong-zero helpers (runtime/helpers.py): strong_times by a finite
number, summed_strong_times by a dot product, and the owned accumulator a backward loop
adds into.  Each must give exactly what the general path
gives: the strong zero where a zero cotangent meets inf or nan, the same sums (to
rounding), the same dtype and shape."""

from __future__ import annotations

import math

import numpy as np
import pytest

from zygote_py.runtime.helpers import (
    owned_accumulator,
    strong_times,
    strong_zero,
    summed_strong_times,
    unbroadcast,
)

INF, NAN = math.inf, math.nan
G = np.array([0.0, 1.5, -0.0, 2.0, 0.0])


def general(g, p):
    return strong_zero(g, g * p)


@pytest.mark.parametrize("p", [0.5, -3, np.float64(2.0), 0.0])
def test_a_finite_number_needs_no_pass_and_changes_nothing(p):
    np.testing.assert_array_equal(strong_times(G, p), G * p)
    np.testing.assert_array_equal(strong_times(G, p), general(G, p))


@pytest.mark.parametrize("p", [INF, -INF, NAN, np.float64(INF)])
def test_an_infinite_or_nan_number_keeps_the_strong_zero(p):
    out = strong_times(G, p)
    assert out[0] == 0.0 and out[2] == 0.0 and out[4] == 0.0  # 0 * inf would be nan
    np.testing.assert_array_equal(out, general(G, p))
    assert np.isnan(out[1]) == math.isnan(p)


def test_a_nan_cotangent_stays_nan_by_a_finite_number():
    assert np.isnan(strong_times(np.array([NAN, 0.0]), 2.0)[0])


def test_a_summed_product_is_the_general_path_to_rounding():
    rng = np.random.default_rng(0)
    g, p = rng.normal(size=998), rng.normal(size=998)
    got = summed_strong_times(g, p, 0.2)
    assert type(got) is np.float64
    np.testing.assert_allclose(got, unbroadcast(general(g, p), 0.2), rtol=1e-13)
    g2, p2 = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    np.testing.assert_allclose(summed_strong_times(g2, p2, 1.0), np.sum(g2 * p2), rtol=1e-13)
    np.testing.assert_allclose(summed_strong_times(g2.T, p2.T, 1.0), np.sum(g2 * p2), rtol=1e-13)


def test_a_summed_product_keeps_the_strong_zero_where_the_dot_is_nan():
    g = np.array([0.0, 1.0, 2.0])
    p = np.array([INF, 3.0, 4.0])  # 0 * inf: nan in the dot, 0 under the strong zero
    assert summed_strong_times(g, p, 0.5) == 11.0
    assert math.isnan(summed_strong_times(np.array([1.0, 1.0]), np.array([INF, -INF]), 0.5))


@pytest.mark.parametrize("g, p, x", [
    (np.array([1.0, 2.0]), np.array([3.0, 4.0]), np.array([1.0, 1.0])),  # an array's own shape
    (np.ones((2, 3)), np.arange(3.0), np.zeros(3)),  # summed over the broadcast axis
    (2.0, 3.0, 1.0), (0.0, INF, 1.0), (np.float64(0.0), NAN, 2.0), (1.5, 2.0, 3),
    (np.array([0.0, 1.0], dtype=np.float32), np.array([INF, 2.0], dtype=np.float32), 1.0),
])
def test_a_summed_product_on_other_operands_is_the_two_calls(g, p, x):
    expected = unbroadcast(general(g, p), x)
    got = summed_strong_times(g, p, x)
    np.testing.assert_array_equal(got, expected)
    assert type(got) is type(expected)


def test_the_owned_accumulator_is_a_fresh_array_of_the_arrays_shape():
    like = np.zeros(4)
    g = np.arange(4.0)
    owned = owned_accumulator(g, like)
    assert owned is not g and not np.shares_memory(owned, g)
    np.testing.assert_array_equal(owned, g)
    np.testing.assert_array_equal(owned_accumulator(None, like), np.zeros(4))
    broadcast = owned_accumulator(np.broadcast_to(2.0, (4,)), like)  # (a reduction's seed)
    assert broadcast.flags.writeable and broadcast.strides == (8,)
    np.testing.assert_array_equal(owned_accumulator(1.5, like), np.full(4, 1.5))


def test_the_owned_accumulator_keeps_accums_dtype():
    like32 = np.zeros(3, dtype=np.float32)
    assert owned_accumulator(None, like32).dtype == np.float32
    assert owned_accumulator(np.ones(3, dtype=np.float32), like32).dtype == np.float32
    assert owned_accumulator(np.ones(3), like32).dtype == np.float64  # as g + zeros(float32)
    assert owned_accumulator(np.arange(3), np.zeros(3)).dtype == np.float64
    with pytest.raises(ValueError):
        owned_accumulator(np.ones(2), np.zeros(3))  # as accum's g + zeros would
