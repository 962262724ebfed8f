"""Fuzz regression (wrong_gradient), shrunk from program #342 of `python -m fuzz --seed 20261203`
(1 programs of that run failed this way).

What zygote_py did:
    jvp: zygote_py 2.9615905725959086, finite differences . tangent 1.3672676476672494
Fixed: `buf = np.stack([a, a]).T; al = buf[0]; al *= c` then `np.sum(buf)`: zp.jvp
gave the tangent as if the write had not happened, because the tangent copy of the
transposed buf was F-ordered and the write went through reshape(-1) into a second copy
(runtime/forward_writes._fresh_copy now copies in C order).
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
