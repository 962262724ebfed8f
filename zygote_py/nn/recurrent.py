"""Recurrent cells (RNNCell, LSTMCell, GRUCell) and Recur, the stateful wrapper.

A cell is a pure function of (state, input): `cell(h, x) -> (h_new, y)`, with
x of shape (in,) or (batch, in).  `cell.initial_state(x)` is the zero state for
an input like x (for the LSTM a tuple (h, c)).  Gate weights are packed along
the last axis, input weights (in, k*out), recurrent weights (out, k*out).

`Recur(cell)` runs a cell over a whole sequence: `r(xs)` with xs a list of
steps or an array (time, batch, in) returns the stacked outputs (time, batch,
out).  It keeps the final state and starts the next call from it (so a long
sequence can be fed in chunks, with truncated backpropagation between chunks)
until `r.reset()`.

Why a whole sequence per call and not one step as in Flux: zygote_py refuses
attribute writes inside a differentiated function (`self.state = h` is a
`MutationError`), so the state that links time steps is a local variable of
the loop in `__call__`, which the compiler differentiates exactly.  The state
kept between calls is stored by a helper registered as non-differentiable,
which is precisely truncated backpropagation.  `r.step(x)` advances one step
for generation or inference and refuses to be differentiated (it would
silently cut the gradient through time).
"""

from __future__ import annotations

import weakref

import numpy as np

from ..errors import ZygoteError
from ..rules.registry import nondifferentiable, register_custom
from . import activations as _act
from . import init as _init

__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNCell", "Recur"]


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


# The state a Recur carries between calls, keyed by the Recur.  It lives outside the
# object so that neither zp.params(model) nor a structural gradient mistakes it for a
# parameter (both walk attributes and slots).
_STATES = weakref.WeakKeyDictionary()


def _start_state(recur, cell, x0):
    state = _STATES.get(recur)
    return cell.initial_state(x0) if state is None else state


def _keep_state(recur, state):
    _STATES[recur] = state


def _clear_state(recur):
    _STATES.pop(recur, None)


def _no_gradient_through_step(recur):
    return recur


def _step_rule(recur):
    raise ZygoteError("Recur.step(x) cannot be differentiated: the state it carries between "
                      "calls is cut from the gradient", hint="call the Recur on the whole "
                      "sequence instead: ys = r(xs), with xs a list of steps or a (time, ...) array")


# The carried state is data, not part of the graph: reading and storing it are
# not differentiated (truncated backpropagation between calls).
nondifferentiable(_start_state)
nondifferentiable(_keep_state)
nondifferentiable(_clear_state)
register_custom(_no_gradient_through_step, _step_rule)


class Recur:
    """Runs `cell` over sequences, carrying its state from call to call until reset()."""

    def __init__(self, cell):
        self.cell = cell

    @property
    def state(self):
        """The state after the last call (None: the cell's zero state is next)."""
        return _STATES.get(self)

    def reset(self):
        """Forgets the carried state (callable inside a loss, too)."""
        _clear_state(self)
        return self

    def __call__(self, xs):
        cell = self.cell
        h = _start_state(self, cell, xs[0])
        ys = []
        for x in xs:
            h, y = cell(h, x)
            ys.append(y)
        _keep_state(self, h)
        return np.stack(ys)

    def step(self, x):
        """One time step (for generation); not differentiable."""
        # the guard's result is used, so the compiler cannot leave it out as inactive
        cell = _no_gradient_through_step(self).cell
        h, y = cell(_start_state(self, cell, x), x)
        _keep_state(self, h)
        return y

    def __repr__(self):
        return f"Recur({self.cell!r})"


def RNN(n_in, n_out, **kwargs):
    return Recur(RNNCell(n_in, n_out, **kwargs))


def LSTM(n_in, n_out, **kwargs):
    return Recur(LSTMCell(n_in, n_out, **kwargs))


def GRU(n_in, n_out, **kwargs):
    return Recur(GRUCell(n_in, n_out, **kwargs))
