"""runtime.helpers.accum: the sum of two cotangents of one value, None being zero."""

import numpy as np

from zygote_py.runtime.helpers import accum


def test_array_and_list_with_zero_items_add_item_by_item():
    # a list's cotangent from a NumPy rule (an array) meets one from an item read
    # ([g, None]): the None item is a zero, not an operand of +
    out = accum(np.array([1.0, 0.5]), [2.0, None])
    assert type(out) is list and out == [3.0, 0.5]
    out = accum([None, 2.0], np.array([1.0, 0.5]))
    assert type(out) is list and out == [1.0, 2.5]


def test_array_and_tuple_keep_the_tuple_form():
    out = accum(np.array([1.0, 2.0]), (None, 1.0))
    assert out == (1.0, 3.0)


def test_plain_sums_stay_plain():
    np.testing.assert_array_equal(accum(np.ones(2), np.ones(2)), [2.0, 2.0])
    assert accum(1.5, 2.0) == 3.5 and accum(None, 2.0) == 2.0 and accum(2.0, None) == 2.0
