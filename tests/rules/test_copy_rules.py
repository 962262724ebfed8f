"""copy.copy and copy.deepcopy of arrays and of lists, tuples and dicts of them
(rules/containers.py): end to end, with writes through the copies, against central
differences; objects are refused.  copy.copy of a list failed on the 3-argument getattr of
its source before, and deepcopy had no rule."""

import copy

import numpy as np
import pytest

import zygote_py as zp
from write_checks import check_jvp_writes, check_writes

X = np.array([0.5, 2.0, -0.7])


def shallow_and_deep(x):
    L = [x * 1.0, {"a": x ** 2}]
    S = copy.copy(L)
    D = copy.deepcopy(L)
    S[0][0] = 9.0 * x[2]  # the shallow copy shares the array: L[0] changes too
    D[1]["a"][1] = 5.0  # the deep copy does not: L[1]["a"] keeps x ** 2
    return np.sum(L[0] * D[1]["a"]) + np.sum(L[1]["a"]) + np.sum(S[0])


def copied_array(x):
    c = copy.copy(x)
    c[0] = c[1] * 3.0
    return np.sum(c ** 2) + np.sum(x)


@pytest.mark.parametrize("f", [shallow_and_deep, copied_array])
def test_copies(f):
    check_writes(f, X)
    check_jvp_writes(f, X)


class _Box:
    def __init__(self, w):
        self.w = w


def copies_an_object(x):
    return np.sum(copy.deepcopy(_Box(x * 2.0)).w)


def test_a_copy_of_an_object_is_refused():
    with pytest.raises(zp.ZygoteError):
        zp.gradient(copies_an_object, X)
