"""Layers: Dense, Chain, Dropout, Embedding, LayerNorm.

A layer is an ordinary Python object holding NumPy arrays as attributes and
computing its output in `__call__`.  zygote_py differentiates these methods
like any other user code -- there is no special case for layers in the
compiler -- so a gradient with respect to a layer is a dict attribute name ->
gradient, and `zp.params(model)` finds the arrays by walking the attributes.

Batch convention: **batch first, features last**.  A single sample is a vector
of shape (in,); a batch is (batch, in); any leading axes are carried through
(a sequence batch (time, batch, in) works with Dense too).  Dense computes
`x @ W + b` with W of shape (in, out).
"""

from __future__ import annotations

import numpy as np

from . import activations as _act
from . import init as _init
from .. import tree

__all__ = ["Chain", "Dense", "Dropout", "Embedding", "LayerNorm", "testmode", "trainmode"]


class Dense:
    """y = activation(x @ weight + bias); weight (in, out), bias (out,) or None."""

    def __init__(self, n_in, n_out, activation=_act.identity, bias=True,
                 init=_init.glorot_uniform, rng=None):
        rng = _init.as_rng(rng)
        self.weight = init((n_in, n_out), rng)
        self.bias = np.zeros(n_out, dtype=self.weight.dtype) if bias else None
        self.activation = activation

    def __call__(self, x):
        z = x @ self.weight
        if self.bias is not None:
            z = z + self.bias
        return self.activation(z)

    def __repr__(self):
        n_in, n_out = self.weight.shape
        return f"Dense({n_in} => {n_out}, {getattr(self.activation, '__name__', self.activation)})"


class Chain:
    """Layers applied in order: Chain(a, b, c)(x) == c(b(a(x)))."""

    def __init__(self, *layers):
        if len(layers) == 1 and isinstance(layers[0], (list, tuple)):
            layers = tuple(layers[0])
        self.layers = list(layers)

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def __getitem__(self, i):
        return Chain(*self.layers[i]) if isinstance(i, slice) else self.layers[i]

    def __len__(self):
        return len(self.layers)

    def __repr__(self):
        inner = ",\n".join("  " + repr(layer) for layer in self.layers)
        return f"Chain(\n{inner}\n)"


class Dropout:
    """Zeroes each input with probability p while training and scales the rest by 1/(1-p).

    In evaluation mode (`testmode(model)`, or `layer.training = False`) it is the
    identity.  A new layer is in training mode.  The mask is drawn from `rng`.
    """

    def __init__(self, p, rng=None):
        if not 0.0 <= p < 1.0:
            raise ValueError(f"dropout probability must be in [0, 1), got {p}")
        self.p = float(p)
        self.rng = _init.as_rng(rng)
        self.training = True

    def __call__(self, x):
        if not self.training or self.p == 0.0:
            return x
        keep = self.rng.random(np.shape(x)) >= self.p  # a bool mask: no derivative
        return x * keep / (1.0 - self.p)

    def __repr__(self):
        return f"Dropout({self.p})"


class Embedding:
    """A lookup table: integer indices of shape S -> vectors of shape S + (dim,)."""

    def __init__(self, vocab, dim, init=_init.normal, rng=None):
        self.weight = init((vocab, dim), _init.as_rng(rng))

    def __call__(self, idx):
        return self.weight[idx]

    def __repr__(self):
        return f"Embedding({self.weight.shape[0]} => {self.weight.shape[1]})"


class LayerNorm:
    """Normalises the last axis to zero mean and unit variance, then scales and shifts."""

    def __init__(self, dim, eps=1e-5, affine=True):
        self.eps = float(eps)
        self.scale = np.ones(dim) if affine else None
        self.bias = np.zeros(dim) if affine else None

    def __call__(self, x):
        mu = np.mean(x, axis=-1, keepdims=True)
        d = x - mu
        var = np.mean(d * d, axis=-1, keepdims=True)
        y = d / np.sqrt(var + self.eps)
        if self.scale is not None:
            y = y * self.scale + self.bias
        return y

    def __repr__(self):
        return f"LayerNorm({0 if self.scale is None else self.scale.shape[0]})"


def _set_training(model, flag, seen):
    if id(model) in seen:
        return
    seen.add(id(model))
    parts = tree.children(model)  # items of containers, attributes of objects (slots too)
    if tree.kind_of(model) == tree.OBJECT and any(key == "training" for key, _ in parts):
        model.training = flag
    for _, item in parts:
        _set_training(item, flag, seen)


def trainmode(model):
    """Puts every Dropout (any layer with a `training` flag) in model into training mode."""
    _set_training(model, True, set())
    return model


def testmode(model):
    """Puts every Dropout (any layer with a `training` flag) in model into evaluation mode."""
    _set_training(model, False, set())
    return model
