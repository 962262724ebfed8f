"""Helpers for the transform tests: lowered IR, op counts, finite differences."""

import numpy as np

from zygote_py.frontend.lower import lower_function
from zygote_py.ir.verify import verify


def lowered(fn):
    """fn lowered to IR, verified, with no pass run."""
    ir = lower_function(fn)
    verify(ir)
    return ir


def count(ir, opcode, fn=None):
    return sum(1 for op in ir.walk() if op.opcode == opcode and (fn is None or op.attrs.get("fn") is fn))


def central_difference(f, x, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        grad[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return grad
