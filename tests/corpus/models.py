"""Small models end to end: MLPs (positional and dict parameters), logistic
regression, an RNN that reads W.shape and stacks its hidden states, a list of
(W, b) layers, softmax attention, polynomial regression."""

import numpy as np

from . import Case, rand


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _log_softmax(z):
    m = np.max(z, axis=-1, keepdims=True)
    return z - m - np.log(np.sum(np.exp(z - m), axis=-1, keepdims=True))


def mlp(W1, b1, W2, b2, x, y):
    h = np.tanh(W1 @ x + b1)
    out = W2 @ h + b2
    return np.mean((out - y) ** 2)


def mlp_batch_cross_entropy(params, X, labels):
    h = np.tanh(X @ params["W1"] + params["b1"])
    logits = h @ params["W2"] + params["b2"]
    logp = _log_softmax(logits)
    n = X.shape[0]
    return -np.sum(logp[np.arange(n), labels]) / n


def logistic_regression(w, b, X, y):
    p = _sigmoid(X @ w + b)
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p)) + 0.01 * np.sum(w**2)


def rnn(Wx, Wh, b, xs):
    h = np.zeros(Wh.shape[0])
    hs = []
    for x in xs:
        h = np.tanh(Wx @ x + Wh @ h + b)
        hs.append(h)
    return np.sum(np.stack(hs) ** 2)


def rnn_last_state_loss(params, xs, target):
    Wx, Wh, b = params
    h = np.zeros(Wh.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(Wx @ xs[t] + Wh @ h + b)
    return np.sum((h - target) ** 2)


def layer_list_mlp(layers, x):
    h = x
    for i, (W, b) in enumerate(layers):
        z = W @ h + b
        h = np.tanh(z) if i < len(layers) - 1 else z
    return np.sum(h**2)


def attention(Q, K, V):
    scores = Q @ K.T / np.sqrt(Q.shape[1])
    weights = np.exp(_log_softmax(scores))
    return np.sum((weights @ V) ** 2)


def polynomial_regression(coeffs, xs, ys):
    pred = np.zeros_like(xs)
    for k in range(len(coeffs)):
        pred = pred + coeffs[k] * xs**k
    return np.mean((pred - ys) ** 2)


CASES = [
    Case(
        mlp,
        (
            rand(4, 3, seed=1),
            rand(4, seed=2),
            rand(2, 4, seed=3),
            rand(2, seed=4),
            rand(3, seed=5),
            rand(2, seed=6),
        ),
    ),
    Case(
        mlp_batch_cross_entropy,
        (
            {
                "W1": rand(3, 4, seed=7),
                "b1": rand(4, seed=8),
                "W2": rand(4, 3, seed=9),
                "b2": rand(3, seed=10),
            },
            rand(5, 3, seed=11),
            np.array([0, 2, 1, 1, 0]),
        ),
        note="log-softmax through np.max; integer labels get None",
    ),
    Case(
        logistic_regression,
        (rand(3, seed=12), 0.1, rand(6, 3, seed=13), np.array([1.0, 0.0, 1.0, 1.0, 0.0, 0.0])),
    ),
    Case(
        rnn, (rand(4, 3, seed=14), rand(4, 4, seed=15) * 0.5, rand(4, seed=16), rand(5, 3, seed=17))
    ),
    Case(
        rnn_last_state_loss,
        (
            (rand(3, 2, seed=18), rand(3, 3, seed=19) * 0.5, rand(3, seed=20)),
            rand(4, 2, seed=21),
            rand(3, seed=22),
        ),
    ),
    Case(
        layer_list_mlp,
        (
            [(rand(4, 3, seed=23), rand(4, seed=24)), (rand(2, 4, seed=25), rand(2, seed=26))],
            rand(3, seed=27),
        ),
    ),
    Case(attention, (rand(3, 4, seed=28), rand(5, 4, seed=29), rand(5, 2, seed=30))),
    Case(polynomial_regression, (rand(4, seed=31), rand(6, seed=32), rand(6, seed=33))),
]
