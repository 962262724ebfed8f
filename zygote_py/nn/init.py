"""Weight initialisers, seeded by a `numpy.random.Generator`.

Every initialiser has the signature `init(shape, rng=None, dtype=float64)`;
`rng` may be a Generator, an int seed, or None (fresh OS entropy).  For a
weight of shape (fan_in, fan_out) -- the layout `Dense` uses, since it computes
`x @ W` -- the Glorot (Xavier) initialisers keep the variance of activations and
gradients roughly constant from layer to layer.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "as_rng",
    "glorot_normal",
    "glorot_uniform",
    "kaiming_normal",
    "kaiming_uniform",
    "normal",
    "ones",
    "orthogonal",
    "uniform",
    "zeros",
]

_SQRT2 = float(np.sqrt(2.0))  # the He et al. gain for relu


def as_rng(rng=None) -> np.random.Generator:
    """A Generator from a Generator, an int seed or None."""
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


def _fans(shape):
    shape = tuple(shape)
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return shape[-2] * receptive, shape[-1] * receptive


def glorot_uniform(shape, rng=None, dtype=np.float64, gain=1.0):
    fan_in, fan_out = _fans(shape)
    limit = gain * np.sqrt(6.0 / (fan_in + fan_out))
    return as_rng(rng).uniform(-limit, limit, size=shape).astype(dtype)


def glorot_normal(shape, rng=None, dtype=np.float64, gain=1.0):
    fan_in, fan_out = _fans(shape)
    std = gain * np.sqrt(2.0 / (fan_in + fan_out))
    return (std * as_rng(rng).standard_normal(shape)).astype(dtype)


def kaiming_uniform(shape, rng=None, dtype=np.float64, gain=_SQRT2):
    fan_in, _ = _fans(shape)
    limit = gain * np.sqrt(3.0 / fan_in)
    return as_rng(rng).uniform(-limit, limit, size=shape).astype(dtype)


def kaiming_normal(shape, rng=None, dtype=np.float64, gain=_SQRT2):
    fan_in, _ = _fans(shape)
    return (gain / np.sqrt(fan_in) * as_rng(rng).standard_normal(shape)).astype(dtype)


def zeros(shape, rng=None, dtype=np.float64):
    return np.zeros(shape, dtype=dtype)


def ones(shape, rng=None, dtype=np.float64):
    return np.ones(shape, dtype=dtype)


def normal(shape, rng=None, dtype=np.float64, std=0.01):
    return (std * as_rng(rng).standard_normal(shape)).astype(dtype)


def uniform(shape, rng=None, dtype=np.float64, limit=0.05):
    return as_rng(rng).uniform(-limit, limit, size=shape).astype(dtype)


def orthogonal(shape, rng=None, dtype=np.float64, gain=1.0):
    """A (semi-)orthogonal matrix: rows or columns orthonormal (good for recurrent weights)."""
    rows, cols = shape[0], int(np.prod(shape[1:]))
    a = as_rng(rng).standard_normal((max(rows, cols), min(rows, cols)))
    q, r = np.linalg.qr(a)
    q = q * np.sign(np.diag(r))  # unique, uniformly distributed
    if rows < cols:
        q = q.T
    return (gain * q.reshape(shape)).astype(dtype)
