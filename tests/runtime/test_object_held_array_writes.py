"""An object built in the differentiated call that holds an array in an attribute sees
a later write into that array, as in Python (reverse mode: runtime/writes.py moves the
derivatives the object's reads gathered in the ledger to the written array where they
share its memory).  These were refused ("'o' shares memory with an array written after
it was made"); forward mode refuses them."""

import numpy as np
import pytest
from write_checks import check_writes

import zygote_py as zp


class Box:
    def __init__(self, w):
        self.w = w


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a = a
        self.b = b


def augmented_name(x, c):
    y = x * 1.0
    o = Box(y)
    y += c
    return np.sum(o.w ** 2)


def read_before_and_after(x, c):
    y = x * 1.0
    o = Box(y)
    before = np.sum(o.w * x)  # the values before the write
    y[1:] *= c
    return np.sum(np.sin(o.w)) + before


def slots_holding_views(x, c):
    m = np.stack([x, 2.0 * x])
    s = Slotted(m[0], m[1, ::-1])
    m[:, 1] = c
    return np.sum(s.a * s.b) + np.sum(m)


def named_attribute_written(x, c):
    o = Box(np.cos(x))
    w = o.w
    w[1] = c * w[0]
    return np.sum(o.w ** 2)


def constant_written(x, c):
    y = x * 1.0
    o = Box(y)
    y[0] = 5.0  # o.w[0]'s derivative belongs to the constant
    return np.sum(o.w ** 2) * c


CASES = [augmented_name, read_before_and_after, slots_holding_views, named_attribute_written,
         constant_written]
X = np.array([0.3, -0.5, 0.9])


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_gradient(f):
    check_writes(f, X, 0.7)


def test_an_argument_object_holding_the_written_array_is_refused():
    def f(o, x):
        y = o.w
        y += x
        return np.sum(o.w ** 2)

    with pytest.raises(zp.MutationError):
        zp.gradient(f, Box(X.copy()), X)


def test_forward_mode_refuses():
    with pytest.raises(zp.ZygoteError):
        zp.jvp(augmented_name, (X, 0.7), (X, 1.0))
