"""Recurrent cells (RNNCell, LSTMCell, GRUCell), Recur (Flux's stateful wrapper, one time
step per call) and Recurrence (a whole sequence per call, for a Chain).

A cell is a pure function of (state, input): `cell(h, x) -> (h_new, y)`, with
x of shape (in,) or (batch, in).  `cell.initial_state(x)` is the zero state for
an input like x (for the LSTM a tuple (h, c)).  Gate weights are packed along
the last axis, input weights (in, k*out), recurrent weights (out, k*out).

`Recur(cell)` is Flux's: `y = m(x)` is one step, the hidden state lives on the
object (`m.state`), `m.reset()` sets it to `m.init`, a parameter.  Training over
a sequence is a loop of steps inside the loss; the gradient follows `m.state`
through the steps (an attribute written inside the differentiated call, see
docs/mutation.md) back to `m.init`.  `m.sequence(xs)` runs a whole sequence and
stacks the outputs; `Recurrence(m)` does that as a layer of a Chain.
`nn.RNN`, `nn.LSTM` and `nn.GRU` make a Recur of their cell.
"""

from __future__ import annotations

import numpy as np

from . import activations as _act
from . import init as _init

__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNCell", "Recur", "Recurrence"]


def _zeros_like_state(x, n):
    return np.zeros(np.shape(x)[:-1] + (n,))


class RNNCell:
    """h_new = y = activation(x @ Wi + h @ Wh + b)."""

    def __init__(self, n_in, n_out, activation=_act.tanh, init=_init.glorot_uniform,
                 init_recurrent=_init.orthogonal, rng=None):
        rng = _init.as_rng(rng)
        self.Wi = init((n_in, n_out), rng)
        self.Wh = init_recurrent((n_out, n_out), rng)
        self.b = np.zeros(n_out)
        self.activation = activation

    def initial_state(self, x):
        return _zeros_like_state(x, self.Wh.shape[0])

    def __call__(self, h, x):
        h = self.activation(x @ self.Wi + h @ self.Wh + self.b)
        return h, h

    def __repr__(self):
        return f"RNNCell({self.Wi.shape[0]} => {self.Wi.shape[1]})"


class LSTMCell:
    """Long short-term memory; state (h, c); gates (input, forget, cell, output)."""

    def __init__(self, n_in, n_out, init=_init.glorot_uniform, init_recurrent=_init.orthogonal,
                 forget_bias=1.0, rng=None):
        rng = _init.as_rng(rng)
        self.Wi = init((n_in, 4 * n_out), rng)
        self.Wh = np.concatenate([init_recurrent((n_out, n_out), rng) for _ in range(4)], axis=1)
        self.b = np.zeros(4 * n_out)
        self.b[n_out:2 * n_out] = forget_bias  # remember by default: helps long dependencies

    def initial_state(self, x):
        n = self.Wh.shape[0]
        return _zeros_like_state(x, n), _zeros_like_state(x, n)

    def __call__(self, state, x):
        h, c = state
        n = self.Wh.shape[0]
        z = x @ self.Wi + h @ self.Wh + self.b
        i = _act.sigmoid(z[..., :n])
        f = _act.sigmoid(z[..., n:2 * n])
        g = np.tanh(z[..., 2 * n:3 * n])
        o = _act.sigmoid(z[..., 3 * n:])
        c = f * c + i * g
        h = o * np.tanh(c)
        return (h, c), h

    def __repr__(self):
        return f"LSTMCell({self.Wi.shape[0]} => {self.Wh.shape[0]})"


class GRUCell:
    """Gated recurrent unit; gates (reset, update, candidate) as in Flux."""

    def __init__(self, n_in, n_out, init=_init.glorot_uniform, init_recurrent=_init.orthogonal,
                 rng=None):
        rng = _init.as_rng(rng)
        self.Wi = init((n_in, 3 * n_out), rng)
        self.Wh = np.concatenate([init_recurrent((n_out, n_out), rng) for _ in range(3)], axis=1)
        self.b = np.zeros(3 * n_out)

    def initial_state(self, x):
        return _zeros_like_state(x, self.Wh.shape[0])

    def __call__(self, h, x):
        n = self.Wh.shape[0]
        gx = x @ self.Wi + self.b
        gh = h @ self.Wh
        r = _act.sigmoid(gx[..., :n] + gh[..., :n])
        z = _act.sigmoid(gx[..., n:2 * n] + gh[..., n:2 * n])
        cand = np.tanh(gx[..., 2 * n:] + r * gh[..., 2 * n:])
        h = (1.0 - z) * cand + z * h
        return h, h

    def __repr__(self):
        return f"GRUCell({self.Wi.shape[0]} => {self.Wh.shape[0]})"


class Recur:
    """Flux's stateful wrapper: `y = m(x)` runs one time step of `cell` from `m.state` and
    stores the new state in `m.state`; `m.reset()` sets it back to `m.init`.

    `init` (default: the cell's zero state for one example, shape (out,), a tuple (h, c)
    for the LSTM; it broadcasts over a batch) is a parameter like the cell's weights:
    `zp.params(m)` holds it, and the gradient of a loss that calls `m.reset()` reaches it.
    `m.state` is ordinary data on the object: a gradient call that steps the model leaves
    it where the last step put it, as a plain call would, and the gradient follows it
    through every step of the call back to its value when the call started (to `m.init`
    after a reset: right after `reset()` the state *is* the init array)."""

    _zp_data = ("state",)  # zp.params and nn.leaf_gradients leave it out (data, not a parameter)

    def __init__(self, cell, init=None):
        self.cell = cell
        self.init = cell.initial_state(np.zeros(cell.Wi.shape[0])) if init is None else init
        self.state = self.init

    def reset(self):
        """Starts the next step from `init` again (callable inside a loss, too)."""
        self.state = self.init
        return self

    def __call__(self, x):
        state, y = self.cell(self.state, x)
        self.state = state
        return y

    def sequence(self, xs):
        """Runs every step of xs (a list of steps, or an array whose first axis is time) from
        the current state, and returns the outputs stacked along a new first axis."""
        ys = []
        for x in xs:
            ys.append(self(x))
        return np.stack(ys)

    def __repr__(self):
        return f"Recur({self.cell!r})"


class Recurrence:
    """A whole sequence per call, for a Chain: `Recurrence(r)(xs)` is `r.sequence(xs)`, with
    xs of shape (time, batch, in) or a list of steps; `reset()` resets r."""

    def __init__(self, recur):
        self.recur = recur

    def reset(self):
        self.recur.reset()
        return self

    def __call__(self, xs):
        return self.recur.sequence(xs)

    def __repr__(self):
        return f"Recurrence({self.recur!r})"


def RNN(n_in, n_out, **kwargs):
    return Recur(RNNCell(n_in, n_out, **kwargs))


def LSTM(n_in, n_out, **kwargs):
    return Recur(LSTMCell(n_in, n_out, **kwargs))


def GRU(n_in, n_out, **kwargs):
    return Recur(GRUCell(n_in, n_out, **kwargs))
