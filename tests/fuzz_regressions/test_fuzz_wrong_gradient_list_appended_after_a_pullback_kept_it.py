"""Fuzz regression (wrong_gradient), reduced by hand from program #1986 of
`python -m fuzz --seed 40001`.

What zygote_py did:
    gradient arg1[(0,)]: zygote_py 3.0, finite differences 4.0

`xs8[0]` in a branch whose other arm passes `xs8` to a helper is dispatched
while running, and its pullback keeps the list object.  The generated code then
appended to that same list in place (`xs8.append(...)`), so when the adjoint ran
the pullback saw the longer list and one item's cotangent was lost.  A value a
pullback (or a tape) holds is now live until the adjoint ends: the append makes
a new list.

Since objects built inside the differentiated call are supported, appending to
a list after passing it to a user function (which may keep it) is refused at
the append; the same lists reached through a NumPy call (a rule, which keeps
nothing) are appended to and differentiated.
"""

import numpy as np
import pytest

import zygote_py as zp
from fuzz.oracle import assert_correct


def h0(a, b, c, scale):
    return b * a[1]


def f(a0, a1):
    xs8 = [a1[0]]
    k18 = 0
    while k18 < 3:
        k18 += 1
        xs8.append(xs8[0] if xs8[0] else h0(a1, 1.0, 2.0, scale=xs8))
    return sum(xs8)


def straight(a1):
    xs = [a1[0]]
    t = xs[0] if a1[2] > 0 else h0(a1, 1.0, 2.0, scale=xs)
    xs.append(t * 2.0)
    u = xs[0] if a1[2] > 0 else h0(a1, 1.0, 2.0, scale=xs)
    xs.append(u * 3.0)
    return sum(xs) + xs[1] * xs[2]


def through_numpy(a0, a1):
    xs8 = [a1[0]]
    k18 = 0
    while k18 < 3:
        k18 += 1
        xs8.append(xs8[0] if xs8[0] else np.sum(np.array(xs8)) * a1[1])
    return sum(xs8)


def straight_through_numpy(a1):
    xs = [a1[0]]
    t = xs[0] if a1[2] > 0 else np.sum(np.array(xs)) * a1[1]
    xs.append(t * 2.0)
    u = xs[0] if a1[2] > 0 else np.sum(np.array(xs)) * a1[1]
    xs.append(u * 3.0)
    return sum(xs) + xs[1] * xs[2]


def test_fuzz_regression():
    with pytest.raises(zp.MutationError, match="may hold"):
        zp.gradient(f, 2, np.array([0.7, -0.94, 0.07]))
    assert_correct(through_numpy, (2, np.array([0.7, -0.94, 0.07])))


def test_fuzz_regression_without_a_loop():
    with pytest.raises(zp.MutationError, match="may hold"):
        zp.gradient(straight, np.array([0.7, -0.94, 0.07]))
    assert_correct(straight_through_numpy, (np.array([0.7, -0.94, 0.07]),))
    assert_correct(straight_through_numpy, (np.array([0.7, -0.94, -0.07]),))
