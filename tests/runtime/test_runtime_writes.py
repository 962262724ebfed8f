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


def test_write_item_into_a_list_or_dict_and_back():
    xs, d, log = [1.0, 2.0], {"a": 1.0}, {}
    saved = writes.saved_region(xs, 0, log), writes.saved_region(d, "b", log)
    assert writes.write_item(xs, 0, 3.0) is xs and xs == [3.0, 2.0]
    assert writes.write_item(d, "b", 4.0) is d and d == {"a": 1.0, "b": 4.0}
    assert writes.written_value_cotangent([5.0, 6.0], 0, 3.0, xs) == 5.0
    assert writes.overwritten_cotangent([5.0, 6.0], 0) == [None, 6.0]
    assert writes.overwritten_cotangent({"a": 1.0, "b": 2.0}, "b") == {"a": 1.0}
    writes.restore_region(xs, 0, saved[0])
    writes.restore_region(d, "b", saved[1])
    assert xs == [1.0, 2.0] and d == {"a": 1.0} and len(log) == 2
    with pytest.raises(zp.MutationError, match="one item at an integer index"):
        writes.write_item(xs, slice(0, 1), [3.0])
    with pytest.raises(zp.MutationError, match="tuple"):
        writes.write_item((1.0,), 0, 3.0)


def test_check_distinct_arguments():
    a = np.zeros(4)
    writes.check_distinct_arguments((a, np.zeros(4), 1.0), (0,))
    with pytest.raises(zp.MutationError, match="shares memory"):
        writes.check_distinct_arguments((a, [a[1:]]), (0,))


# -- functions that write into their arguments, and NumPy's in-place functions ---------------
def _double_first(a, s=1.0):
    a[0] *= 2.0 * s
    return "done"


def test_argument_writes_returns_the_result_and_the_objects_passed():
    call = writes.ArgumentWrites(_double_first, (0, ), ("a",))
    a = np.ones(3)
    result, written = call(s=1.5, a=a)
    assert result == "done" and written is a and a[0] == 3.0
    positional = writes.ArgumentWrites(_double_first, (0,), (0,))
    assert positional(a)[1] is a and a[0] == 6.0
    assert positional == writes.ArgumentWrites(_double_first, (0,), (0,))
    assert hash(positional) == hash(writes.ArgumentWrites(_double_first, (0,), (0,)))


def test_snapshot_except_leaves_out_the_arguments_memory():
    kept, other = np.zeros(4), np.zeros(2)
    view = kept[1:3]
    pairs = writes.snapshot_except({1: kept, 2: view, 3: other}, (kept, 2.0))
    assert [x is other for x, _ in pairs] == [True]


def test_log_written_arguments_logs_arrays_lists_and_dicts_only():
    log = {}
    a, xs = np.zeros(2), [1.0]
    writes.log_written_arguments(a, 3.0, xs, (1.0,), log)
    assert list(log.values()) == [a, xs]


def test_positions_follow_numpy():
    a = np.zeros(6)
    np.put(a, [1, -1, 7], [1.0, 2.0, 3.0], mode="wrap")
    where = writes.put_positions((6,), [1, -1, 7], "wrap", 3)
    b = np.zeros(6)
    b[where] = [1.0, 2.0, 3.0]
    np.testing.assert_array_equal(a, b)
    assert writes.position_count(writes.put_positions((6,), [1, 2], "raise", 0)) == 0
    with pytest.raises(IndexError):
        writes.put_positions((6,), [6], "raise", 1)
    m = np.zeros((4, 3))
    np.fill_diagonal(m, [1.0, 2.0, 3.0], wrap=True)
    d = np.zeros((4, 3))
    where = writes.diagonal_positions((4, 3), True)
    d[where] = np.resize([1.0, 2.0, 3.0], writes.position_count(where))
    np.testing.assert_array_equal(m, d)
    mask = np.array([True, False, True, True])
    where = writes.place_positions((4,), mask, 2)
    np.testing.assert_array_equal(where[0], [0, 2, 3])
    with pytest.raises(ValueError):
        writes.place_positions((4,), mask, 0)


def test_check_sortable_refuses_a_list():
    writes.check_sortable(np.zeros(2))
    with pytest.raises(zp.MutationError, match="list.sort"):
        writes.check_sortable([2.0, 1.0])
