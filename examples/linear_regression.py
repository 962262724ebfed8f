"""Linear regression with implicit parameters, in Flux's style.

    python examples/linear_regression.py [--quick]

The model's arrays W and b are plain module-level NumPy arrays; the loss reads
them as globals.  `zp.params(W, b)` names them by identity, `zp.gradient` of a
thunk (a function of no arguments) returns a `Grads` holding a gradient for
each, and the optimiser updates the arrays in place.  The script recovers the
true weights of synthetic data and prints the error.
"""

from __future__ import annotations

import argparse

import numpy as np

import zygote_py as zp
from zygote_py import nn

rng = np.random.default_rng(0)
N_IN, N_OUT = 5, 2
TRUE_W = rng.standard_normal((N_IN, N_OUT))
TRUE_B = np.array([0.5, -1.0])

# The parameters: module-level arrays, updated in place by the optimiser.
W = np.zeros((N_IN, N_OUT))
b = np.zeros(N_OUT)


def predict(x):
    return x @ W + b


def loss(x, y):
    return nn.mse(predict(x), y)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples and epochs")
    args = parser.parse_args(argv)
    n, epochs = (200, 20) if args.quick else (2000, 100)

    W[...] = 0.0  # start from zero however often main() runs (in place: ps stays valid)
    b[...] = 0.0
    x = rng.standard_normal((n, N_IN))
    y = x @ TRUE_W + TRUE_B + 0.01 * rng.standard_normal((n, N_OUT))

    ps = zp.params(W, b)
    opt = nn.Descent(0.1)
    history = []
    for epoch in range(epochs):
        value, gs = zp.withgradient(lambda: loss(x, y), ps)
        opt.update(ps, gs)   # W and b change in place
        history.append(float(value))
        if epoch % max(1, epochs // 5) == 0:
            print(f"epoch {epoch:3d}  loss {value:.6f}")

    w_err = float(np.max(np.abs(W - TRUE_W)))
    b_err = float(np.max(np.abs(b - TRUE_B)))
    print(f"loss {history[0]:.4f} -> {history[-1]:.6f}")
    print(f"largest error in W: {w_err:.4f}, in b: {b_err:.4f}")
    return {"history": history, "w_err": w_err, "b_err": b_err}


if __name__ == "__main__":
    main()
