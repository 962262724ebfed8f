"""Functions whose standalone modules (zygote-py grad) build objects, write attributes
and update lists and dicts from outside, for tests/aot/test_standalone_objects.py.

This module imports only NumPy and the standard library: the tests import it in an
interpreter where zygote_py cannot be imported, next to the modules written for it, as a
user of a standalone module would (zygote_py.nn.Recur is passed in by the tests)."""

from dataclasses import dataclass

import numpy as np


class Box:
    """An object built in the call, holding an active value."""

    def __init__(self, v):
        self.v = v

    def doubled(self):
        return self.v * 2.0


def box_loss(x):
    b = Box(np.sin(x))
    return np.sum(b.doubled() * x)


@dataclass
class Pair:
    a: np.ndarray
    b: float


def pair_loss(x, s):
    p = Pair(x * 2.0, s)
    return np.sum(p.a * p.b + np.cos(p.a))


class Counter:
    """A small object accumulating state: a method that sets an attribute."""

    def __init__(self, scale):
        self.scale = scale
        self.total = 0.0

    def add(self, v):
        self.total = self.total + self.scale * v
        return self


def counter_loss(x, s):
    c = Counter(s)
    for i in range(3):
        c.add(np.sum(np.sin(x * (i + 1))))
    return c.total * c.total


class Model:
    """A model passed in, whose state the loss writes (m.state = h)."""

    def __init__(self, W, state):
        self.W = W
        self.state = state

    def step(self, x):
        self.state = np.tanh(self.W @ x + self.state)
        return self.state


def stateful_loss(m, xs):
    total = 0.0
    for x in xs:
        total = total + np.sum(m.step(x) * x)
    m.state = m.state * 0.5  # written once more after the steps
    return total + np.sum(m.state ** 2)


def recur_loss(m, xs):
    """zygote_py.nn.Recur stepped per time step (y = m(x)), from the state it holds."""
    total = 0.0
    for x in xs:
        total = total + np.sum(m(x) ** 2)
    return total


def recur_reset_loss(m, xs):
    """The same after m.reset(): the gradient reaches m.init."""
    m.reset()
    total = 0.0
    for x in xs:
        total = total + np.sum(m(x) * x[0])
    return total


def list_updates(xs, x):
    """An argument list appended to, extended, inserted into, popped and written."""
    xs.append(x * 2.0)
    xs.extend([np.cos(x), x + 1.0])
    xs.insert(0, np.sin(x))
    last = xs.pop()
    xs[1] = xs[1] * 3.0
    del xs[2]
    return np.sum(xs[0] * xs[1] * last) + np.sum(xs[-1])


def dict_updates(d, x):
    """An argument dict updated: item writes, update, pop, del, setdefault."""
    d["b"] = np.sin(x)
    d.update(c=x * 3.0)
    a = d.pop("a")
    d["b"] = d["b"] * a
    del d["c"]
    d.setdefault("e", x * x)
    return np.sum(d["b"] + d["e"] * d["z"])


class Grid:
    def __init__(self, x):
        self.u = x * 1.0


def grid_loss(x):
    """An array an object built in the call holds, written in place through another name:
    the derivatives its reads gathered move with the written elements."""
    g = Grid(x)
    a = np.sum(g.u * x)
    u = g.u
    u[0] = x[0] * 2.0
    return a + np.sum(g.u * x) + u[0] * u[1]


class Scale:
    factor = 2.0


def scale_write(o, x):
    """o.factor = ...: an instance's attribute (the example), or a class's (refused)."""
    o.factor = o.factor * x
    return o.factor * x
