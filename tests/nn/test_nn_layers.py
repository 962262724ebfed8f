"""Layers: output values and shapes, and gradients against central finite differences
(float64), for single samples and batches (batch first)."""

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp
from zygote_py import nn

RNG = np.random.default_rng(42)


def check_gradient(loss, model, *data):
    """zp.gradient w.r.t. the model (a structural dict) matches finite differences."""
    got = zp.gradient(loss, model, *data)[0]
    fd = numerical_gradient(loss, (model, *data), wrt=(0,))[0]
    assert_gradient_matches(got, fd, model, "model")
    return got


def sq_loss(model, x):
    return np.sum(model(x) ** 2)


def test_dense_computes_x_at_w_plus_b():
    layer = nn.Dense(3, 2, nn.tanh, rng=0)
    layer.bias[:] = [0.1, -0.2]
    x = RNG.standard_normal((4, 3))
    np.testing.assert_allclose(layer(x), np.tanh(x @ layer.weight + layer.bias))
    assert layer.weight.shape == (3, 2) and layer(x[0]).shape == (2,)
    np.testing.assert_allclose(layer(x[1]), layer(x)[1])  # a sample is a row of the batch


@pytest.mark.parametrize("act", [nn.identity, nn.relu, nn.tanh, nn.sigmoid, nn.gelu, nn.elu,
                                 nn.softplus, nn.leaky_relu])
@pytest.mark.parametrize("batch", [True, False])
def test_dense_gradient(act, batch):
    layer = nn.Dense(3, 4, act, rng=1)
    layer.bias[:] = RNG.standard_normal(4) * 0.3
    x = RNG.standard_normal((5, 3) if batch else 3)
    g = check_gradient(sq_loss, layer, x)
    assert set(g) == {"weight", "bias", "activation"} and g["activation"] is None


def test_dense_without_bias():
    layer = nn.Dense(3, 2, bias=False, rng=2)
    assert layer.bias is None
    g = check_gradient(sq_loss, layer, RNG.standard_normal((4, 3)))
    assert g["bias"] is None


def test_chain_composes_and_differentiates():
    model = nn.Chain(nn.Dense(3, 5, nn.relu, rng=3), nn.LayerNorm(5), nn.Dense(5, 2, rng=4))
    x = RNG.standard_normal((6, 3))
    np.testing.assert_allclose(model(x), model[2](model[1](model[0](x))))
    assert len(model) == 3 and len(model[:2]) == 2
    g = check_gradient(lambda m, x, y: nn.logitcrossentropy(m(x), y), model, x, np.arange(6) % 2)
    assert isinstance(g["layers"], list) and len(g["layers"]) == 3


def test_chain_accepts_a_list():
    layers = [nn.Dense(2, 2, rng=5), nn.Dense(2, 1, rng=6)]
    assert nn.Chain(layers).layers == layers


def test_layernorm_normalises_last_axis():
    ln = nn.LayerNorm(4)
    y = ln(RNG.standard_normal((3, 4)) * 5 + 2)
    np.testing.assert_allclose(y.mean(axis=-1), 0, atol=1e-12)
    np.testing.assert_allclose(y.std(axis=-1), 1, atol=1e-4)
    ln.scale[:] = RNG.standard_normal(4)
    ln.bias[:] = RNG.standard_normal(4)
    check_gradient(lambda m, x: np.sum(m(x) ** 3), ln, RNG.standard_normal((3, 4)))


def test_embedding_lookup_and_gradient():
    emb = nn.Embedding(6, 3, rng=7)
    idx = np.array([[1, 2], [2, 5]])
    assert emb(idx).shape == (2, 2, 3)
    g = check_gradient(lambda m, i: np.sum(m(i) ** 2), emb, idx)
    # rows never looked up get no gradient; row 2, used twice, gets both contributions
    assert np.all(g["weight"][[0, 3, 4]] == 0)
    np.testing.assert_allclose(g["weight"][2], 4 * emb.weight[2])


def test_dropout_train_and_test_modes():
    x = np.ones((200, 50))
    drop = nn.Dropout(0.3, rng=0)
    y = drop(x)
    frac_zero = np.mean(y == 0)
    assert 0.27 < frac_zero < 0.33
    np.testing.assert_allclose(np.unique(y), [0.0, 1 / 0.7])
    model = nn.Chain(nn.Dense(50, 3, rng=1), drop)
    nn.testmode(model)
    assert drop.training is False
    np.testing.assert_array_equal(drop(x), x)
    nn.trainmode(model)
    assert drop.training is True
    with pytest.raises(ValueError):
        nn.Dropout(1.0)


def test_dropout_gradient_uses_the_same_mask():
    drop = nn.Dropout(0.5, rng=np.random.default_rng(3))
    x = RNG.standard_normal((4, 5))
    y, back = zp.pullback(lambda x: drop(x), x)
    (gx,) = back(np.ones_like(y))
    np.testing.assert_allclose(gx, (y != 0) * 2.0)


def test_initialisers_are_seeded_and_scaled():
    a = nn.glorot_uniform((100, 50), np.random.default_rng(0))
    b = nn.glorot_uniform((100, 50), np.random.default_rng(0))
    np.testing.assert_array_equal(a, b)
    assert np.abs(a).max() <= np.sqrt(6 / 150)
    assert abs(nn.glorot_normal((400, 400), 1).std() - np.sqrt(2 / 800)) < 0.002
    assert abs(nn.kaiming_normal((400, 300), 1).std() - np.sqrt(2 / 400)) < 0.002
    q = nn.orthogonal((6, 4), 2)
    np.testing.assert_allclose(q.T @ q, np.eye(4), atol=1e-12)
    assert nn.zeros((2, 3)).sum() == 0 and nn.ones(3).sum() == 3
    assert nn.glorot_uniform((3, 2), 0, dtype=np.float32).dtype == np.float32


def test_params_finds_layer_arrays():
    model = nn.Chain(nn.Dense(3, 4, rng=0), nn.Dropout(0.1), nn.LayerNorm(4))
    ps = zp.params(model)
    assert len(ps) == 4
    assert model[0].weight in ps and model[2].scale in ps


class _Inner:
    def __init__(self):
        self.W = np.array([[1.0, -2.0], [0.5, 1.5]])
        self.activation = nn.tanh

    def __call__(self, x):
        return self.activation(x @ self.W)  # called straight from the attribute


class _Outer:
    def __init__(self):
        self.fc = _Inner()

    def __call__(self, x):
        return self.fc(x)


@pytest.mark.parametrize("make", [_Inner, _Outer])
def test_calling_an_attribute_held_callable(make):
    """User layers may call a function or a sub-layer straight from an attribute."""
    check_gradient(sq_loss, make(), np.array([0.3, -0.7]))
