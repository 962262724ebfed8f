"""`sum(rows, [])` / `sum(pairs, ())`: builtins.sum with a list or tuple start
concatenates, and its cotangent is split among start and the items (once an internal
TypeError from unbroadcast), in reverse and forward mode, checked against central
finite differences."""

import numpy as np
import pytest

import zygote_py as zp


def flatten_lists(x):
    rows = [[x, 2.0 * x], [x * x]]
    flat = sum(rows, [])
    return flat[0] * flat[2] + 3.0 * flat[1]


def flatten_tuples(x):
    flat = sum([(np.sin(x),), (x * x, 2.0)], (x,))
    return flat[0] + 5.0 * flat[1] + flat[2] * flat[3]


def flatten_zip(x):
    flat = sum(zip([x, 2.0 * x], [1.0, np.cos(x)]), ())
    return flat[0] * flat[3] + flat[2]


def flatten_argument(x, rows):
    flat = sum(rows, [])
    return flat[1] * x + flat[2]


def _fd(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("f", [flatten_lists, flatten_tuples, flatten_zip])
def test_gradient_and_jvp_match_finite_differences(f):
    x = 0.7
    (g,) = zp.gradient(f, x)
    assert g == pytest.approx(_fd(f, x), rel=1e-6)
    y, t = zp.jvp(f, (x,), (1.0,))
    assert y == pytest.approx(f(x)) and t == pytest.approx(_fd(f, x), rel=1e-6)


def test_the_items_get_their_pieces_of_the_cotangent():
    gx, grows = zp.gradient(flatten_argument, 0.5, [[1.0, 2.0], [3.0]])
    assert gx == pytest.approx(2.0)
    assert grows[0][1] == pytest.approx(0.5) and grows[1][0] == pytest.approx(1.0)
    assert grows[0][0] in (None, 0.0)
