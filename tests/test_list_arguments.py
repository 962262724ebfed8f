"""A list or tuple argument that NumPy reads as an array gets its gradient item by
item (the array cotangent's rows), checked against central finite differences."""

import numpy as np
import pytest

import zygote_py as zp
import list_argument_cases as cases


def _fd_items(f, items, *rest, h=1e-6):
    flat = np.array(items, dtype=float)
    out = np.zeros_like(flat)
    for i in np.ndindex(flat.shape):
        up, down = flat.copy(), flat.copy()
        up[i] += h
        down[i] -= h
        out[i] = (f(up.tolist(), *rest) - f(down.tolist(), *rest)) / (2 * h)
    return out


@pytest.mark.parametrize("kind", [list, tuple])
def test_list_of_floats_into_np_append(kind):
    a = kind([1.0, 2.0, 3.0])
    ga, gb = zp.gradient(cases.append_to_a_list, a, 4.0)
    assert type(ga) is kind and all(type(v) is float for v in ga)
    np.testing.assert_allclose(ga, _fd_items(cases.append_to_a_list, list(a), 4.0), rtol=1e-7)
    assert gb == pytest.approx(np.cos(4.0) * 4.0)


def test_nested_lists():
    rows = [[1.0, -2.0], [0.5, 3.0]]
    (g,) = zp.gradient(cases.nested_list_through_array, rows)
    assert type(g) is list and type(g[0]) is list
    np.testing.assert_allclose(np.array(g), _fd_items(cases.nested_list_through_array, rows), rtol=1e-6)
