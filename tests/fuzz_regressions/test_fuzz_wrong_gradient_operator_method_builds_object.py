"""Fuzz regression (wrong_gradient), found by the built_objects family of
`python -m fuzz --seed 5` (programs #44, #74, #246), shrunk by hand.

What zygote_py did:
    gradient (None, None, None), finite differences (5.0, 0.6, 10.0)

An operator on an object built inside f (`Vec(a, b) + 2.0 * Vec(c, 0.5)`) calls the
class's own `__add__` / `__rmul__`, which builds a new object.  The back of such a
method must run even when no cotangent reaches its result directly (the object's
cotangent lives in the ledger of built objects), and run-time dispatch marks it so;
the operator-protocol path (calls/protocols.py, dispatch._object_operands) dropped
the mark, so the backs never ran and every gradient was None.
"""

import numpy as np

from fuzz.oracle import assert_correct


class Vec:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __add__(self, o):
        return Vec(self.x + o.x, self.y + o.y)

    def __sub__(self, o):
        return Vec(self.x - o.x, self.y - o.y)

    def __mul__(self, k):
        return Vec(self.x * k, self.y * k)

    def __rmul__(self, k):
        return Vec(k * self.x, k * self.y)

    def __neg__(self):
        return Vec(-self.x, -self.y)

    def __matmul__(self, o):
        return self.x * o.x + self.y * o.y

    def __getitem__(self, i):
        return self.x if i == 0 else self.y

    def __call__(self, t):
        return self.x * t + self.y


def f(a, b, c):
    o1 = Vec(a, b) + 2.0 * Vec(c, 0.5)
    o2 = -(o1 - Vec(b, a) * 0.5)
    return o1 @ o2 + o1[1] + o2(c) + np.sin(a)


def make_args():
    return (0.3, -0.7, 1.1)


def test_fuzz_regression():
    assert_correct(f, make_args())
