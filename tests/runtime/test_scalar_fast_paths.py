"""The short paths runtime/helpers.py takes for scalars (one float into a float array,
two scalars) give exactly what the general paths give."""

import numpy as np
import pytest

from zygote_py.runtime.helpers import accum_index, unbroadcast


@pytest.mark.parametrize("g", [0.5, np.float64(-1.25)])
def test_one_float_into_a_float_array_adds_in_place(g):
    seq = np.arange(4.0)
    acc = accum_index(None, seq, 2, g)  # made by the general path
    again = accum_index(acc, seq, 2, g)  # the short path
    assert again is acc
    np.testing.assert_array_equal(acc, [0.0, 0.0, 2 * g, 0.0])


def test_an_int_index_into_a_matrix_adds_to_the_row():
    seq = np.ones((3, 2))
    acc = accum_index(None, seq, 0, np.array([1.0, 2.0]))
    accum_index(acc, seq, 1, 0.5)
    np.testing.assert_array_equal(acc, [[1.0, 2.0], [0.5, 0.5], [0.0, 0.0]])


def test_reversed_positions_still_take_the_general_path():
    seq = np.arange(5.0)
    acc = accum_index(None, seq, 0, 1.0, True)
    accum_index(acc, seq, 1, 2.0, True)
    np.testing.assert_array_equal(acc, [0.0, 0.0, 0.0, 2.0, 1.0])  # from the end


def test_a_complex_value_into_a_real_array_keeps_its_real_part():
    seq = np.arange(3.0)
    acc = accum_index(None, seq, 1, 1.0)
    accum_index(acc, seq, 1, np.complex128(2.0 + 3.0j))
    np.testing.assert_array_equal(acc, [0.0, 3.0, 0.0])


@pytest.mark.parametrize("g, x", [(1.5, 2.0), (np.float64(1.5), 2.0), (1.5, np.float64(2.0))])
def test_two_scalars_are_not_unbroadcast(g, x):
    out = unbroadcast(g, x)
    assert out is g


def test_a_scalar_against_an_array_is_still_broadcast():
    out = unbroadcast(np.float64(2.0), np.zeros(3))
    np.testing.assert_array_equal(out, [2.0, 2.0, 2.0])
