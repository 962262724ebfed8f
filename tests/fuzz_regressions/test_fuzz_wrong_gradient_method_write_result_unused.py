"""Fuzz regression (silently wrong), from issue 12's list of repros found by random
programs: a method writes an attribute of an object built in the function and its
result is unused.

What zygote_py did:
    the gradient was None; expected 1.0 (m.b = 0.1 + t, and forward returns m.b * 1.0).
    Building `Layer(...)` with an active argument was refused (NoDerivativeRule).
"""

import numpy as np

from fuzz.oracle import assert_correct


class Layer:
    def __init__(self, b):
        self.b = b

    def bump(self, v):
        self.b = self.b + v

    def forward(self, x):
        return self.b * x


def f(t):
    m = Layer(0.1)
    m.bump(t)
    return m.forward(1.0)


def g(x):
    m = Layer(np.sin(x[0]))
    m.bump(x[1] * x[2])
    m.b = m.b * x[0]
    return m.forward(x[1]) + m.b


def make_args():
    return (0.3,)


def test_fuzz_regression():
    assert_correct(f, make_args())


def test_fuzz_regression_built_with_the_input():
    assert_correct(g, (np.array([0.4, -0.7, 1.3]),))
