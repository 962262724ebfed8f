"""Fuzz regression (internal_error), shrunk from program #6792 of `python -m fuzz --seed 20261201`
(7 programs of that run failed this way).

What zygote_py did:
    no answer within 60.0 s
Fixed: the code generator wrote a pending expression of the enclosing block (a
cell read, an attribute read) inside the branch or loop body whose write flushed it,
so the name was unbound on the other paths. Expressions pending when a region that
writes starts are now written out before it (codegen/emit.py `region_flushes`).
"""

import numpy as np

from fuzz.oracle import assert_correct


import itertools
from dataclasses import dataclass
G_V = np.array([0.72, -0.04, -0.32])

def h0(p0):
    if sum(sorted([np.cos(p0[0]), p0[0] * p0[0], p0[0]], key=abs)) > -0.38 and p0[0] < 0.8:
        v1 = np.stack([np.power(np.sqrt(1.0 + p0 ** 2), 3), p0])
        v2 = np.where(np.concatenate([p0[None, :], p0[None]], axis=0) + v1 > 0.02, np.maximum(v1, -0.31) + v1 * v1, np.tile(np.array([t3 for t3 in p0]), (2, 1)))
        v4 = v2[:, 2]
        return v2[np.sqrt(1.0 + v2 ** 2).shape[0] - 1, (np.expand_dims(p0, 0) * v2).ndim]
    elif np.prod(np.cos(np.matmul(np.stack([p0, p0 * 0.5]), p0))) > 0.12 and p0[0] < 0.8:
        v5 = np.array([np.prod(np.cos(np.stack([p0, p0 * 0.5]))), sum([t6 for t6 in p0[:2] if t6 > 0.29]), sum([t6 for t6 in p0[:2] if t6 > 0.29]) * 2.0]) * np.where(np.array([-0.14, -0.1, 0.33])[[2, 0, 1]] > 0.3, np.logaddexp(p0, np.array([0.91, 0.13, 0.77])), np.array([[0.03, 0.1, -0.78], [0.1, 0.06, 0.42]])[-1, :])
    else:
        v7 = np.maximum(np.tanh(np.abs(p0 - -0.35)), 0.32)
        v9 = np.stack([v7, v7 * 0.5])
        v10 = np.maximum(np.tanh(np.array([t11 for t11 in v9[0]])), -0.42)
    for t12, t13 in zip(np.negative(p0), p0 * p0):
        p0 = p0 * 0.5 + t13 * np.array([-0.81, 0.79, -0.72])
        t12 -= t13
        p0 = p0 * 0.5 + np.power(np.multiply(p0, t13), 3)
        buf15 = np.exp(np.sin(p0)) * 1.0
        buf15[1:] += np.arctan(p0)[:2]
        v16 = buf15
    fs17 = [lambda p18: sum(itertools.chain(np.sum(np.stack([p0, p0 * 0.5]), axis=0), np.mean(np.array([[-0.55, 0.1, -0.33], [0.5, 0.08, 0.29]]), axis=-1))), lambda p19: p19 + p19]
    v21 = sum((fn20(np.prod(np.cos(np.array([0.98, 0.31])))) for fn20 in fs17))
    return np.array([sum([v21 / (2.0 + np.sin(t23)) for t23 in p0 - p0]) for t22 in np.tanh(p0) * np.cos(p0)])

def h1(p0, p1):
    for i24 in range(1, 3 + 1):
        p0 = p0 * 0.5 + p0
        it25 = iter(np.array([p0 for t29 in p1]))
        t27 = next(it25)
        v26 = t27 * 2.0 + sum(it25)
        v30 = p0
    else:
        p0 = p0 + 0.5
    fs31 = [lambda p32: p0, lambda p33: np.max((p33 * np.array([[0.09, 0.25, -0.94], [-0.38, -0.99, 0.72]]))[np.array([1, 0]), 1])]
    v35 = sum((fn34(np.mean(np.stack([p1, p1 * 0.5]))) for fn34 in fs31))
    v36 = np.log(1.0 + h0(p1) * h0(p1))
    return np.clip(p1, -0.5, 0.5)

def h2(fn, x):
    return fn(x) + fn(x * 0.5) * 2.0

def f(a0, a1, a2):
    it37 = iter(h1(a2[1, 1], a1))
    t39 = next(it37)
    v38 = t39 * 2.0 + sum(it37)
    v41 = a2
    return np.mean(a2 * a2) + v38 + np.mean(v41 * v41) + np.sum(v41 ** 2) + np.sum(np.sin(a0))

def make_args():
    return (np.array([[0.89, 0.89, -0.36], [-0.83, 0.07, -0.22]]), np.array([0.97, 0.9, 0.6]), np.array([[-0.36, 0.41, 0.54], [-0.3, 0.05, -0.84]]))



def test_fuzz_regression():
    assert_correct(f, make_args())
