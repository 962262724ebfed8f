"""Representative functions whose IR and generated gradient code are kept as golden files.

Changing the compiler's output on purpose: regenerate with
`ZP_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py` and review the diff.
"""

import math

import numpy as np

W_GLOBAL = np.linspace(-1.0, 1.0, 6).reshape(2, 3)


def arithmetic(x, y):
    return x * y + x / (1.0 + y * y) - 2.0 * x


def scalar_loop(x):
    for i in range(10):
        x = np.sin(x) * x + 0.5 * np.cos(x) / (1 + x * x)
    return x


def branches(x):
    if x > 0.0:
        y = x * x
    elif x < -1.0:
        y = -x
    else:
        y = math.sin(x)
    return y * 2.0


def while_loop(x):
    s = x
    n = 0
    while s < 10.0:
        s = s * 1.5 + x
        n += 1
    return s


def early_return(x, n):
    for i in range(n):
        if x > 5.0:
            return x
        x = x * 2.0
    return -x


def break_continue(xs):
    s = 0.0
    for v in xs:
        if v < 0.0:
            continue
        if s > 3.0:
            break
        s += v * v
    return s


def helper(a, b):
    return a * b + np.tanh(a)


def calls_helper(x, y):
    return helper(x, y) + helper(y, 2.0)


def closure(x):
    scale = 3.0

    def f(t):
        return t * scale

    g = lambda t: f(t) + 1.0  # noqa: E731
    return g(x) * f(x)


def list_append(x):
    hs = []
    h = x
    for t in range(3):
        h = np.tanh(h * 1.5)
        hs.append(h)
    return np.sum(np.stack(hs))


def comprehension(xs):
    return sum([v * v for v in xs if v > 0.0])


def mlp(W1, b1, W2, x):
    h = np.tanh(x @ W1 + b1)
    return np.sum((h @ W2) ** 2) / x.shape[0]


def rnn(W_h, W_x, b, xs):
    h = np.zeros((xs.shape[1], W_h.shape[0]))
    for t in range(xs.shape[0]):
        h = np.tanh(h @ W_h.T + xs[t] @ W_x.T + b)
    return np.sum(h ** 2)


def reductions(x):
    m = np.mean(x, axis=0, keepdims=True)
    return np.sum((x - m) ** 2) + np.max(x)


def uses_global(x):
    return np.sum(W_GLOBAL @ x)


def fill_loop(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.tanh(x[i]) * x[i]
    return np.sum(out * out)


def _heat_step(u, c):
    u[1:-1] += c * (u[2:] - 2 * u[1:-1] + u[:-2])


def heat_helper(x):
    u = np.tanh(x)
    for _ in range(3):
        _heat_step(u, 0.25)
    return np.sum(u * u)


CASES = [
    (arithmetic, (0.3, 0.7)),
    (scalar_loop, (0.3,)),
    (branches, (0.5,)),
    (while_loop, (1.2,)),
    (early_return, (1.0, 5)),
    (break_continue, ([0.5, -1.0, 1.5, 2.0, 0.1],)),
    (calls_helper, (0.4, 0.9)),
    (closure, (0.8,)),
    (list_append, (0.2,)),
    (comprehension, ([0.5, -0.2, 1.1],)),
    (mlp, (np.full((4, 3), 0.1), np.zeros(3), np.full((3, 2), 0.2), np.ones((5, 4)))),
    (rnn, (np.eye(3) * 0.5, np.full((3, 2), 0.1), np.zeros(3), np.ones((4, 2, 2)))),
    (reductions, (np.arange(6.0).reshape(2, 3) / 7.0,)),
    (uses_global, (np.array([0.1, 0.2, 0.3]),)),
    (helper, (0.3, 0.6)),
    (fill_loop, (np.array([0.5, -0.2, 0.3, 0.9]),)),
    (heat_helper, (np.array([0.5, -0.2, 0.3, 0.9, 0.1]),)),
]
