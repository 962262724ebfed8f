"""Fuzz regression (wrong_gradient), shrunk from program #342 of `python -m fuzz --seed 20261203`
(1 programs of that run failed this way).

What zygote_py did:
    jvp: zygote_py 2.9615905725959086, finite differences . tangent 1.3672676476672494
Was silently wrong in forward mode only: `buf = np.stack([a, a]).T; al = buf[0];
al *= c` then `np.sum(buf)`: zp.jvp gave the tangent as if the write had not
happened (1.6 instead of -2.58 in the minimal form); zp.gradient was right. Found by
the fuzz run on the final commit of 2026-11-26 (and again by seed 20261302, #638).
Fixed (runtime/forward_writes.writeback_tangent): buf's tangent, a copy of a transposed
tangent, kept its column-major layout, so the flat C-order view the write went through
was a copy and the write was lost.
"""

import numpy as np

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass

def h2(p0, p1, p2=1.0):
    buf3 = np.empty(3)
    np.multiply(p1, p2, out=buf3)
    v4 = buf3
    return np.stack([v4, v4]).T

def f(a0):
    v14 = np.sum(a0)
    buf16 = h2(a0, v14, p2=v14)
    al18 = buf16[0]
    al18 *= v14
    v17 = buf16
    return np.sum(v17)

def make_args():
    return (np.array([-0.85, 0.72, -0.28]),)


def test_fuzz_regression():
    assert_correct(f, make_args())


def transposed_then_written(a1):  # the shrunk program of seed 20261302, #638
    buf = np.stack(a1).T
    al = buf[0]
    al *= 0
    return np.mean(buf)


def test_jvp_through_a_write_into_a_transposed_stack():
    a = np.array([[-0.27, -0.46, -0.42], [-0.15, 0.46, 0.95]])
    assert_correct(transposed_then_written, (a,))
