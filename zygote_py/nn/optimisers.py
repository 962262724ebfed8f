"""Optimisers: Descent, Momentum, Nesterov, RMSProp, Adam, AdamW.

`opt.update(target, grads)` (Flux's `update!`) changes the parameter arrays
**in place**, so anything holding them -- the model, a `zp.params` set keyed
by array identity -- sees the new values.  It accepts either

  implicit parameters  `opt.update(ps, gs)`: ps from `zp.params(...)`, gs the
                       Grads from `zp.gradient(thunk, ps)` (gs[p] by identity);
  a structural gradient `opt.update(model, gm)`: gm the nested dict that
                       `zp.gradient(loss, model, ...)[0]` returns; arrays and
                       gradients are paired by attribute path.

A gradient of None (the loss did not use that array) leaves it and its
optimiser state alone.  Per-array state (momenta, running averages) is keyed
by the array's identity, so it persists across calls.

`clip_norm=c` (any optimiser) rescales all gradients together when their
global L2 norm exceeds c, before the update.  `update` returns that norm
(before clipping).
"""

from __future__ import annotations

import numpy as np

from .tree import leaf_gradients

__all__ = [
    "Adam",
    "AdamW",
    "Descent",
    "Momentum",
    "Nesterov",
    "Optimiser",
    "RMSProp",
    "global_norm",
    "gradient_pairs",
]


def gradient_pairs(target, grads):
    """[(array, gradient or None)] for implicit Grads or a structural gradient."""
    if type(grads) in (dict, list, tuple) or isinstance(grads, np.ndarray):
        return [(arr, g) for _, arr, g in leaf_gradients(target, grads)]
    # implicit: target is a Params (iterable of arrays), grads is indexed by array identity
    return [(p, grads[p]) for p in target]


def global_norm(grads):
    """sqrt of the sum of squares of all gradients (None entries skipped)."""
    return float(np.sqrt(sum(float(np.vdot(g, g).real) for g in grads if g is not None)))


class Optimiser:
    """Base class: subclasses define `step(p, g, state) -> delta` (p -= delta)."""

    def __init__(self, lr, clip_norm=None):
        self.lr = lr
        self.clip_norm = clip_norm
        self.state = {}  # id(array) -> (array, per-array state); the array keeps its id alive

    def init_state(self, p):
        return None

    def step(self, p, g, state):
        raise NotImplementedError

    def update(self, target, grads):
        pairs = [(p, g) for p, g in gradient_pairs(target, grads) if g is not None]
        norm = global_norm([g for _, g in pairs])
        scale = 1.0
        if self.clip_norm is not None and norm > self.clip_norm:
            scale = self.clip_norm / (norm + 1e-12)
        for p, g in pairs:
            if not isinstance(p, np.ndarray):
                raise TypeError(f"can only update arrays in place, got {type(p).__name__}")
            g = np.asarray(g)
            if scale != 1.0:
                g = g * scale
            entry = self.state.get(id(p))
            if entry is None or entry[0] is not p:
                entry = self.state[id(p)] = (p, self.init_state(p))
            p -= self.step(p, g, entry[1])
        return norm

    def __repr__(self):
        fields = ", ".join(f"{k}={v}" for k, v in vars(self).items() if k != "state")
        return f"{type(self).__name__}({fields})"


class Descent(Optimiser):
    """Plain gradient descent: p -= lr * g."""

    def __init__(self, lr=0.1, clip_norm=None):
        super().__init__(lr, clip_norm)

    def step(self, p, g, state):
        return self.lr * g


class Momentum(Optimiser):
    """v = rho v - lr g;  p += v."""

    def __init__(self, lr=0.01, rho=0.9, clip_norm=None):
        super().__init__(lr, clip_norm)
        self.rho = rho

    def init_state(self, p):
        return {"v": np.zeros_like(p)}

    def step(self, p, g, state):
        v = state["v"]
        v *= self.rho
        v -= self.lr * g
        return -v


class Nesterov(Optimiser):
    """Nesterov momentum (Flux's form): p += rho^2 v - (1 + rho) lr g, then v = rho v - lr g."""

    def __init__(self, lr=0.001, rho=0.9, clip_norm=None):
        super().__init__(lr, clip_norm)
        self.rho = rho

    def init_state(self, p):
        return {"v": np.zeros_like(p)}

    def step(self, p, g, state):
        v, rho = state["v"], self.rho
        delta = -(rho * rho) * v + (1.0 + rho) * self.lr * g
        v *= rho
        v -= self.lr * g
        return delta


class RMSProp(Optimiser):
    """a = rho a + (1 - rho) g^2;  p -= lr g / (sqrt(a) + eps)."""

    def __init__(self, lr=0.001, rho=0.9, eps=1e-8, clip_norm=None):
        super().__init__(lr, clip_norm)
        self.rho, self.eps = rho, eps

    def init_state(self, p):
        return {"a": np.zeros_like(p)}

    def step(self, p, g, state):
        a = state["a"]
        a *= self.rho
        a += (1.0 - self.rho) * g * g
        return self.lr * g / (np.sqrt(a) + self.eps)


class Adam(Optimiser):
    """Adam (Kingma & Ba) with bias correction."""

    def __init__(self, lr=0.001, betas=(0.9, 0.999), eps=1e-8, clip_norm=None):
        super().__init__(lr, clip_norm)
        self.betas, self.eps = tuple(betas), eps

    def init_state(self, p):
        return {"m": np.zeros_like(p), "v": np.zeros_like(p), "t": 0}

    def adam_direction(self, g, state):
        b1, b2 = self.betas
        m, v = state["m"], state["v"]
        state["t"] += 1
        t = state["t"]
        m *= b1
        m += (1.0 - b1) * g
        v *= b2
        v += (1.0 - b2) * g * g
        return (m / (1.0 - b1 ** t)) / (np.sqrt(v / (1.0 - b2 ** t)) + self.eps)

    def step(self, p, g, state):
        return self.lr * self.adam_direction(g, state)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): p -= lr (adam + weight_decay p)."""

    def __init__(self, lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01, clip_norm=None):
        super().__init__(lr, betas, eps, clip_norm)
        self.weight_decay = weight_decay

    def step(self, p, g, state):
        return self.lr * (self.adam_direction(g, state) + self.weight_decay * p)
