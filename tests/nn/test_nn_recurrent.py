"""Recurrent cells and Recur: the recurrences, state carried between calls, and
gradients through time against finite differences."""

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp
from zygote_py import nn

RNG = np.random.default_rng(11)
XS = RNG.standard_normal((5, 3, 2))  # (time, batch, in)


def seq_loss(r, xs):
    r.reset()  # reset works inside a differentiated function
    return np.sum(r(xs) ** 2)


@pytest.mark.parametrize("make", [nn.RNN, nn.LSTM, nn.GRU])
@pytest.mark.parametrize("batched", [True, False])
def test_gradient_through_time(make, batched):
    r = make(2, 3, rng=1)
    r.cell.b[:] = RNG.standard_normal(r.cell.b.shape) * 0.3
    xs = XS if batched else XS[:, 0]
    got = zp.gradient(seq_loss, r, xs)
    fd = numerical_gradient(seq_loss, (r, xs))
    assert_gradient_matches(got[0], fd[0], r, "recur")
    assert_gradient_matches(got[1], fd[1], xs, "xs")
    assert set(got[0]) == {"cell"}  # the carried state is not a parameter
    assert len(zp.params(r)) == 3


def test_rnn_cell_recurrence():
    cell = nn.RNNCell(2, 3, rng=0)
    h = np.zeros(3)
    for x in XS[:, 0]:
        h = np.tanh(x @ cell.Wi + h @ cell.Wh + cell.b)
    np.testing.assert_allclose(nn.Recur(cell)(XS[:, 0])[-1], h)


def test_lstm_cell_shapes_and_forget_bias():
    cell = nn.LSTMCell(2, 4, rng=0)
    (h, c), y = cell(cell.initial_state(XS[0]), XS[0])
    assert h.shape == c.shape == y.shape == (3, 4)
    np.testing.assert_array_equal(cell.b[4:8], 1.0)
    assert nn.LSTM(2, 4)(XS).shape == (5, 3, 4)


def test_recur_carries_state_until_reset():
    r = nn.GRU(2, 3, rng=2)
    whole = r(XS)
    r.reset()
    first, second = r(XS[:2]), r(XS[2:])
    np.testing.assert_allclose(np.concatenate([first, second]), whole, atol=1e-12)
    assert r.state.shape == (3, 3)
    r.reset()
    assert r.state is None
    np.testing.assert_allclose(r(XS), whole)


def test_step_matches_sequence_and_refuses_gradient():
    r = nn.LSTM(2, 3, rng=3)
    ys = r(XS)
    r.reset()
    steps = [r.step(x) for x in XS]
    np.testing.assert_allclose(np.stack(steps), ys, atol=1e-12)

    def stepwise(r, xs):
        return np.sum(r.step(xs[0]))

    with pytest.raises(zp.ZygoteError, match="whole sequence"):
        zp.gradient(stepwise, r, XS)


def test_gradient_is_truncated_between_calls():
    """The state carried in from an earlier call is data: no gradient flows into it."""
    r = nn.RNN(2, 3, rng=4)
    r.reset()
    r(XS[:2])
    carried = r.state

    def tail_loss(r, xs):
        return np.sum(r(xs) ** 2)

    g = zp.gradient(tail_loss, r, XS[2:])[0]
    # the same as starting a fresh Recur from that state as a constant
    fresh = nn.Recur(r.cell)
    nn.recurrent._keep_state(fresh, carried)
    g2 = zp.gradient(tail_loss, fresh, XS[2:])[0]
    np.testing.assert_allclose(g["cell"]["Wh"], g2["cell"]["Wh"])


def test_implicit_and_structural_gradients_agree_for_a_sequence_model():
    model = nn.Chain(nn.Embedding(7, 4, rng=0), nn.LSTM(4, 5, rng=1), nn.Dense(5, 7, rng=2))
    x = np.random.default_rng(0).integers(0, 7, (6, 3))
    y = np.roll(x, 1)

    def loss(m, x, y):
        m[1].reset()
        return nn.logitcrossentropy(m(x), y)

    gm = zp.gradient(loss, model, x, y)[0]
    ps = zp.params(model)
    gs = zp.gradient(lambda: loss(model, x, y), ps)
    pairs = nn.leaf_gradients(model, gm)
    assert len(pairs) == len(ps) == 6
    for path, arr, g in pairs:
        np.testing.assert_allclose(gs[arr], g, rtol=1e-12, atol=1e-15, err_msg=path)
