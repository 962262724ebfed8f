"""Main demo: train a small recurrent model with plain NumPy code and zp.gradient.

The model is written as ordinary Python -- a loop over time steps, a helper
function, a branch -- and zygote_py differentiates it by source
transformation.  The script prints the loss as it falls, checks one gradient
against finite differences, and shows the first lines of the generated
gradient code.

    python examples/demo.py
"""

import time

import numpy as np

import zygote_py as zp

rng = np.random.default_rng(0)
T, BATCH, N_IN, N_HID = 20, 32, 3, 16

# Task: predict the running mean of a noisy input sequence at the last step.
XS = rng.standard_normal((T, BATCH, N_IN))
TARGET = XS.mean(axis=0).sum(axis=1, keepdims=True)


def cell(h, x, W_h, W_x, b):
    return np.tanh(h @ W_h + x @ W_x + b)


def loss(W_h, W_x, b, W_out):
    h = np.zeros((XS.shape[1], W_h.shape[0]))
    for t in range(XS.shape[0]):
        h = cell(h, XS[t], W_h, W_x, b)
    pred = h @ W_out
    err = pred - TARGET
    if np.mean(err ** 2) > 10.0:  # a data-dependent branch, differentiated as written
        return np.mean(np.abs(err))
    return np.mean(err ** 2)


def main():
    params = [rng.standard_normal((N_HID, N_HID)) * 0.1, rng.standard_normal((N_IN, N_HID)) * 0.3,
              np.zeros(N_HID), rng.standard_normal((N_HID, 1)) * 0.3]
    start = time.perf_counter()
    first = loss(*params)
    lr = 0.2
    for step in range(301):
        value, grads = zp.withgradient(loss, *params)
        params = [p - lr * g for p, g in zip(params, grads)]
        if step % 50 == 0:
            print(f"step {step:3d}  loss {value:.5f}")
    elapsed = time.perf_counter() - start

    # One gradient entry against a central finite difference.
    def loss_with_b0_moved(delta):
        moved = [p.copy() for p in params]
        moved[2][0] += delta
        return loss(*moved)

    eps = 1e-6
    fd = (loss_with_b0_moved(eps) - loss_with_b0_moved(-eps)) / (2 * eps)
    grad_b0 = zp.gradient(loss, *params)[2][0]
    print(f"d loss / d b[0]: zygote_py {grad_b0:.8f}, finite differences {fd:.8f}")
    print(f"loss {first:.4f} -> {loss(*params):.4f} in 301 steps, {elapsed:.2f} s")
    print("\nThe generated gradient code begins:\n")
    print("\n".join(zp.grad_source(loss).splitlines()[:14]))


if __name__ == "__main__":
    main()
