"""The tangents forward mode gives writes into arrays (runtime/forward_writes.py), helper by
helper: the written region, views matched by address, in-place updates only of an array
nothing else holds, and the values the primal write would take (casts, integers)."""

import numpy as np

from zygote_py.runtime import forward_writes as fw


def test_item_tangent_replaces_the_written_region():
    x = np.zeros(4)
    x_dot = np.arange(4.0)
    out = fw.item_tangent(x, slice(1, 3), x_dot, np.array([10.0, 20.0]))
    np.testing.assert_array_equal(out, [0.0, 10.0, 20.0, 3.0])
    np.testing.assert_array_equal(x_dot, np.arange(4.0))  # a new array: not asked in place


def test_item_tangent_with_zero_tangents():
    x = np.zeros(3)
    np.testing.assert_array_equal(fw.item_tangent(x, 1, None, 2.5), [0.0, 2.5, 0.0])
    np.testing.assert_array_equal(fw.item_tangent(x, 1, np.ones(3), None), [1.0, 0.0, 1.0])
    assert fw.item_tangent(x, 1, None, None) is None


def test_repeated_indices_keep_the_last_write_as_numpy_does():
    x = np.zeros(3)
    out = fw.item_tangent(x, [0, 0, 2], None, np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(out, [2.0, 0.0, 3.0])


def test_integer_arrays_have_no_tangent():
    assert fw.item_tangent(np.zeros(3, dtype=int), 0, None, 1.0) is None
    assert fw.augmented_tangent(np.zeros(3, dtype=int), np.zeros(3), np.ones(3)) is None


def test_a_list_of_tangents_written_becomes_an_array():
    out = fw.item_tangent(np.zeros(3), slice(0, 2), None, [None, 4.0])
    np.testing.assert_array_equal(out, [0.0, 4.0, 0.0])


def _generated_code_with_one_variable(x):
    x_dot = np.ones(3)  # held by this variable only, as in generated code
    address = id(x_dot)
    x_dot = fw.item_tangent(x, 0, x_dot, 5.0, True)
    return address, x_dot


def test_in_place_only_when_asked_and_held_by_one_variable():
    x = np.zeros(3)
    address, result = _generated_code_with_one_variable(x)
    assert id(result) == address and result[0] == 5.0  # the same array, written
    held = np.ones(3)
    keep = [held]  # a list holds it too: copied
    result = fw.item_tangent(x, 0, held, 5.0, True)
    assert result is not held and held[0] == 1.0 and keep[0] is held
    base = np.ones(6)
    view = base[:3]  # a view: copied
    result = fw.item_tangent(x, 0, view, 5.0, True)
    assert result is not view and base[0] == 1.0
    result = fw.item_tangent(x, 0, base[:3].copy(), 5.0, False)  # not asked
    assert result[0] == 5.0


def test_writeback_takes_the_shared_elements_from_the_written_array():
    base = np.zeros(5)
    view = base[1:4]
    base_dot = np.arange(5.0)
    view_dot = fw.item_tangent(view, 0, base_dot[1:4], 9.0)
    new_base_dot = fw.writeback_tangent(base, view, base_dot, view_dot)
    np.testing.assert_array_equal(new_base_dot, [0.0, 9.0, 2.0, 3.0, 4.0])
    other = np.zeros(2)
    assert fw.writeback_tangent(other, view, None, view_dot) is None  # shares nothing
    assert fw.writeback_tangent(view, view, None, view_dot) is view_dot


def test_writeback_through_a_transposed_view():
    m = np.zeros((2, 3))
    t = m.T
    t_dot = np.arange(6.0).reshape(3, 2)
    m_dot = fw.writeback_tangent(m, t, None, t_dot)
    np.testing.assert_array_equal(m_dot, t_dot.T)


def test_augmented_tangent_casts_and_broadcasts_like_the_write():
    y = np.zeros((2, 2), dtype=np.float32)
    out = fw.augmented_tangent(y, np.zeros((2, 2)), np.array([1.0, 2.0]))
    assert out.dtype == np.float32 and out.shape == (2, 2)
    assert fw.augmented_tangent(1.5, 2.5, 3.0) == 3.0  # a number rebinds


def test_saved_regions_and_linear_helpers():
    x_dot = np.arange(4.0)
    saved = fw.region_tangent(x_dot, slice(0, 2))
    x_dot[0] = 100.0
    np.testing.assert_array_equal(saved, [0.0, 1.0])  # a copy
    g_dot = np.ones(3)
    out = fw.linear_tangent(lambda g, i: _zeroed(g, i), g_dot, 1)
    np.testing.assert_array_equal(out, [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(g_dot, np.ones(3))  # copied before the helper ran


def _zeroed(g, i):
    g[i] = 0.0  # an in-place shortcut, as overwritten_cotangent takes
    return g
