"""An MLP classifying handwritten digits (scikit-learn's bundled 8x8 images).

    python examples/digits_mlp.py            # full run: >= 95% test accuracy
    python examples/digits_mlp.py --quick    # a few seconds, for the tests

The model is an `nn.Chain` of `nn.Dense` layers -- plain Python objects that
zygote_py differentiates as written -- trained with Adam on mini-batches from a
`DataLoader`, with early stopping on a held-out validation split.  The loss
curve is written as a PNG (when matplotlib is installed), and the last line
printed is `test accuracy: 0.xxx`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # for _common, however run

from _common import plot_curves

from zygote_py import nn


def load_data(seed):
    """Pixels scaled to [0, 1]; a shuffled 60/20/20 split into train, validation and test."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    X, y = digits.data / 16.0, digits.target
    order = np.random.default_rng(seed).permutation(len(X))
    X, y = X[order], y[order]
    n_test = n_val = len(X) // 5
    return ((X[2 * n_val:], y[2 * n_val:]), (X[n_val:2 * n_val], y[n_val:2 * n_val]),
            (X[:n_test], y[:n_test]))


def build_model(hidden, seed):
    rng = np.random.default_rng(seed)
    return nn.Chain(
        nn.Dense(64, hidden, nn.relu, rng=rng),
        nn.Dropout(0.1, rng=rng),
        nn.Dense(hidden, 10, rng=rng),   # logits; the loss applies the softmax
    )


def loss(model, x, labels):
    return nn.logitcrossentropy(model(x), labels)


def accuracy(model, x, labels):
    nn.testmode(model)  # no dropout while measuring
    acc = float(np.mean(nn.onecold(model(x)) == labels))
    nn.trainmode(model)
    return acc


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small, fast run (for tests)")
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                       "digits_mlp_loss.png"),
                        help="where to write the loss curve PNG ('' for none)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    epochs = args.epochs or (4 if args.quick else 40)

    (x_train, y_train), (x_val, y_val), (x_test, y_test) = load_data(args.seed)
    model = build_model(hidden=64 if args.quick else 128, seed=args.seed)
    opt = nn.Adam(3e-3)
    data = nn.DataLoader((x_train, y_train), batch_size=32, shuffle=True, rng=args.seed)

    val_losses = []

    def validation_loss():
        nn.testmode(model)
        val_losses.append(float(loss(model, x_val, y_val)))
        nn.trainmode(model)
        return val_losses[-1]

    stopper = nn.EarlyStopping(patience=5, monitor=validation_loss)
    start = time.perf_counter()
    history = nn.train(loss, model, data, opt, epochs=epochs, callbacks=[stopper],
                       verbose=not args.quiet)
    elapsed = time.perf_counter() - start

    print(f"{len(history)} epochs in {elapsed:.1f} s; training loss {history[0]:.3f} -> "
          f"{history[-1]:.3f}; best validation loss {stopper.best:.3f} (epoch {stopper.best_epoch})")
    print(f"validation accuracy: {accuracy(model, x_val, y_val):.3f}")
    if args.plot:
        written = plot_curves(args.plot, {"training": history, "validation": val_losses},
                              "digits MLP: cross-entropy", logy=True)
        print(f"loss curve written to {written}" if written else "matplotlib not installed: no plot")
    acc = accuracy(model, x_test, y_test)
    print(f"test accuracy: {acc:.3f}")
    return {"accuracy": acc, "history": history, "seconds": elapsed, "model": model}


if __name__ == "__main__":
    main()
