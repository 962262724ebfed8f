"""Functions for the command-line tests: a vector-valued one (pullback mode),
one calling a function without a derivative rule, one that raises, and
methods of a class defined here."""

import numpy as np


def vector_output(x, W):
    h = np.tanh(W @ x)
    return h * np.sum(x)


def no_rule(x):
    return np.sum(np.i0(x))


def raises(x):
    return x[10] * 2.0


class Scale:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        return self.k * np.sin(x)


def method_on_argument(layer, x):
    return np.sum(layer.apply(x) ** 2)


def scalar_loss(x):
    total = 0.0
    for i in range(x.shape[0]):
        total = total + np.sin(x[i]) * x[i]
    return total


def cube(v):
    return v ** 3


def _register_cube_rule():
    import zygote_py as zp

    @zp.adjoint(cube)
    def cube_rule(v):
        return cube(v), lambda g: (3 * v ** 2 * g,)


_register_cube_rule()


def apply(fn, v):
    return fn(v)


def custom_rule_two_ways(v):
    """cube through its custom rule, called directly and passed as a value."""
    return np.sum(apply(cube, v)) + np.sum(cube(v))
