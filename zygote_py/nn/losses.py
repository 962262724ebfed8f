"""Loss functions, written as plain NumPy so zygote_py differentiates them.

Argument order is Flux's: `loss(prediction, target)`.  Every loss takes
`reduction=`:

  'mean' (default)  the mean of the per-element (regression losses) or
                    per-sample (classification losses) values
  'sum'             their sum
  'none'            the unreduced array

Regression losses (mse, mae, huber) are elementwise.  Classification losses
work on the last axis (batch first, classes last): `crossentropy(p, y)` with
probabilities p of shape (batch, classes) gives one value per sample.  The
target y is either one-hot (or any distribution) of p's shape, or integer
class indices of shape (batch,).
"""

from __future__ import annotations

import numpy as np

from .activations import logsoftmax

__all__ = [
    "binarycrossentropy",
    "crossentropy",
    "huber",
    "logitbinarycrossentropy",
    "logitcrossentropy",
    "mae",
    "mse",
]


def _reduce(values, reduction):
    if reduction == "mean":
        return np.mean(values)
    if reduction == "sum":
        return np.sum(values)
    if reduction == "none":
        return values
    raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def mse(yhat, y, reduction="mean"):
    d = yhat - y
    return _reduce(d * d, reduction)


def mae(yhat, y, reduction="mean"):
    return _reduce(np.abs(yhat - y), reduction)


def huber(yhat, y, delta=1.0, reduction="mean"):
    """0.5 d^2 where |d| <= delta, delta (|d| - 0.5 delta) beyond: quadratic near 0, linear tails."""
    a = np.abs(yhat - y)
    small = np.minimum(a, delta)
    # 0.5*small^2 + delta*(a - small) equals both branches, with no discarded branch to overflow
    return _reduce(0.5 * small * small + delta * (a - small), reduction)


def _target_logp(logp, y):
    """sum_k y_k log p_k per sample; integer targets pick log p[label]."""
    if np.issubdtype(np.asarray(y).dtype, np.integer):
        labels = np.asarray(y)
        flat = np.reshape(logp, (-1, logp.shape[-1]))
        return np.reshape(flat[np.arange(flat.shape[0]), labels.ravel()], labels.shape)
    return np.sum(y * logp, axis=-1)


def crossentropy(yhat, y, eps=1e-12, reduction="mean"):
    """-sum(y log(yhat)) over classes; yhat are probabilities (eps guards log(0))."""
    return _reduce(-_target_logp(np.log(yhat + eps), y), reduction)


def logitcrossentropy(logits, y, reduction="mean"):
    """crossentropy(softmax(logits), y), computed stably from the logits."""
    return _reduce(-_target_logp(logsoftmax(logits), y), reduction)


def binarycrossentropy(yhat, y, eps=1e-12, reduction="mean"):
    """-(y log(yhat) + (1-y) log(1-yhat)) elementwise; yhat are probabilities."""
    return _reduce(-(y * np.log(yhat + eps) + (1.0 - y) * np.log(1.0 - yhat + eps)), reduction)


def logitbinarycrossentropy(logits, y, reduction="mean"):
    """binarycrossentropy(sigmoid(logits), y), computed stably: softplus(x) - y x."""
    return _reduce(np.logaddexp(0.0, logits) - y * logits, reduction)
