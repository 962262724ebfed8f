"""Forward mode reads a NamedTuple's fields by name from a tangent a rule built by
position: `max(points, key=...).x` once had a tangent of 0.0 (the derived jvp of `max`
returns a plain tuple, and `.x` of a tuple was taken as no tangent).  A tangent without
names read by attribute is refused rather than taken as zero.  A class constant read through
a NamedTuple has no tangent (the tangent object's class holds the same constant)."""

import collections
from typing import NamedTuple

import numpy as np
import pytest

import zygote_py as zp

X = np.array([0.7, -0.4, 1.3, 0.25])
V = np.array([0.3, -1.2, 0.5, 2.0])


class Point(NamedTuple):
    x: float
    y: float


Pair = collections.namedtuple("Pair", "a b")


class Scaled(NamedTuple):
    a: float
    b: float
    SCALE = 2.0  # a class constant, not a field

    def total(self):
        return self.a * self.SCALE + self.b


def highest_x(x):
    pts = [Point(x[i], x[i + 1]) for i in range(3)]
    return max(pts, key=lambda p: p.y).x


def lowest_by_sort(x):
    pts = [Point(x[i], x[i + 1]) for i in range(3)]
    return sorted(pts, key=lambda p: p.y)[0].x + min(pts).y


def best_pair(x):
    pts = [Pair(x[i], x[i + 1]) for i in range(3)]
    best = max(pts, key=lambda p: p.b)
    return best.a * best.b


def sort_with_range(x):
    items = sorted(zip(x, range(4)), key=lambda t: -t[0])
    return items[0][0] * 2 + items[-1][0] * items[1][1]


def class_constant(x):
    # the tangent of p is a Scaled of tangents: its SCALE is the class's 2.0, not a tangent
    # (zp.jvp once gave 6.0 for 5.0 here, and a Hessian of 16 for a function linear in x)
    p = Scaled(x[3], x[0])
    return p.SCALE * p.a + p.total()


def as_dict(x):
    # namedtuple._asdict() zips the class's _fields with the values: its keys have no tangent
    p = Pair(x[1], x[0] * x[2])
    q = p._asdict()
    return q["b"] * p[0] + len(p._fields) * q["a"]


def _fd(f, h=1e-6):
    return (f(X + h * V) - f(X - h * V)) / (2 * h)


@pytest.mark.parametrize("f", [highest_x, lowest_by_sort, best_pair, sort_with_range,
                               class_constant, as_dict])
def test_jvp_gradient_and_hessian_match_finite_differences(f):
    y, t = zp.jvp(f, (X.copy(),), (V.copy(),))
    assert y == pytest.approx(f(X)) and t == pytest.approx(_fd(f), rel=1e-6, abs=1e-9)
    (g,) = zp.gradient(f, X.copy())
    assert g @ V == pytest.approx(_fd(f), rel=1e-6, abs=1e-9)
    H = zp.hessian(f, X.copy())
    h = 1e-6
    H_fd = np.stack([(zp.gradient(f, X + h * e)[0] - zp.gradient(f, X - h * e)[0]) / (2 * h)
                     for e in np.eye(4)])
    assert np.allclose(H, H_fd, atol=1e-6)
