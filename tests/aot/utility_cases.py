"""Functions using zygote_py's reverse-mode utilities, for tests/aot/test_utilities.py.
They import the utilities by name, so the refusal names the utility itself."""

import numpy as np

import zygote_py as zp
from zygote_py import checkpointed, hook, no_grad, retain


def step(h, W):
    return np.tanh(W @ h)


def uses_checkpointed(W, h):
    for _ in range(2):
        h = checkpointed(step, h, W)
    return np.sum(h)


def uses_hook(W, h):
    return np.sum(hook(np.negative, W @ h) ** 2)


def uses_retain(W, h):
    return np.sum(retain("y", W @ h) ** 2)


def uses_no_grad_block(W, h):
    with no_grad():
        s = np.sum(W)
    return s * np.sum(W @ h)


@no_grad
def frozen(W):
    return np.mean(W)


def uses_no_grad_function(W, h):
    return frozen(W) * np.sum(W @ h)


def reads_zp(x):
    return np.sum(zp.stop_gradient(x) * x)
