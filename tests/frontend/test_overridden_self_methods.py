"""A method of a base class calling `self.name(...)`, overridden by a subclass (the
framework pattern `Module.__call__` -> `self.forward`, and a template method): the
caller's result-alias summary rests on the base's method, and the check while running
now accepts an override whose own summary shares no more than the base's (it raised
MutationError for every subclass before).  An override returning memory the base's
method did not is still refused."""

import numpy as np
import pytest

import zygote_py as zp

W = np.array([[0.3, -0.2], [0.5, 0.1]])
X = np.array([0.5, -1.0])


class Module:
    def __call__(self, x):
        return self.forward(x)

    def forward(self, x):
        raise NotImplementedError


class Net(Module):
    def __init__(self, W):
        self.W = W

    def forward(self, x):
        return np.tanh(self.W @ x)


class Base:
    def __init__(self, a):
        self.a = a

    def f(self, t):
        return self.a * t

    def g(self, t):
        return self.f(t) ** 2


class Derived(Base):
    def __init__(self, a):
        super().__init__(a * 2)
        self.extra = a

    def f(self, t):
        return super().f(t) + self.extra


class Writer(Base):
    def g(self, t):
        out = self.f(t)
        out *= 2.0  # in place: safe only if out is not memory the object holds
        return np.sum(out)


class StoredWriter(Writer):
    def __init__(self, a):
        super().__init__(a)
        self.buffer = np.array([1.0, 2.0])

    def f(self, t):
        return self.buffer


def net_loss(W, x):
    return np.sum(Net(W)(x))


def template_loss(a, t):
    return Derived(a).g(t)


def writer_loss(a):
    w = Writer(a)
    return w.g(np.array([1.0, 2.0]))


def _fd(f, args, k, h=1e-6):
    args = [np.array(a, dtype=float) for a in args]
    g = np.zeros_like(args[k])
    for i in np.ndindex(args[k].shape):
        up = [a.copy() for a in args]
        down = [a.copy() for a in args]
        up[k][i] += h
        down[k][i] -= h
        g[i] = (f(*up) - f(*down)) / (2 * h)
    return g


def test_module_forward_override():
    gW, gx = zp.gradient(net_loss, W, X)
    assert np.allclose(gW, _fd(net_loss, (W, X), 0), atol=1e-6)
    assert np.allclose(gx, _fd(net_loss, (W, X), 1), atol=1e-6)


def test_template_method_override():
    ga, gt = zp.gradient(template_loss, 0.7, 1.3)
    assert ga == pytest.approx(_fd(template_loss, (0.7, 1.3), 0), rel=1e-6)
    assert gt == pytest.approx(_fd(template_loss, (0.7, 1.3), 1), rel=1e-6)
    _, t = zp.jvp(template_loss, (0.7, 1.3), (1.0, 0.5))
    expected = _fd(template_loss, (0.7, 1.3), 0) + 0.5 * _fd(template_loss, (0.7, 1.3), 1)
    assert t == pytest.approx(expected, rel=1e-6)


def test_an_in_place_write_into_a_fresh_override_result():
    (ga,) = zp.gradient(writer_loss, 0.7)
    assert ga == pytest.approx(_fd(writer_loss, (0.7,), 0), rel=1e-6)


def stored_writer_loss(a):
    w = StoredWriter(a)
    return w.g(np.array([1.0, 2.0])) * a


def test_an_override_returning_held_memory_is_refused():
    # StoredWriter.f returns the object's own buffer, which Writer.g's in-place write
    # would change behind the object; Base.f's summary (a fresh product) does not cover it
    with pytest.raises(zp.MutationError, match="StoredWriter.f is not the method"):
        zp.gradient(stored_writer_loss, 0.7)
