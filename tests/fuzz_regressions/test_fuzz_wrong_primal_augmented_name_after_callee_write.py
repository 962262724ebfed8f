"""Fuzz regression (wrong_primal), shrunk from program #9373 of `python -m fuzz --seed 20261201`.

`a0 += h0(sum([a0]))` with a float a0, where h0 does `p0 -= ...` on its parameter: the
callee's write made a "writeback" binding for a0 (sum([a0]) may be a0 when a0 is an
array), and the augmented assignment's own result was then folded into that binding
instead of replacing it, so the value of the whole line was dropped: value 0.764 and
gradient 1.0 instead of 0.528 and 2.0.
"""

import numpy as np

from fuzz.oracle import assert_correct

import zygote_py as zp


def h0(p0):
    acc2 = np.array([[1.0, 0.6, 1.0]])
    p0 -= sum((t3 for t3 in acc2[:, 2]))
    return p0


def f(a0):
    a0 += h0(sum([a0]))
    v4 = a0
    return v4


def f_array(a0):
    a0 += h0(sum([a0]))
    return np.sum(a0)


def make_args():
    return (0.764,)


def test_fuzz_regression():
    assert_correct(f, make_args())


def test_value_and_gradient_exact():
    assert zp.withgradient(f, 0.764) == (0.528, (2.0,))


def test_array_argument():
    x = np.array([0.764, 0.5])
    value, (grad,) = zp.withgradient(f_array, x.copy())
    assert np.isclose(value, f_array(x.copy()))
    np.testing.assert_allclose(grad, [2.0, 2.0])
