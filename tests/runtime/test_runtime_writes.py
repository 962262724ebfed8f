"""The run-time helpers of in-place writes (zygote_py/runtime/writes.py)."""

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.runtime import writes


def test_written_value_cotangent_last_write_wins():
    g = np.array([1.0, 2.0, 3.0, 4.0])
    x = np.zeros(4)
    got = writes.written_value_cotangent(g, np.array([0, 2, 0, 3]), np.ones(4), x)
    np.testing.assert_array_equal(got, [0.0, 3.0, 1.0, 4.0])  # the first 0 was overwritten


def test_written_value_cotangent_sums_a_broadcast_value():
    g = np.arange(6.0).reshape(2, 3)
    got = writes.written_value_cotangent(g, (slice(None), slice(0, 2)), 1.5, np.zeros((2, 3)))
    assert got == pytest.approx(0 + 1 + 3 + 4)


def test_written_value_cotangent_of_a_float_into_an_int_array_is_zero():
    assert writes.written_value_cotangent(np.ones(3), 0, 2.5, np.zeros(3, dtype=int)) is None


def test_overwritten_cotangent_copies_an_array_someone_else_holds():
    g = np.ones(3)
    other = g
    out = writes.overwritten_cotangent(other, 1)
    np.testing.assert_array_equal(out, [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(g, [1.0, 1.0, 1.0])  # not zeroed behind `g`


def test_shared_positions_follow_addresses():
    y = np.arange(12.0).reshape(3, 4)
    t = y.T
    pos_m, pos_t = writes.shared_positions(y, t[1:3])
    np.testing.assert_array_equal(y.ravel()[pos_m], t[1:3].ravel()[pos_t])
    assert writes.shared_positions(y, np.zeros(3)) is None


def test_augmented_write_keeps_numpys_rules():
    y = np.zeros(3, dtype=int)
    with pytest.raises(TypeError):
        writes.augmented_write(y, y + 0.5)
    with pytest.raises(ValueError):
        writes.augmented_write(np.zeros(3), np.zeros((2, 3)))
    assert writes.augmented_write(2.0, 3.0) == 3.0


def test_write_item_refuses_a_list():
    with pytest.raises(zp.MutationError, match="list"):
        writes.write_item([1.0, 2.0], 0, 3.0)


def test_check_distinct_arguments():
    a = np.zeros(4)
    writes.check_distinct_arguments((a, np.zeros(4), 1.0), (0,))
    with pytest.raises(zp.MutationError, match="shares memory"):
        writes.check_distinct_arguments((a, [a[1:]]), (0,))
