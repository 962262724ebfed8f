"""Gradients through structured arguments, end to end, checked against central finite
differences in float64: NamedTuples (typing and collections), dataclasses (frozen and
slotted), objects with __slots__, registered structures, and mixtures of them.

Each case builds its arguments from a flat vector theta (`build`) and reads the
gradient back into one (`read`), so the finite differences never depend on the
structure code under test.
"""

from __future__ import annotations

import collections
import dataclasses
import typing

import numpy as np
import pytest

import zygote_py as zp
from zygote_py import nn

RNG = np.random.default_rng(7)
X = RNG.normal(size=3)


class Affine(typing.NamedTuple):
    w: np.ndarray
    b: float


AffineC = collections.namedtuple("AffineC", ["w", "b"])


class Tagged(typing.NamedTuple):
    inner: Affine
    steps: int  # never differentiated: its gradient entry is None


@dataclasses.dataclass
class DenseDC:
    w: np.ndarray
    b: float


@dataclasses.dataclass(frozen=True)
class FrozenDC:
    w: np.ndarray
    b: float


@dataclasses.dataclass(slots=True)
class SlotDC:
    w: np.ndarray
    b: float


class Slotted:
    __slots__ = ("b", "w")

    def __init__(self, w, b):
        self.w = w
        self.b = b


@zp.register_structure
class Registered:
    def __init__(self, w, b):
        self.w = w
        self.b = b


def fd_gradient(loss, theta, eps=1e-6):
    out = np.zeros_like(theta)
    for i in range(theta.size):
        up, down = theta.copy(), theta.copy()
        up[i] += eps
        down[i] -= eps
        out[i] = (loss(up) - loss(down)) / (2 * eps)
    return out


def check(f, build, read, n):
    """zp.gradient of f(*build(theta)) read back by read(grads) equals finite differences."""
    theta = RNG.normal(size=n)
    expected = fd_gradient(lambda t: float(f(*build(t))), theta)
    grads = zp.gradient(f, *build(theta))
    np.testing.assert_allclose(read(grads), expected, rtol=1e-6, atol=1e-8)
    return grads


def affine_loss(p, x):
    return np.sum(np.tanh(p.w * x)) + p.b * np.sum(x) + p.b ** 2


@pytest.mark.parametrize("cls", [Affine, AffineC], ids=["typing.NamedTuple", "collections.namedtuple"])
def test_record_fields_read_by_attribute(cls):
    grads = check(affine_loss, lambda t: (cls(t[:3], float(t[3])), X),
                  lambda g: np.r_[g[0].w, g[0].b], 4)
    assert type(grads[0]) is cls and type(grads[0].b) is float and grads[0].w.shape == (3,)


def test_record_read_by_index_and_by_attribute_adds_both():
    def f(p, x):
        return np.sum(p[0] * x * p.w) + p.b * p[1]

    check(f, lambda t: (Affine(t[:3], float(t[3])), X), lambda g: np.r_[g[0].w, g[0].b], 4)


def test_record_passed_to_a_helper_and_unpacked():
    def helper(p, x):
        w, b = p
        return np.sum(w * x) * b

    def f(p, x):
        return helper(p, x) + np.sum(p.w ** 2)

    grads = check(f, lambda t: (AffineC(t[:3], float(t[3])), X), lambda g: np.r_[g[0].w, g[0].b], 4)
    assert type(grads[0]) is AffineC


def test_nested_records_with_an_int_field():
    def f(t, x):
        return affine_loss(t.inner, x) * t.steps

    grads = check(f, lambda t: (Tagged(Affine(t[:3], float(t[3])), 3), X),
                  lambda g: np.r_[g[0].inner.w, g[0].inner.b], 4)
    assert type(grads[0]) is Tagged and type(grads[0].inner) is Affine and grads[0].steps is None


class Scaled(typing.NamedTuple):
    w: np.ndarray
    gain: float

    def apply(self, x):
        return np.tanh(self.w * x) * self.gain


def test_method_of_a_namedtuple_reads_fields_by_attribute():
    def f(p, x):
        return np.sum(p.apply(x) ** 2) + p[1]

    grads = check(f, lambda t: (Scaled(t[:3], float(t[3])), X), lambda g: np.r_[g[0].w, g[0].gain], 4)
    assert type(grads[0]) is Scaled


def test_pullback_of_a_record_argument():
    p = Affine(RNG.normal(size=3), 0.5)
    _, back = zp.pullback(lambda p, x: p.w * x + p.b, p, X)
    (gp, gx) = back(np.ones(3))
    assert type(gp) is Affine
    np.testing.assert_allclose(gp.w, X)
    np.testing.assert_allclose(gp.b, 3.0)
    np.testing.assert_allclose(gx, p.w)


@pytest.mark.parametrize("cls", [DenseDC, FrozenDC, SlotDC, Slotted],
                         ids=["dataclass", "frozen dataclass", "slotted dataclass", "__slots__"])
def test_objects_give_a_dict_of_attributes(cls):
    grads = check(affine_loss, lambda t: (cls(t[:3], float(t[3])), X),
                  lambda g: np.r_[g[0]["w"], g[0]["b"]], 4)
    assert set(grads[0]) == {"w", "b"}


def test_object_with_slots_through_a_method_call():
    class Layer:
        __slots__ = ("scale", "w")

        def __init__(self, w, scale):
            self.w, self.scale = w, scale

        def __call__(self, x):
            return np.tanh(self.w @ x) * self.scale

    def f(layer, x):
        return np.sum(layer(x) ** 2)

    check(f, lambda t: (Layer(t[:6].reshape(2, 3), float(t[6])), X),
          lambda g: np.r_[g[0]["w"].ravel(), g[0]["scale"]], 7)


def test_registered_structure_gradient_is_its_own_type():
    grads = check(affine_loss, lambda t: (Registered(t[:3], float(t[3])), X),
                  lambda g: np.r_[g[0].w, g[0].b], 4)
    assert type(grads[0]) is Registered


def test_dict_of_namedtuples_of_arrays():
    def f(params, x):
        h = np.tanh(params["first"].w * x + params["first"].b)
        return np.sum(h * params["second"].w) + params["second"][1]

    def build(t):
        return {"first": Affine(t[:3], float(t[3])), "second": Affine(t[4:7], float(t[7]))}, X

    grads = check(f, build, lambda g: np.r_[g[0]["first"].w, g[0]["first"].b,
                                            g[0]["second"].w, g[0]["second"].b], 8)
    assert all(type(v) is Affine for v in grads[0].values())


def test_list_of_slots_objects_in_a_loop():
    def f(layers, x):
        h = x
        for layer in layers:
            h = np.tanh(h * layer.w + layer.b)
        return np.sum(h ** 2)

    def build(t):
        return [Slotted(t[:3], float(t[3])), Slotted(t[4:7], float(t[7]))], X

    grads = check(f, build, lambda g: np.r_[g[0][0]["w"], g[0][0]["b"], g[0][1]["w"], g[0][1]["b"]], 8)
    assert type(grads[0]) is list


def test_tuple_of_dataclasses_holding_namedtuples():
    @dataclasses.dataclass
    class Block:
        affine: Affine
        gain: float

    def f(blocks, x):
        total = 0.0
        for block in blocks:
            total = total + affine_loss(block.affine, x) * block.gain
        return total

    def build(t):
        return (Block(Affine(t[:3], float(t[3])), float(t[4])),
                Block(Affine(t[5:8], float(t[8])), float(t[9]))), X

    def read(g):
        return np.r_[[np.r_[b["affine"].w, b["affine"].b, b["gain"]] for b in g[0]]].ravel()

    grads = check(f, build, read, 10)
    assert type(grads[0]) is tuple and type(grads[0][0]["affine"]) is Affine


# -- implicit parameters and models ---------------------------------------------------------
MODEL = Affine(RNG.normal(size=3), 0.3)
SLOTTED_MODEL = [Slotted(RNG.normal(size=3), 0.2), Slotted(RNG.normal(size=3), -0.4)]


def test_params_of_a_record_read_by_attribute():
    ps = zp.params(MODEL)
    assert len(ps) == 1 and ps.name_of(MODEL.w) == "MODEL[0]"
    gs = zp.gradient(lambda: affine_loss(MODEL, X), ps)
    expected = fd_gradient(lambda w: affine_loss(Affine(w, MODEL.b), X), MODEL.w.copy())
    np.testing.assert_allclose(gs[MODEL.w], expected, rtol=1e-6, atol=1e-8)


def test_leaf_gradients_pair_a_list_of_slots_objects_and_records():
    model = {"layers": SLOTTED_MODEL, "head": MODEL}

    def loss(m, x):
        h = x
        for layer in m["layers"]:
            h = np.tanh(h * layer.w + layer.b)
        return affine_loss(m["head"], h)

    (g, _) = zp.gradient(loss, model, X)
    pairs = zp.leaf_gradients(model, g)
    assert [path for path, _, _ in pairs] == ["['layers'][0].w", "['layers'][1].w", "['head'][0]"]
    for path, array, grad in pairs:
        def at(v, array=array):
            saved = array.copy()
            array[...] = v
            try:
                return loss(model, X)
            finally:
                array[...] = saved

        np.testing.assert_allclose(grad, fd_gradient(at, array.copy()), rtol=1e-6, atol=1e-8,
                                   err_msg=path)


def test_trainmode_reaches_layers_with_slots():
    class Drop:
        __slots__ = ("training",)

        def __init__(self):
            self.training = True

    model = Affine([Drop(), {"d": Drop()}], 1.0)
    nn.testmode(model)
    assert model.w[0].training is False and model.w[1]["d"].training is False
    nn.trainmode(model)
    assert model.w[0].training is True


class Misnamed:
    def __init__(self, w):
        self.w = w


zp.register_structure(Misnamed, lambda m: ({"weights": m.w}, None), lambda aux, kids: Misnamed(kids["weights"]))


def test_registered_flatten_that_misses_a_read_attribute_raises():
    with pytest.raises(zp.StructureError, match="weights"):
        zp.gradient(lambda m, x: np.sum(m.w * x), Misnamed(np.ones(3)), X)


def test_leaf_gradients_pair_a_registered_structure_with_its_gradient():
    model = Registered(RNG.normal(size=3), 0.7)
    (g, _) = zp.gradient(affine_loss, model, X)
    assert type(g) is Registered
    pairs = zp.leaf_gradients(model, g)
    assert [path for path, _, _ in pairs] == ["w"]
    expected = fd_gradient(lambda w: affine_loss(Registered(w, model.b), X), model.w.copy())
    np.testing.assert_allclose(pairs[0][2], expected, rtol=1e-6, atol=1e-8)
