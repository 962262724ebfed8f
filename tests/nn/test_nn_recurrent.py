"""Recurrent cells and Recur (Flux's: one step per call, the state on the object): the
recurrences, the state, and gradients through time (explicit and with zp.params, the
initial state included) against finite differences."""

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp
from zygote_py import nn

RNG = np.random.default_rng(11)
XS = RNG.standard_normal((5, 3, 2))  # (time, batch, in)


def seq_loss(r, xs):
    r.reset()  # reset works inside a differentiated function
    total = 0.0
    for x in xs:  # one step per call, the state on the object (Flux's Recur)
        total = total + np.sum(r(x) ** 2)
    return total


def _random_init(r):
    """A nonzero initial state, so that its gradient is tested."""
    if isinstance(r.init, tuple):
        r.init = tuple(RNG.standard_normal(a.shape) * 0.5 for a in r.init)
    else:
        r.init = RNG.standard_normal(r.init.shape) * 0.5
    r.reset()


@pytest.mark.parametrize("make", [nn.RNN, nn.LSTM, nn.GRU])
@pytest.mark.parametrize("batched", [True, False])
def test_gradient_through_time(make, batched):
    r = make(2, 3, rng=1)
    r.cell.b[:] = RNG.standard_normal(r.cell.b.shape) * 0.3
    _random_init(r)
    xs = XS if batched else XS[:, 0]
    got = zp.gradient(seq_loss, r, xs)
    fd = numerical_gradient(seq_loss, (r, xs))
    assert_gradient_matches(got[0], fd[0], r, "recur")
    assert_gradient_matches(got[1], fd[1], xs, "xs")
    assert got[0]["init"] is not None  # the initial state is a parameter, as Flux's state0
    assert got[0].get("state") is None  # reset() inside: the state passed in is not read
    assert len(zp.params(r)) == (5 if make is nn.LSTM else 4)


@pytest.mark.parametrize("make", [nn.RNN, nn.LSTM])
def test_implicit_params_gradient_through_time_matches_explicit(make):
    r = make(2, 3, rng=5)
    _random_init(r)
    ps = zp.params(r)  # right after reset(): r.state is r.init itself, no extra parameter
    assert len(ps) == (5 if make is nn.LSTM else 4)
    gs = zp.gradient(lambda: seq_loss(r, XS), ps)
    explicit = zp.gradient(seq_loss, r, XS)[0]
    for path, array, g in nn.leaf_gradients(r, explicit):
        if path.startswith("init"):
            np.testing.assert_allclose(gs[array], g, rtol=1e-12, atol=1e-14, err_msg=path)
    for name in ("Wi", "Wh", "b"):
        np.testing.assert_allclose(gs[getattr(r.cell, name)], explicit["cell"][name],
                                   rtol=1e-12, atol=1e-14)
    fd = numerical_gradient(lambda init: _loss_from_init(r, init), (r.init,))[0]
    assert_gradient_matches(gs[r.init] if make is nn.RNN else (gs[r.init[0]], gs[r.init[1]]),
                            fd, r.init, "init")


def _loss_from_init(r, init):
    saved = r.init
    r.init = init
    try:
        return seq_loss(r, XS)
    finally:
        r.init = saved


def test_state_on_the_object_after_a_gradient_call_as_after_a_plain_call():
    r = nn.GRU(2, 3, rng=2)
    plain_loss = seq_loss(r, XS)
    plain_state = r.state.copy()
    r.reset()
    loss, _ = zp.withgradient(seq_loss, r, XS)
    assert loss == pytest.approx(plain_loss)
    np.testing.assert_allclose(r.state, plain_state, atol=1e-15)


def test_gradient_with_respect_to_the_state_passed_in():
    """Without reset() inside, the state the call starts from is differentiated too (the
    'state' entry): truncated backpropagation is simply not asking for it."""
    r = nn.RNN(2, 3, rng=4)
    r.reset()
    r.sequence(XS[:2])

    def tail_loss(r, xs):
        return np.sum(r.sequence(xs) ** 2)

    start = r.state
    got = zp.gradient(tail_loss, r, XS[2:])[0]
    assert r.state is not start  # stepped by the gradient call, as by a plain call
    r.state = start

    def from_state(state):
        r.state = state
        try:
            return tail_loss(r, XS[2:])
        finally:
            r.state = start

    fd = numerical_gradient(from_state, (start,))[0]
    np.testing.assert_allclose(got["state"], fd, rtol=1e-6, atol=1e-8)


def test_pullback_of_a_stepped_recur_runs_twice():
    r = nn.LSTM(2, 3, rng=6)
    y, back = zp.pullback(seq_loss, r, XS)
    first = back(1.0)
    second = back(2.0)
    np.testing.assert_allclose(second[0]["cell"]["Wh"], 2 * first[0]["cell"]["Wh"])
    r.reset()
    assert seq_loss(r, XS) == pytest.approx(y)


def test_a_change_of_the_state_between_forward_and_pullback_is_refused():
    r = nn.RNN(2, 3, rng=7)
    _, back = zp.pullback(seq_loss, r, XS)
    r(XS[0])  # a plain step in between
    with pytest.raises(zp.ZygoteError, match="changed after the forward pass"):
        back(1.0)


def test_rnn_cell_recurrence():
    cell = nn.RNNCell(2, 3, rng=0)
    h = np.zeros(3)
    for x in XS[:, 0]:
        h = np.tanh(x @ cell.Wi + h @ cell.Wh + cell.b)
    np.testing.assert_allclose(nn.Recur(cell).sequence(XS[:, 0])[-1], h)


def test_lstm_cell_shapes_and_forget_bias():
    cell = nn.LSTMCell(2, 4, rng=0)
    (h, c), y = cell(cell.initial_state(XS[0]), XS[0])
    assert h.shape == c.shape == y.shape == (3, 4)
    np.testing.assert_array_equal(cell.b[4:8], 1.0)
    assert nn.LSTM(2, 4).sequence(XS).shape == (5, 3, 4)
    assert nn.Recurrence(nn.LSTM(2, 4))(XS).shape == (5, 3, 4)


def test_recur_carries_state_until_reset():
    r = nn.GRU(2, 3, rng=2)
    whole = r.sequence(XS)
    r.reset()
    first, second = r.sequence(XS[:2]), r.sequence(XS[2:])
    np.testing.assert_allclose(np.concatenate([first, second]), whole, atol=1e-12)
    assert r.state.shape == (3, 3)
    r.reset()
    assert r.state is r.init
    steps = [r(x) for x in XS]
    np.testing.assert_allclose(np.stack(steps), whole, atol=1e-12)


def test_implicit_and_structural_gradients_agree_for_a_sequence_model():
    model = nn.Chain(nn.Embedding(7, 4, rng=0), nn.Recurrence(nn.LSTM(4, 5, rng=1)),
                     nn.Dense(5, 7, rng=2))
    x = np.random.default_rng(0).integers(0, 7, (6, 3))
    y = np.roll(x, 1)

    def loss(m, x, y):
        m[1].reset()
        return nn.logitcrossentropy(m(x), y)

    gm = zp.gradient(loss, model, x, y)[0]
    ps = zp.params(model)
    gs = zp.gradient(lambda: loss(model, x, y), ps)
    pairs = nn.leaf_gradients(model, gm)
    pairs = [p for p in pairs if ".state" not in p[0]]  # data on the object, not in ps
    assert len(pairs) == len(ps) == 8  # the LSTM's init (h, c) included
    for path, arr, g in pairs:
        np.testing.assert_allclose(gs[arr], g, rtol=1e-12, atol=1e-15, err_msg=path)


def test_fluxs_canonical_loop_a_recur_inside_a_chain_stepped_per_time_with_params():
    """Flux's model zoo form: `loss = sum(mse(m(x), y) for (x, y) in zip(xs, ys))`."""
    m = nn.Chain(nn.Dense(2, 4, rng=0), nn.RNN(4, 3, rng=1), nn.Dense(3, 1, rng=2))
    _random_init(m[1])
    xs = [RNG.standard_normal((5, 2)) for _ in range(4)]
    ys = [RNG.standard_normal((5, 1)) for _ in range(4)]

    def loss():
        m[1].reset()
        return sum(nn.mse(m(x), y) for x, y in zip(xs, ys))

    ps = zp.params(m)
    assert len(ps) == 8  # two Dense (weight, bias), the cell's Wi, Wh, b, the init
    gs = zp.gradient(loss, ps)
    for array in (m[1].init, m[0].weight, m[1].cell.Wh):
        before = array.copy()
        fd = numerical_gradient(lambda a, p=array: _with_values(p, a, loss), (before,))[0]
        np.testing.assert_allclose(gs[array], fd, rtol=1e-6, atol=1e-8)


def _with_values(array, values, f):
    saved = array.copy()
    array[...] = values
    try:
        return f()
    finally:
        array[...] = saved


GLOBAL_RNN = nn.RNN(2, 3, rng=8)


def test_a_global_recur_stepped_inside_a_gradient_with_respect_to_the_inputs_only():
    """The model is not an input (a global, no zp.params): the derivative still follows
    the state written on it from step to step."""
    GLOBAL_RNN.init = np.array([0.3, -0.2, 0.1])
    xs = XS[:4, 0]

    def f(xs):
        GLOBAL_RNN.reset()
        total = 0.0
        for x in xs:
            total = total + np.sum(GLOBAL_RNN(x) ** 2)
        return total

    (g,) = zp.gradient(f, xs)
    fd = numerical_gradient(f, (xs,))[0]
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
