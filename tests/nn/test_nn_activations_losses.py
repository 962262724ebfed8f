"""Activations and losses: values against direct formulas, numerical stability at
extreme inputs, reductions, and gradients against finite differences."""

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp
from zygote_py import nn

RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 5)) * 2


def check(f, *args):
    got = zp.gradient(f, *args)
    fd = numerical_gradient(f, args)
    for i, (g, n, a) in enumerate(zip(got, fd, args)):
        assert_gradient_matches(g, n, a, f"arg{i}")


@pytest.mark.parametrize("act, ref", [
    (nn.relu, lambda x: np.where(x > 0, x, 0)),
    (nn.leaky_relu, lambda x: np.where(x > 0, x, 0.01 * x)),
    (nn.elu, lambda x: np.where(x > 0, x, np.exp(x) - 1)),
    (nn.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    (nn.tanh, np.tanh),
    (nn.softplus, lambda x: np.log1p(np.exp(x))),
    (nn.logsigmoid, lambda x: np.log(1 / (1 + np.exp(-x)))),
    (nn.gelu, lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
])
def test_activation_values_and_gradient(act, ref):
    np.testing.assert_allclose(act(X), ref(X), rtol=1e-12, atol=1e-12)
    check(lambda x: np.sum(act(x) * np.cos(x)), X)


def test_softmax_and_logsoftmax():
    p = nn.softmax(X)
    np.testing.assert_allclose(p.sum(axis=-1), 1)
    np.testing.assert_allclose(np.log(p), nn.logsoftmax(X), atol=1e-12)
    np.testing.assert_allclose(nn.softmax(X, axis=0).sum(axis=0), 1)
    w = RNG.standard_normal(X.shape)
    check(lambda x: np.sum(nn.softmax(x) * w), X)
    check(lambda x: np.sum(nn.logsoftmax(x, axis=0) * w), X)


def test_activations_are_stable_at_extremes():
    big = np.array([-1000.0, 0.0, 1000.0])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        np.testing.assert_allclose(nn.sigmoid(big), [0, 0.5, 1])
        np.testing.assert_allclose(nn.softplus(big), [0, np.log(2), 1000])
        np.testing.assert_allclose(nn.logsoftmax(big), [-2000, -1000, 0])
        np.testing.assert_allclose(nn.softmax(big), [0, 0, 1])
        np.testing.assert_allclose(nn.elu(big), [-1, 0, 1000])
        assert np.isfinite(nn.logitbinarycrossentropy(big, np.array([1.0, 0.0, 0.0]), "none")).all()


Y = RNG.standard_normal((4, 5))


@pytest.mark.parametrize("loss, ref", [
    (nn.mse, lambda a, b: (a - b) ** 2),
    (nn.mae, lambda a, b: np.abs(a - b)),
    (nn.huber, lambda a, b: np.where(np.abs(a - b) <= 1, 0.5 * (a - b) ** 2, np.abs(a - b) - 0.5)),
])
def test_regression_losses(loss, ref):
    per = ref(X, Y)
    np.testing.assert_allclose(loss(X, Y), per.mean())
    np.testing.assert_allclose(loss(X, Y, reduction="sum"), per.sum())
    np.testing.assert_allclose(loss(X, Y, reduction="none"), per)
    check(lambda a, b: loss(a, b), X, Y)
    with pytest.raises(ValueError):
        loss(X, Y, reduction="max")


LABELS = np.array([0, 3, 4, 1])
ONEHOT = nn.onehot(LABELS, 5)


def test_crossentropy_family():
    p = nn.softmax(X)
    per = -np.log(p[np.arange(4), LABELS])
    np.testing.assert_allclose(nn.crossentropy(p, ONEHOT), per.mean(), rtol=1e-9)
    np.testing.assert_allclose(nn.crossentropy(p, LABELS, reduction="none"), per, rtol=1e-9)
    np.testing.assert_allclose(nn.logitcrossentropy(X, ONEHOT), per.mean(), rtol=1e-12)
    np.testing.assert_allclose(nn.logitcrossentropy(X, LABELS, reduction="sum"), per.sum(), rtol=1e-12)
    check(lambda z: nn.logitcrossentropy(z, LABELS), X)
    check(lambda z, y: nn.logitcrossentropy(z, y), X, ONEHOT)
    check(lambda q: nn.crossentropy(q, ONEHOT), p)
    # a single sample: logits (classes,), an integer label
    np.testing.assert_allclose(nn.logitcrossentropy(X[1], 3), per[1], rtol=1e-12)


def test_binary_crossentropy_family():
    t = (RNG.random((4, 5)) > 0.5).astype(float)
    p = nn.sigmoid(X)
    per = -(t * np.log(p) + (1 - t) * np.log(1 - p))
    np.testing.assert_allclose(nn.binarycrossentropy(p, t), per.mean(), rtol=1e-9)
    np.testing.assert_allclose(nn.logitbinarycrossentropy(X, t, reduction="none"), per, rtol=1e-9)
    check(lambda z: nn.logitbinarycrossentropy(z, t), X)
    check(lambda q: nn.binarycrossentropy(q, t, reduction="sum"), p)


def test_onehot_onecold():
    np.testing.assert_array_equal(nn.onehot([2, 0], 3), [[0, 0, 1], [1, 0, 0]])
    np.testing.assert_array_equal(nn.onehot(["b", "a"], ["a", "b", "c"]), [[0, 1, 0], [1, 0, 0]])
    assert nn.onehot(np.array([[1, 2]]), 3).shape == (1, 2, 3)
    np.testing.assert_array_equal(nn.onecold(ONEHOT), LABELS)
    np.testing.assert_array_equal(nn.onecold([[0.1, 0.9], [0.8, 0.2]], ["no", "yes"]), ["yes", "no"])
    with pytest.raises(ValueError):
        nn.onehot([3], 3)
