"""runtime/tape_rows.py: when an array is swapped for its copy in a row, and the rows' layout."""

import numpy as np
import pytest

from zygote_py.runtime import tape_rows as tr
from zygote_py.runtime.tape_rows import tape_row, tape_rows

N = 300  # 2,400 bytes a float64 row: above MIN_ROW_BYTES


def fresh(n=N, dtype=np.float64):
    return np.arange(n, dtype=dtype) * 0.5


def test_a_fresh_array_goes_into_a_row_with_its_exact_bits():
    rows = tape_rows(3)
    values = np.array([np.nan, np.inf, -np.inf, -0.0, 5e-324] + [1.0] * (N - 5))
    row = tape_row(rows, values.copy())
    assert row.base is not None and rows.made == 3
    assert row.shape == values.shape and row.strides == values.strides and row.dtype == values.dtype
    np.testing.assert_array_equal(row.view(np.int64), values.view(np.int64))


def test_rows_do_not_overlap_and_start_on_64_bytes_apart():
    rows = tape_rows(4)
    made = [tape_row(rows, fresh() + k) for k in range(4)]
    starts = [r.__array_interface__["data"][0] for r in made]
    assert all((b - a) % 64 == 0 and b - a >= N * 8 for a, b in zip(starts, starts[1:]))
    for a in made:
        for b in made:
            assert a is b or not np.may_share_memory(a, b)
    for k, r in enumerate(made):
        np.testing.assert_array_equal(r, fresh() + k)


def test_an_array_another_name_holds_is_not_swapped():
    rows = tape_rows(2)
    held = fresh()
    assert tape_row(rows, held) is held  # (the variable here holds it too)
    in_list = [fresh()]
    assert tape_row(rows, in_list[0]) is in_list[0]


def test_an_array_a_view_refers_to_is_not_swapped():
    rows = tape_rows(2)
    base = fresh()
    view = base[1:]
    del base
    assert tape_row(rows, view.base) is view.base  # (held by the view)


def test_views_subclasses_and_other_objects_are_returned_as_they_are():
    rows = tape_rows(2)
    a = fresh()
    assert tape_row(rows, a[1:]).base is a  # a view: returned as it is
    m = np.ma.masked_array(fresh())
    assert tape_row(rows, m) is m
    for value in (1.0, np.float64(2.0), [1.0] * N, None):
        assert tape_row(rows, value) is value


@pytest.mark.parametrize("make", [
    lambda: np.ones(10),  # small: NumPy's own cache
    lambda: np.asfortranarray(np.ones((30, 30))),  # another layout than C order
    lambda: np.ones(N, dtype=object),
    lambda: np.ones(N, dtype=">f8"),  # non-native byte order
    lambda: np.ones((), dtype=np.float64),
])
def test_arrays_that_do_not_go_into_rows(make):
    rows = tape_rows(2)
    first = tape_row(rows, make())
    assert first.base is None and rows.shape is False
    again = tape_row(rows, fresh())  # the first array decided: none of this loop's
    assert again.base is None


def read_only():
    a = fresh()
    a.flags.writeable = False
    return a


def test_a_read_only_array_is_not_swapped():
    rows = tape_rows(2)
    row = tape_row(rows, fresh())
    assert row.base is not None
    kept = tape_row(rows, read_only())  # a temporary, held by nothing else
    assert kept.base is None and not kept.flags.writeable


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.complex128, np.bool_])
def test_other_numeric_dtypes(dtype):
    rows = tape_rows(2)
    value = (np.arange(2048) % 3).astype(dtype)  # 2 kB even as bools
    row = tape_row(rows, value.copy())
    assert row.base is not None and row.dtype == dtype
    np.testing.assert_array_equal(row, value)


def test_another_shape_or_dtype_later_is_returned_as_it_is():
    # (each call outside its assert: pytest's rewritten asserts hold the value they show)
    rows = tape_rows(3)
    made = [tape_row(rows, fresh()), tape_row(rows, fresh(N + 1)),
            tape_row(rows, fresh(dtype=np.float32)), tape_row(rows, fresh())]
    assert [r.base is not None for r in made] == [True, False, False, True]


def test_a_2d_array_keeps_its_shape_and_strides():
    rows = tape_rows(2)
    value = np.arange(40 * 7, dtype=np.float64).reshape(40, 7)
    row = tape_row(rows, value.copy())
    assert row.shape == (40, 7) and row.strides == value.strides and row.flags.c_contiguous
    np.testing.assert_array_equal(row, value)


def test_blocks_grow_where_the_count_is_not_known():
    rows = tape_rows()
    made = [tape_row(rows, fresh() + k) for k in range(30)]
    assert all(r.base is not None for r in made)
    assert rows.made >= 30 and rows.made <= 2 * 30 + tr._FIRST_ROWS
    for k, r in enumerate(made):
        np.testing.assert_array_equal(r, fresh() + k)


def test_more_rows_than_the_range_said_still_go_into_rows():
    rows = tape_rows(0, 2)
    made = [tape_row(rows, fresh() + k) for k in range(5)]
    assert all(r.base is not None for r in made)
    for k, r in enumerate(made):
        np.testing.assert_array_equal(r, fresh() + k)


def test_no_block_is_larger_than_the_limit(monkeypatch):
    monkeypatch.setattr(tr, "MAX_BLOCK_BYTES", 5 * 2432)
    rows = tape_rows(100)
    made = [tape_row(rows, fresh() + k) for k in range(12)]
    assert len({id(r.base) for r in made}) == 3  # blocks of 5, 5, 5 rows
    for k, r in enumerate(made):
        np.testing.assert_array_equal(r, fresh() + k)


@pytest.mark.parametrize("args, expected", [((10,), 10), ((2, 10, 3), 3), ((5, 1), 0),
                                            ((1.5,), None), ((np.int64(4),), None), ((), None)])
def test_the_expected_count(args, expected):
    assert tape_rows(*args).expected == expected
