"""User classes overloading operators: what `a + b`, `-a`, `a[i]`, `a @ b` and
`np.sum(obj)` mean is decided by the operands' own methods, by Python's protocol
(`type(a).__add__`, then on NotImplemented `type(b).__radd__`, a subclass's
reflected method first), and NumPy's hand-off of reductions to the object's
method of the same name.  Objects are passed in and built inside (NamedTuples
passed in, which these finite differences do not perturb, are checked in
tests/calls/test_protocols.py)."""

from typing import NamedTuple

import numpy as np

from . import Case, rand, rfloat


class Dual(NamedTuple):
    """A dual number: value and derivative part; only its own methods make sense of it."""

    re: float
    eps: float

    def __add__(self, other):
        if isinstance(other, Dual):
            return Dual(self.re + other.re, self.eps + other.eps)
        return Dual(self.re + other, self.eps)

    def __radd__(self, other):
        return Dual(other + self.re, self.eps)

    def __sub__(self, other):
        if isinstance(other, Dual):
            return Dual(self.re - other.re, self.eps - other.eps)
        return Dual(self.re - other, self.eps)

    def __rsub__(self, other):  # other - self: not self - other
        return Dual(other - self.re, -self.eps)

    def __mul__(self, other):
        if isinstance(other, Dual):
            return Dual(self.re * other.re, self.re * other.eps + self.eps * other.re)
        return Dual(self.re * other, self.eps * other)

    def __rmul__(self, other):
        return Dual(other * self.re, other * self.eps)

    def __truediv__(self, other):
        if isinstance(other, Dual):
            return Dual(self.re / other.re,
                        (self.eps * other.re - self.re * other.eps) / (other.re * other.re))
        return Dual(self.re / other, self.eps / other)

    def __rtruediv__(self, other):  # other / self
        return Dual(other / self.re, -other * self.eps / (self.re * self.re))

    def __pow__(self, n):
        return Dual(self.re**n, n * self.re ** (n - 1) * self.eps)

    def __neg__(self):
        return Dual(-self.re, -self.eps)


class Vector(NamedTuple):
    """A small vector over an array, with arithmetic, @, unary minus and indexing."""

    data: np.ndarray
    __array_ufunc__ = None  # NumPy defers to the reflected methods (ndarray @ vector)

    def __add__(self, other):
        if isinstance(other, Vector):
            return Vector(self.data + other.data)
        return Vector(self.data + other)

    def __radd__(self, other):
        return Vector(other + self.data)

    def __mul__(self, other):
        if isinstance(other, Vector):
            return Vector(self.data * other.data)
        return Vector(self.data * other)

    def __rmul__(self, other):
        return Vector(other * self.data * 1.0)

    def __sub__(self, other):
        return Vector(self.data - other.data)

    def __matmul__(self, other):
        if isinstance(other, Vector):
            return np.sum(self.data * other.data)
        return self.data @ other

    def __rmatmul__(self, other):  # matrix @ vector
        return Vector(other @ self.data)

    def __neg__(self):
        return Vector(-self.data)

    def __getitem__(self, i):  # a scaled component, not tuple indexing
        return self.data[i] * 2.0

    def sum(self, axis=None, out=None):  # np.sum(vector) hands over to this
        return np.sum(self.data**2)

    def mean(self, axis=None, dtype=None, out=None):
        return np.sum(self.data) / 10.0


class Metric:
    """A plain class (no NamedTuple) passed in: its operators read its attributes."""

    def __init__(self, w):
        self.w = w

    def __mul__(self, x):
        return self.w * x * x

    def __rmul__(self, x):
        return self.w + x

    def __matmul__(self, x):
        return np.sum(self.w * x)

    def __call__(self, x):
        return np.sum(self.w * np.sin(x))

    def __getitem__(self, i):
        return self.w[i] ** 2

    def __neg__(self):
        return -2.0 * self.w

    def __lt__(self, other):  # comparisons run the method; no derivative through them
        return np.sum(self.w) < other


class OnlyFloats(NamedTuple):
    """__mul__ handles floats and declines everything else (NotImplemented), so for
    `a * b` with b a Vector, Python turns to Vector.__rmul__."""

    scale: float

    def __mul__(self, other):
        if isinstance(other, float):
            return OnlyFloats(self.scale * other)
        return NotImplemented

    def __rmul__(self, other):
        return OnlyFloats(self.scale * other * 3.0)


class Base(NamedTuple):
    v: float

    def __add__(self, other):
        return Base(self.v + 10.0 * other.v)

    def __radd__(self, other):
        return Base(self.v + 100.0 * other.v)


class Derived(Base):
    """Overrides the reflected method: `base + derived` calls Derived.__radd__ first."""

    def __radd__(self, other):
        return Derived(self.v * 2.0 + other.v * 3.0)


def dual_polynomial(x):
    d = Dual(x, 1.0)  # built inside: its eps part is the derivative of the polynomial
    p = 3.0 * d * d - d / 2.0 + 1.0 - d**3
    return p.re * x + p.eps


def dual_reflected(x, y):
    d = Dual(x, y)
    q = 2.0 - d + (1.0 / (d + 3.0)) * 0.5 - (-d)
    return q.re * q.eps


def vector_arithmetic(x, y):
    u = Vector(x)
    v = Vector(y)
    w = 2.0 * u + v * u - (-v) + 1.5
    return w @ v + u[1]


def vector_matmul(A, x):
    v = Vector(x)
    w = A @ v  # Vector declines NumPy's ufuncs: ndarray.__matmul__ defers, Vector.__rmatmul__
    return w @ v + (v @ x)


def vector_numpy_handoff(x):
    v = Vector(x * 2.0)
    return np.sum(v) + np.mean(v) + np.sum(x)


def metric_methods(m, x):
    return np.sum(m * x + 2.0 * m) + (m @ x) + m(x) + m[1] + np.sum(-m) + np.sum(m.w)


def metric_comparison(m, x):
    if m < 100.0:  # Metric.__lt__ runs
        return m @ x
    return np.sum(x)


def not_implemented_turn(s, x):
    a = OnlyFloats(s)
    b = a * x  # OnlyFloats.__mul__ for a float
    c = 2.0 * a  # float declines: OnlyFloats.__rmul__
    return b.scale + c.scale


def subclass_reflected_first(x, y):
    out = Base(x) + Derived(y)  # Derived.__radd__ (the subclass's override) goes first
    plain = Base(x) + Base(y)  # same type: Base.__add__
    return out.v * plain.v


CASES = [
    Case(dual_polynomial, (rfloat(1, 0.5, 1.5),)),
    Case(dual_reflected, (rfloat(2, 0.5, 1.5), rfloat(3))),
    Case(vector_arithmetic, (rand(3, seed=7), rand(3, seed=8))),
    Case(vector_matmul, (rand(3, 3, seed=9), rand(3, seed=10))),
    Case(vector_numpy_handoff, (rand(4, seed=13),)),
    Case(metric_methods, (Metric(rand(3, seed=14)), rand(3, seed=15))),
    Case(metric_comparison, (Metric(rand(3, seed=16)), rand(3, seed=17))),
    Case(not_implemented_turn, (rfloat(18), rfloat(19))),
    Case(subclass_reflected_first, (rfloat(20), rfloat(21))),
]
