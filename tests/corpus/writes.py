"""Writes into arrays the function creates: fill loops, stencils, masks, swaps, views,
augmented assignment seen through another name, ufunc out=, np.add.at (docs/mutation.md).
(Writes into arguments are tested in tests/ad/test_writes.py, on copies.)"""

import numpy as np

from . import Case, rand


def fill_loop(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sin(x[i]) * x[i]
    return np.sum(out * out)


def heat_stencil(u0, c):
    u = u0 * 1.0
    for _ in range(4):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2]) * u[1:-1]
    return np.sum(u * u)


def mask_and_swap(m):
    y = m * 2.0
    y[y < 0] = 0.0
    y[[0, 2]] = y[[2, 0]]
    return np.sum(y * m)


def views_and_out(m):
    y = m * 1.0
    t = y.T
    t[0] = t[1] * 2.0
    buf = np.empty(m.shape)
    np.exp(y, out=buf)
    acc = np.zeros(4)
    np.add.at(acc, np.array([0, 1, 0]), y[0, :3])
    z = y
    z += buf * 0.1
    return np.sum(y * m) + np.sum(acc * acc)


def gauss_seidel_rows(A, b):
    x = np.zeros(3)
    k = 0
    while k < 3:
        for i in range(3):
            x[i] = (b[i] - A[i] @ x + A[i, i] * x[i]) / A[i, i]
        k += 1
    return np.sum(x * x)


CASES = [
    Case(fill_loop, (rand(6, seed=1),)),
    Case(heat_stencil, (np.sin(np.linspace(0.0, 3.0, 7)), 0.1)),
    Case(mask_and_swap, (rand(3, 4, seed=2),)),
    Case(views_and_out, (rand(3, 4, seed=3),)),
    Case(gauss_seidel_rows, (np.array([[4.0, 1.0, 0.5], [1.0, 5.0, 1.0], [0.5, 1.0, 3.0]]),
                             np.array([1.0, 2.0, -1.0]))),
]
