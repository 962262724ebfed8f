"""Issue 12's list of silently wrong gradients and internal errors, each in one small
program, checked in reverse and forward mode against central finite differences (the
issue's own repros; every one is also tested where its fix lives)."""

import collections
import math  # noqa: F401  (the cases' namespace)
import threading
from typing import NamedTuple

import numpy as np
import pytest

import zygote_py as zp

X = np.array([0.7, -0.4, 1.3])


def fd(f, x, h=1e-6):
    x = np.asarray(x, float)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


cases = {}
def case(fn):
    cases[fn.__name__] = fn
    return fn
@case
def zip_star(x):
    pairs = [(x[0], x[1]), (x[2], 2.0)]
    return sum(a * b for a, b in zip(*pairs))
@case
def zip_value(x):
    z = zip(x, x * 2); s = 0.0
    for a, b in z: s = s + a * b
    return s
@case
def list_zip(x): return list(zip(x, x))[1][0] * 3
@case
def enum_value(x):
    e = enumerate(x); s = 0.0
    for i, v in e: s = s + i * v
    return s
@case
def sum_reversed(x): return sum(a * a for a in list(reversed(x)))
@case
def enum_start(x):
    t = 0.0
    for i, e in enumerate(x, start=1): t = t + e * i
    return t
@case
def dict_update(x):
    d = {'a': 1.0}; d.update({'b': x[0]}); d.update(c=x[1]); return d['b'] + d['c']
@case
def dict_kw(x):
    d = dict(a=x[0], b=x[1]); return d['a'] * d['b']
class P:
    def __init__(self, v): self.v = v
    def mean(self): return self.v * 3
    @property
    def T(self): return self.v * 2
    def sum(self, y): return self.v + y
@case
def named_like_ndarray(x):
    p = P(x[0]); return p.mean() + p.T + p.sum(x[1])
class NT(NamedTuple):
    a: float
    b: float
NT2 = collections.namedtuple("NT2", "a b")
class S:
    __slots__ = ("u",)
    def __init__(self, u): self.u = u
@case
def namedtuples_slots(x):
    return NT(x[0], x[1]).b * NT2(x[2], 1.0).a + S(x[0]).u
class V:
    def __init__(self, a): self.a = a
    def __add__(self, o): return V(self.a + (o.a if isinstance(o, V) else o))
    def __radd__(self, o): return V(o + self.a)
    def __mul__(self, o): return V(self.a * (o.a if isinstance(o, V) else o))
    def __rmul__(self, o): return V(o * self.a)
    def __neg__(self): return V(-self.a)
    def __matmul__(self, o): return self.a * o.a
    def __getitem__(self, i): return self.a * i
    def __call__(self, t): return self.a * t
    def __lt__(self, o): return self.a < o.a
@case
def operators(x):
    u, w = V(x[0]), V(x[1])
    r = (2.0 * u + w * 3.0 + 1.0 + (-u)) @ w + u[2] + w(x[2])
    return r + (1.0 if u < w else 0.0)
@case
def complex_mid(x):
    z = x[0] + 1j * x[1]
    return np.real(z * np.conj(z)) + np.imag(z * z) + np.angle(z) + abs(z * x[2])
@case
def interp_knots(x): return np.interp(0.5, np.array([0.0, x[0], 2.0]), np.array([0.0, 1.0, x[1]]))
@case
def dict_values(x):
    d = {'a': x[0], 'b': x[1]}; return sum(d.values()) + max(d.values()) + list(d.values())[0]
def compose(g1, g2): return lambda q: g1(g2(q))
@case
def composed(x):
    g = lambda q: q * x[0]; return compose(g, np.sin)(1.0)
class Layer:
    def __init__(self, b): self.b = b
    def bump(self, v): self.b = self.b + v
    def forward(self, t): return self.b * t
@case
def bump_unused(x):
    m = Layer(0.1); m.bump(x[0]); return m.forward(1.0)
@case
def insert(x):
    p = [x[0], x[1]]; p.insert(0, x[2]); return p[0]
@case
def setdefault(x):
    d = {'a': x[0]}; d.setdefault('b', x[1]); return d['a'] + d['b']
@case
def reverse(x):
    p = [x[0], x[1] * 2.0]; p.reverse(); return p[0]
@case
def clip_lit(x): return np.sum(np.clip(x, -0.5, 0.5))
@case
def full_fill(x): return np.sum(np.full(3, x[0])) + np.sum(np.full(2, x[1]))
@case
def pop_used(x):
    p = [x, 2 * x, 3 * x]; p.pop(); return np.sum(p[0]) + p.pop()[1]
@case
def return_in_loop(x):
    for i in range(3):
        if x[i] > 1.0:
            return x[i] * 2
        else:
            last = x[i]
    return last
@case
def transpose_perm(x):
    T = np.outer(x, x).reshape(3, 3, 1) * x
    return np.sum(np.transpose(T, (2, 0, 1)) * np.arange(27).reshape(3, 3, 3))


@pytest.mark.parametrize("name", sorted(cases))
def test_gradient_and_jvp(name):
    f = cases[name]
    ref = fd(f, X)
    (g,) = zp.gradient(f, X.copy())
    assert np.allclose(g, ref, atol=1e-6)
    v = np.array([0.3, -1.1, 0.7])
    _, t = zp.jvp(f, (X.copy(),), (v,))
    assert t == pytest.approx(ref @ v, abs=1e-6)


def test_integer_arguments_are_differentiated_as_reals():
    assert zp.gradient(lambda W, b, x: W * x + b, 2, 3, 4) == (4.0, 1.0, 2.0)
    _, back = zp.pullback(lambda a, b: a * b, np.array([1, 2, 3]), np.array([4, 5, 6]))
    ga, gb = back(np.ones(3))
    assert np.array_equal(ga, [4.0, 5.0, 6.0]) and np.array_equal(gb, [1.0, 2.0, 3.0])


def test_params_gradients_on_several_threads():
    W = np.array([1.0, 2.0])
    wrong = []

    def work(k):
        Wk = W * (k + 1)
        for _ in range(30):
            g = zp.gradient(lambda: np.sum(Wk ** 2), zp.params(Wk))
            if not np.allclose(g[Wk], 2 * Wk):
                wrong.append(k)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
