"""Activation functions, written as plain NumPy so zygote_py differentiates them.

Each works elementwise on arrays of any shape (softmax and logsoftmax reduce
along `axis`, the last one by default: features are the last axis).  They are
written to be numerically stable: no overflow of `exp` for large inputs.
"""

from __future__ import annotations

import numpy as np

from ..api import stop_gradient

__all__ = [
    "elu",
    "gelu",
    "identity",
    "leaky_relu",
    "logsigmoid",
    "logsoftmax",
    "relu",
    "sigmoid",
    "softmax",
    "softplus",
    "tanh",
]

_SQRT_2_OVER_PI = float(np.sqrt(2.0 / np.pi))


def identity(x):
    return x


def relu(x):
    return np.maximum(x, 0.0)


def leaky_relu(x, a=0.01):
    return np.where(x > 0, x, a * x)


def elu(x, alpha=1.0):
    # expm1 of min(x, 0): the discarded branch of `where` must not overflow either
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0.0)))


def sigmoid(x):
    # 1 / (1 + exp(-x)) overflows for x << 0; this identity is exact and never does
    return 0.5 * (np.tanh(0.5 * x) + 1.0)


def logsigmoid(x):
    return -np.logaddexp(0.0, -x)


def tanh(x):
    return np.tanh(x)


def softplus(x):
    # log(1 + exp(x)) without overflow
    return np.logaddexp(0.0, x)


def gelu(x):
    """The tanh approximation of x * Phi(x) (as in BERT and Flux)."""
    return 0.5 * x * (1.0 + np.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x ** 3)))


def _shifted(x, axis):
    # Subtracting the max changes nothing mathematically, so no derivative needs to
    # flow through it (stop_gradient saves the backward pass of the max).
    return x - stop_gradient(np.max(x, axis=axis, keepdims=True))


def logsoftmax(x, axis=-1):
    z = _shifted(x, axis)
    return z - np.log(np.sum(np.exp(z), axis=axis, keepdims=True))


def softmax(x, axis=-1):
    e = np.exp(_shifted(x, axis))
    return e / np.sum(e, axis=axis, keepdims=True)
