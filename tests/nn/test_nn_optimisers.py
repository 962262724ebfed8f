"""Optimisers: updates against hand-computed reference steps, in-place updates, the
implicit (Params/Grads) and structural (model + nested dict) forms, clipping."""

import numpy as np
import pytest

import zygote_py as zp
from zygote_py import nn

G1 = np.array([0.5, -1.0, 2.0])
G2 = np.array([-0.25, 0.5, 1.0])


def run(opt, grads):
    p = np.array([1.0, 2.0, 3.0])
    ident = id(p)
    for g in grads:
        opt.update(p, g)
    assert id(p) == ident
    return p


def reference(name, grads, lr):
    p, v, m, a = np.array([1.0, 2.0, 3.0]), np.zeros(3), np.zeros(3), np.zeros(3)
    for t, g in enumerate(grads, start=1):
        if name == "descent":
            p = p - lr * g
        elif name == "momentum":
            v = 0.9 * v - lr * g
            p = p + v
        elif name == "nesterov":
            d = 0.81 * v - 1.9 * lr * g
            v = 0.9 * v - lr * g
            p = p + d
        elif name == "rmsprop":
            a = 0.9 * a + 0.1 * g * g
            p = p - lr * g / (np.sqrt(a) + 1e-8)
        elif name in ("adam", "adamw"):
            m = 0.9 * m + 0.1 * g
            a = 0.999 * a + 0.001 * g * g
            step = (m / (1 - 0.9 ** t)) / (np.sqrt(a / (1 - 0.999 ** t)) + 1e-8)
            p = p - lr * (step + (0.1 * p if name == "adamw" else 0))
    return p


@pytest.mark.parametrize("name, opt", [
    ("descent", nn.Descent(0.1)), ("momentum", nn.Momentum(0.1)), ("nesterov", nn.Nesterov(0.1)),
    ("rmsprop", nn.RMSProp(0.1)), ("adam", nn.Adam(0.1)), ("adamw", nn.AdamW(0.1, weight_decay=0.1)),
])
def test_steps_match_reference(name, opt):
    np.testing.assert_allclose(run(opt, [G1, G2, G1]), reference(name, [G1, G2, G1], 0.1),
                               rtol=1e-12)


def test_clip_norm_rescales_all_gradients_together():
    a, b = np.zeros(2), np.zeros(1)
    opt = nn.Descent(1.0, clip_norm=1.0)
    norm = opt.update([a, b], [np.array([3.0, 0.0]), np.array([4.0])])
    assert norm == pytest.approx(5.0)
    np.testing.assert_allclose(np.concatenate([a, b]), [-0.6, 0.0, -0.8])
    small = np.zeros(1)
    nn.Descent(1.0, clip_norm=1.0).update(small, np.array([0.5]))
    np.testing.assert_allclose(small, [-0.5])  # under the threshold: untouched


class Model:
    def __init__(self):
        self.W = np.array([[1.0, -1.0], [0.5, 2.0]])
        self.b = np.array([0.1, 0.2])
        self.unused = np.ones(2)
        self.name = "m"

    def __call__(self, x):
        return x @ self.W + self.b


X = np.array([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.3]])


def loss(m, x):
    return np.sum(m(x) ** 2)


def test_structural_and_implicit_forms_agree():
    m1, m2 = Model(), Model()
    opt1, opt2 = nn.Adam(0.05), nn.Adam(0.05)
    ps = zp.params(m2)
    ids = [id(p) for p in ps]
    for _ in range(3):
        opt1.update(m1, zp.gradient(loss, m1, X)[0])
        opt2.update(ps, zp.gradient(lambda: loss(m2, X), ps))
    np.testing.assert_allclose(m1.W, m2.W, rtol=1e-12)
    np.testing.assert_allclose(m1.b, m2.b, rtol=1e-12)
    assert [id(p) for p in zp.params(m2)] == ids  # updated in place: Params still valid
    np.testing.assert_array_equal(m1.unused, 1.0)  # no gradient (None): untouched, no state
    assert id(m1.unused) not in opt1.state and len(opt1.state) == 2


def test_descent_on_a_model_lowers_the_loss():
    m = Model()
    before = loss(m, X)
    opt = nn.Descent(0.01)
    for _ in range(20):
        opt.update(m, zp.gradient(loss, m, X)[0])
    assert loss(m, X) < 0.5 * before


def test_tied_arrays_sum_their_gradients():
    shared = np.array([1.0, 2.0])
    model = {"a": shared, "b": shared}
    pairs = nn.leaf_gradients(model, {"a": np.array([1.0, 0.0]), "b": np.array([0.0, 3.0])})
    assert len(pairs) == 1 and pairs[0][0] == "['a']"
    np.testing.assert_allclose(pairs[0][2], [1.0, 3.0])
