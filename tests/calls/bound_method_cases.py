"""A bound method used as a value (`layer.step` passed on, or named and called): its
cotangent is its receiver's (calls/dispatch.py: attribute_cotangent)."""

import numpy as np

import zygote_py as zp


class Layer:
    def __init__(self, W):
        self.W = W

    def step(self, h):
        return np.tanh(self.W @ h)


def apply(fn, h):
    return fn(h)


def passed_on(layer, h):
    for _ in range(2):
        h = apply(layer.step, h)
    return np.sum(h)


def named_then_called(layer, h):
    step = layer.step
    return np.sum(step(h) * step(2.0 * h))


def checkpointed_method(layer, h):
    for _ in range(2):
        h = zp.checkpointed(layer.step, h)
    return np.sum(h)


def written_out(W, h):
    for _ in range(2):
        h = np.tanh(W @ h)
    return np.sum(h)


def named_written_out(W, h):
    return np.sum(np.tanh(W @ h) * np.tanh(W @ (2.0 * h)))


LAYER = Layer(np.array([[0.5, -0.2], [0.3, 0.8]]))


def params_thunk(h):
    return passed_on(LAYER, h)
