"""Fuzz regression (wrong_primal), shrunk from program #4861 of `python -m fuzz --seed 20261209`.

What zygote_py did:
    withgradient value 0.19343715527228933, plain Python 0.2907398501236428

`acc += np.array([1.0])` on a list: Python tries the array's __radd__ first (a list has
no in-place number slot), so acc becomes the array [a0 + 1.0]; zygote_py extended the
list to [a0, 1.0] (frontend/lower_stmt.container_augassign, runtime/containers.radd_first).
"""

import numpy as np
import pytest

import zygote_py as zp
from fuzz.oracle import assert_correct


def f(a0):
    v5 = a0
    acc15 = [v5]
    acc15 += np.array([1.0])
    return np.sum(np.sin(acc15))


def extends_with_a_list_or_adds_an_array(a0, extra):
    p = [a0]
    p += extra
    return np.sum(np.asarray(p) ** 2)


def make_args():
    return (-0.705,)


def test_fuzz_regression():
    assert_correct(f, make_args())


@pytest.mark.parametrize("extra", [np.array([2.0, 3.0]), [2.0, 3.0], (2.0,)],
                         ids=["array", "list", "tuple"])
def test_list_iadd_follows_python(extra):
    assert_correct(extends_with_a_list_or_adds_an_array, (0.3, extra))


def test_list_iadd_of_a_numpy_scalar_adds_it():
    # np.float64's __radd__ wins too: p becomes the array [a0 + 2.0] (a float would be
    # iterated, and raise, so finite differences cannot perturb it: checked by hand)
    value, (g0, g1) = zp.withgradient(extends_with_a_list_or_adds_an_array, 0.3, np.float64(2.0))
    assert value == pytest.approx(2.3 ** 2)
    assert g0 == pytest.approx(2 * 2.3) and g1 == pytest.approx(2 * 2.3)
    _, t = zp.jvp(extends_with_a_list_or_adds_an_array, (0.3, np.float64(2.0)), (1.0, 0.5))
    assert t == pytest.approx(2 * 2.3 * 1.5)
