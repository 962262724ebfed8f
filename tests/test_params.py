"""Implicit parameters (Params/Grads) and structural gradients, against finite differences.

Each case differentiates a thunk with respect to arrays it reaches through
globals, closure cells, attributes and container items; the numerical
gradient perturbs each parameter array *in place*, so it sees every read of
that very object, as the implicit gradient must.
"""

from __future__ import annotations

import dataclasses
import types

import numpy as np
import pytest

import zygote_py as zp
from tests.params_cases import other_module
from zygote_py.params import ParamsError

RNG = np.random.default_rng(42)


def numeric_param_grad(thunk, array, h=1e-6):
    out = np.zeros(array.shape)
    flat = array.reshape(-1)  # a view: writes go into the parameter itself
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + h
        up = float(thunk())
        flat[i] = old - h
        down = float(thunk())
        flat[i] = old
        out.reshape(-1)[i] = (up - down) / (2 * h)
    return out


def check(thunk, ps, expect_unused=()):
    """Every parameter's gradient matches finite differences (None where unused)."""
    grads = zp.gradient(thunk, ps)
    assert isinstance(grads, zp.Grads)
    for p in ps:
        numeric = numeric_param_grad(thunk, p)
        got = grads[p]
        if any(p is u for u in expect_unused):
            assert got is None
            continue
        if got is None:  # allowed only where the loss truly does not depend on p
            assert np.all(numeric == 0), f"no gradient for {ps.name_of(p)}"
            continue
        assert got.shape == p.shape and got.dtype == p.dtype
        np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-7)
    return grads


# -- the Flux example ---------------------------------------------------------------
W = RNG.normal(size=(3, 5))
b = np.zeros(3)
x = RNG.random(5)


def y(x):
    return np.sum(W @ x + b)


def test_flux_example():
    grads = zp.gradient(lambda: y(x), zp.params(W, b))
    np.testing.assert_allclose(grads[W], np.outer(np.ones(3), x))
    np.testing.assert_allclose(grads[b], np.ones(3))
    check(lambda: y(x), zp.params(W, b))


# -- globals at depth, across modules -------------------------------------------------
A = RNG.normal(size=(4, 4))
c = RNG.normal(size=4)


def level3(v):
    return np.sin(A @ v) + c


def level2(v):
    return level3(v) * 2.0


def level1(v):
    return np.sum(level2(v) ** 2)


def test_globals_read_by_nested_calls():
    v = RNG.normal(size=4)
    check(lambda: level1(v), zp.params(A, c))


def test_globals_of_another_module():
    v = RNG.normal(size=4)
    check(lambda: other_module.deep(v) + np.sum(A @ v), zp.params(other_module.V, A))


def test_module_attribute_read():
    check(lambda: np.sum(other_module.V ** 3), zp.params(other_module.V))


def test_same_array_read_several_times_adds_up():
    def loss():
        return np.sum(c * c) + np.sum(A @ c) + np.sum(c)

    grads = check(loss, zp.params(c))
    np.testing.assert_allclose(grads[c], 2 * c + A.sum(axis=0) + 1)


def test_parameter_also_passed_explicitly():
    def inner(M, v):
        return np.sum(np.tanh(M @ v) * (A @ v))  # M is A, read again as a global

    v = RNG.normal(size=4)
    check(lambda: inner(A, v), zp.params(A))


def test_explicit_argument_of_the_thunk_holding_a_parameter():
    def loss(M):
        return np.sum(M @ c)

    grads = zp.gradient(loss, A, zp.params(A, c))
    np.testing.assert_allclose(grads[A], np.outer(np.ones(4), c))
    np.testing.assert_allclose(grads[c], A.sum(axis=0))


def test_unused_parameter_is_none():
    grads = check(lambda: np.sum(A), zp.params(A, c), expect_unused=(c,))
    assert grads[c] is None


# -- closure cells ------------------------------------------------------------------------
def test_closure_cells_of_the_thunk():
    P = RNG.normal(size=(2, 3))
    q = RNG.normal(size=3)
    check(lambda: np.sum(np.exp(P @ q)), zp.params(P, q))


def make_scaled(weights):
    def scaled(v):
        return np.sum(weights * v ** 2)

    return scaled


SCALED = make_scaled(np.array([1.0, 2.0, 3.0]))


def test_closure_cell_of_a_global_function():
    weights = SCALED.__closure__[0].cell_contents
    v = np.array([0.5, -1.0, 2.0])
    grads = check(lambda: SCALED(v), zp.params(weights))
    np.testing.assert_allclose(grads[weights], v ** 2)


def test_function_passed_as_a_value():
    def apply(fn, v):
        return fn(v)

    def model(v):
        return np.sum(np.tanh(A @ v))

    v = RNG.normal(size=4)
    check(lambda: apply(model, v), zp.params(A))


# -- attributes, containers, methods -----------------------------------------------------
class Dense:
    def __init__(self, n_in, n_out, seed):
        rng = np.random.default_rng(seed)
        self.W = rng.normal(size=(n_out, n_in)) / np.sqrt(n_in)
        self.b = rng.normal(size=n_out) * 0.1

    def __call__(self, v):
        return np.tanh(self.W @ v + self.b)


class Chain:
    def __init__(self, *layers):
        self.layers = list(layers)

    def __call__(self, v):
        for layer in self.layers:
            v = layer(v)
        return v


model = Chain(Dense(4, 5, 1), Dense(5, 3, 2))
data = RNG.normal(size=4)


def mse_loss(v):
    return np.sum((model(v) - 0.5) ** 2)


def test_model_attributes_through_methods():
    ps = zp.params(model)
    assert len(ps) == 4
    grads = check(lambda: mse_loss(data), ps)
    assert set(grads.by_name()) == {"model.layers[0].W", "model.layers[0].b",
                                    "model.layers[1].W", "model.layers[1].b"}


def test_self_layers_indexed():
    def loss():
        return np.sum(model.layers[0](data)) + np.sum(model.layers[1].W)

    check(loss, zp.params(model))


def test_comprehension_over_layers():
    def loss():
        return sum(np.sum(layer.W ** 2) for layer in model.layers)

    check(loss, zp.params(model))


LIST_OF_ARRAYS = [RNG.normal(size=3), RNG.normal(size=3)]
TUPLE_OF_ARRAYS = (RNG.normal(size=2), RNG.normal(size=2))
DICT_OF_ARRAYS = {"w": RNG.normal(size=3), "u": RNG.normal(size=3)}


def test_items_of_a_global_list():
    check(lambda: np.sum(LIST_OF_ARRAYS[0] * LIST_OF_ARRAYS[1] ** 2), zp.params(LIST_OF_ARRAYS))


def test_items_of_a_global_tuple():
    check(lambda: np.prod(TUPLE_OF_ARRAYS[0]) + np.sum(TUPLE_OF_ARRAYS[1]), zp.params(TUPLE_OF_ARRAYS))


def test_items_of_a_global_dict():
    def loss():
        return np.sum(np.sin(DICT_OF_ARRAYS["w"]) * DICT_OF_ARRAYS["u"])

    check(loss, zp.params(DICT_OF_ARRAYS))


def test_loop_over_a_global_list():
    def loss():
        total = 0.0
        for arr in LIST_OF_ARRAYS:
            total = total + np.sum(arr ** 3)
        return total

    check(loss, zp.params(LIST_OF_ARRAYS))


class WithProperty:
    def __init__(self):
        self._w = RNG.normal(size=3)

    @property
    def w(self):
        return self._w * 2.0


HOLDER = WithProperty()


def test_property_reading_a_parameter():
    check(lambda: np.sum(HOLDER.w ** 2), zp.params(HOLDER))


class Helper:
    """Holds no arrays itself: its method reads a global parameter."""

    def apply(self, v):
        return np.sum(np.cos(A @ v))


HELPER = Helper()


def test_method_of_an_object_without_arrays_reading_a_global():
    v = RNG.normal(size=4)
    check(lambda: HELPER.apply(v), zp.params(A))


@dataclasses.dataclass
class Linear:
    weight: np.ndarray
    bias: np.ndarray

    def forward(self, v):
        return self.weight @ v + self.bias


LINEAR = Linear(RNG.normal(size=(2, 4)), RNG.normal(size=2))


def test_dataclass_model_and_bound_method_thunk():
    def loss():
        return np.sum(LINEAR.forward(data) ** 2)

    check(loss, zp.params(LINEAR))


class Regressor:
    def __init__(self):
        self.w = RNG.normal(size=4)

    def loss(self):
        return np.sum((self.w * data - 1.0) ** 2)


def test_bound_method_as_thunk():
    reg = Regressor()
    check(reg.loss, zp.params(reg))


# -- control flow ---------------------------------------------------------------------
Wh = RNG.normal(size=(3, 3)) * 0.5
Wx = RNG.normal(size=(3, 2)) * 0.5
SEQ = [RNG.normal(size=2) for _ in range(4)]


def rnn_loss():
    h = np.zeros(3)
    for xt in SEQ:
        h = np.tanh(Wh @ h + Wx @ xt)
    return np.sum(h ** 2)


def test_recurrent_loop_reading_globals():
    check(rnn_loss, zp.params(Wh, Wx))


def test_while_loop_and_branches_on_globals():
    def loss():
        v = c.copy()
        k = 0
        while k < 3:
            if np.sum(v) > 0:
                v = A @ v * 0.5
            else:
                v = np.sin(v) + c
            k += 1
        return np.sum(v ** 2)

    check(loss, zp.params(A, c))


def power_of(v, n):
    if n == 0:
        return np.sum(v)
    return power_of(np.tanh(A @ v), n - 1)


def test_recursion_reading_a_global():
    v = RNG.normal(size=4)
    check(lambda: power_of(v, 3), zp.params(A))


def test_custom_adjoint_on_a_parameter():
    def cube(v):
        return v ** 3

    @zp.adjoint(cube)
    def _cube_rule(v):
        return cube(v), lambda g: (3 * v ** 2 * g,)

    check(lambda: np.sum(cube(c)), zp.params(c))


# -- Params ------------------------------------------------------------------------------
def test_params_rejects_python_numbers():
    with pytest.raises(ParamsError, match="NumPy array"):
        zp.params(3.0)
    with pytest.raises(zp.ZygoteError):
        zp.params(np.arange(3))  # integers carry no gradient


def test_zero_dimensional_array_parameter():
    s = np.array(1.5)
    grads = check(lambda: float(s) ** 2 + np.sum(s * c), zp.params(s))
    assert grads[s].shape == ()


def test_params_set_semantics():
    p1, p2 = np.ones(2), np.ones(2)
    ps = zp.params(p1)
    assert p1 in ps and p2 not in ps and p1.copy() not in ps
    ps.add(p2)
    ps.add(p1)  # already there
    assert len(ps) == 2 and list(ps)[0] is p1 and list(ps)[1] is p2
    assert ps.name_of(p1) == "p1"


def test_params_walks_objects_once_with_cycles():
    class Node:
        pass

    a, b2 = Node(), Node()
    a.w, a.other, b2.other = np.ones(2), b2, a
    b2.w = a.w  # the same array twice
    b2.items = [np.zeros(3), {"k": np.full(2, 3.0)}, (np.ones(1),)]
    ps = zp.params(a)
    assert len(ps) == 4
    assert [ps.name_of(p) for p in ps] == ["a.w", "a.other.items[0]", "a.other.items[1]['k']",
                                           "a.other.items[2][0]"]


# -- Grads -------------------------------------------------------------------------------
def test_grads_mapping_and_arithmetic():
    ps = zp.params(A, c)
    g1 = zp.gradient(lambda: np.sum(A @ c), ps)
    g2 = zp.gradient(lambda: np.sum(c ** 2), ps)
    with pytest.raises(KeyError, match="identity"):
        g1[A.copy()]
    assert list(g1.keys())[0] is A and len(g1) == 2
    assert [k for k in g1][1] is c
    assert all(v is not None for v in g1.values())
    total = g1 + g2
    np.testing.assert_allclose(total[c], A.sum(axis=0) + 2 * c)
    np.testing.assert_allclose(total[A], g1[A])
    scaled = g2 * 2.0
    np.testing.assert_allclose(scaled[c], 4 * c)
    assert scaled[A] is None
    copied = g1.copy()
    assert copied[A] is not g1[A]
    np.testing.assert_allclose(copied[A], g1[A])
    assert dict((id(k), v is None) for k, v in g2.items()) == {id(A): True, id(c): False}


def test_pullback_and_withgradient():
    ps = zp.params(A)
    value, grads = zp.withgradient(lambda: np.sum(A ** 2), ps)
    assert value == pytest.approx(np.sum(A ** 2))
    np.testing.assert_allclose(grads[A], 2 * A)

    out, back = zp.pullback(lambda: A @ c, ps)
    np.testing.assert_allclose(out, A @ c)
    first = back(np.ones(4))
    kept = first[A].copy()
    second = back(np.arange(4.0))
    np.testing.assert_allclose(first[A], kept)  # an earlier Grads never changes
    np.testing.assert_allclose(second[A], np.outer(np.arange(4.0), c))


def test_global_rebinding_is_seen():
    global REBOUND
    REBOUND = 3  # an int: nothing to differentiate yet

    def loss():
        return np.sum(REBOUND * c)

    assert zp.gradient(loss, zp.params(c))[c] is not None
    REBOUND = np.array([1.0, 2.0, 3.0, 4.0])
    grads = check(loss, zp.params(REBOUND, c))
    np.testing.assert_allclose(grads[REBOUND], c)


REBOUND = None


def test_explicit_gradients_pay_nothing():
    def loss(v):
        return np.sum(A @ v)

    assert "deposit" not in zp.grad_source(loss)
    zp.gradient(lambda: loss(c), zp.params(A))
    assert "deposit" not in zp.grad_source(loss)


def test_params_must_be_last():
    with pytest.raises(zp.ZygoteError, match="last"):
        zp.gradient(lambda v: np.sum(v), zp.params(A), c)


# -- structural gradients ------------------------------------------------------------
def structural_loss(m, v):
    return np.sum((m(v) - 0.5) ** 2)


def test_structural_gradient_of_a_model():
    gm, gv = zp.gradient(structural_loss, model, data)
    assert isinstance(gm, dict) and isinstance(gm["layers"], list)
    assert set(gm["layers"][0]) == {"W", "b"}
    for layer, g_layer in zip(model.layers, gm["layers"]):
        for name in ("W", "b"):
            numeric = numeric_param_grad(lambda: structural_loss(model, data), getattr(layer, name))
            np.testing.assert_allclose(g_layer[name], numeric, rtol=1e-5, atol=1e-7)
    implicit = zp.gradient(lambda: structural_loss(model, data), zp.params(model))
    np.testing.assert_allclose(implicit[model.layers[1].W], gm["layers"][1]["W"])


def test_structural_none_for_unused_attribute():
    class Two:
        def __init__(self):
            self.used = np.ones(3)
            self.unused = np.ones(3)
            self.label = "x"

    m = Two()
    gm = zp.gradient(lambda mm: np.sum(mm.used * 2.0), m)[0]
    assert gm["unused"] is None and gm["label"] is None
    np.testing.assert_allclose(gm["used"], 2.0)


def test_leaf_gradients_pairs_arrays_with_their_entries():
    gm, _ = zp.gradient(structural_loss, model, data)
    leaves = zp.leaf_gradients(model, gm)
    assert [path for path, _, _ in leaves] == ["layers[0].W", "layers[0].b", "layers[1].W", "layers[1].b"]
    for path, array, grad in leaves:
        assert grad.shape == array.shape
    assert leaves[2][1] is model.layers[1].W and leaves[2][2] is gm["layers"][1]["W"]


def test_leaf_gradients_step_updates_in_place():
    m = Chain(Dense(4, 2, 7))
    before = structural_loss(m, data)
    gm, _ = zp.gradient(structural_loss, m, data)
    for _, array, grad in zp.leaf_gradients(m, gm):
        array -= 0.1 * grad
    assert structural_loss(m, data) < before


def test_implicit_variant_types():
    # the thunk is differentiated through a SimpleNamespace of arrays as well
    ns = types.SimpleNamespace(w=RNG.normal(size=3), k=2)
    check(lambda: np.sum(ns.w ** ns.k), zp.params(ns))


def test_the_code_in_docs_params_runs(tmp_path):
    """docs/params.md's examples, run in order, give the numbers the page states."""
    import pathlib
    import re

    text = (pathlib.Path(__file__).parent.parent / "docs" / "params.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 3
    namespace: dict = {"__name__": "docs_params"}
    source = "\n".join(blocks)
    path = tmp_path / "docs_params.py"
    path.write_text(source)  # a file, so that zygote_py can read the functions' source
    exec(compile(source, str(path), "exec"), namespace)
    grads, W, b, x = namespace["grads"], namespace["W"], namespace["b"], namespace["x"]
    np.testing.assert_allclose(grads[W], np.outer(np.ones(3), x))
    np.testing.assert_allclose(grads[b], np.ones(3))
    assert namespace["gm"]["layers"][0]["W"].shape == (3, 4)


def relu(v):
    return np.maximum(v, 0.0)


class Composite:
    """A layer holding a function and a sub-layer in attributes, called as self.f(x)."""

    def __init__(self):
        self.W = RNG.normal(size=(4, 4))
        self.activation = relu
        self.inner = Dense(4, 3, 5)

    def __call__(self, v):
        return self.inner(self.activation(self.W @ v))


def test_callables_held_in_attributes_explicit_and_implicit():
    comp = Composite()
    gm, _ = zp.gradient(lambda m, v: np.sum(m(v) ** 2), comp, data)
    assert gm["activation"] is None
    for array, got in ((comp.W, gm["W"]), (comp.inner.W, gm["inner"]["W"]), (comp.inner.b, gm["inner"]["b"])):
        numeric = numeric_param_grad(lambda: np.sum(comp(data) ** 2), array)
        np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-7)
    check(lambda: np.sum(comp(data) ** 2), zp.params(comp))


def test_helper_closure_defined_next_to_the_thunk():
    M = RNG.normal(size=(2, 3))
    v = RNG.normal(size=3)

    def helper(u):
        return M @ u

    grads = check(lambda: np.sum(helper(v) ** 2), zp.params(M))
    np.testing.assert_allclose(grads[M], 2 * np.outer(M @ v, v))


class Slotted:
    __slots__ = ("w", "scale")

    def __init__(self):
        self.w = RNG.normal(size=3)
        self.scale = 2.0


SLOTTED = Slotted()


def test_objects_with_slots():
    ps = zp.params(SLOTTED)
    assert len(ps) == 1 and ps.name_of(SLOTTED.w) == "SLOTTED.w"
    check(lambda: np.sum(SLOTTED.w ** 2) * SLOTTED.scale, ps)


def test_adding_grads_of_different_parameter_sets_takes_the_union():
    g1 = zp.gradient(lambda: np.sum(A @ c), zp.params(A))
    g2 = zp.gradient(lambda: np.sum(c ** 2) + np.sum(A), zp.params(c, A))
    total = g1 + g2
    assert len(total) == 2 and A in total and c in total
    np.testing.assert_allclose(total[A], np.outer(np.ones(4), c) + 1.0)
    np.testing.assert_allclose(total[c], 2 * c)
    assert total[c] is not g2[c]  # its own array: changing it leaves g2 alone
    np.testing.assert_allclose((total / 2.0)[c], c)


def test_data_attributes_are_not_parameters_but_add_to_a_tied_one():
    """`_zp_data` names attributes that hold data (nn.Recur's state): zp.params and
    nn.leaf_gradients skip them, except that a gradient found through one that is also a
    parameter (the state right after reset() is the init array) is added to it."""
    class Stateful:
        _zp_data = ("state",)

        def __init__(self):
            self.w = np.array([1.0, 2.0])
            self.init = np.array([0.5, -0.5])
            self.state = np.array([3.0, 4.0])

    s = Stateful()
    assert len(zp.params(s)) == 2
    s.state = s.init
    pairs = zp.leaf_gradients(s, {"w": np.ones(2), "init": np.full(2, 2.0),
                                  "state": np.full(2, 5.0)})
    assert [p for p, _, _ in pairs] == ["w", "init"]
    np.testing.assert_array_equal(pairs[1][2], np.full(2, 7.0))
    s.state = np.zeros(2)  # not tied: its gradient is data's, left out
    pairs = zp.leaf_gradients(s, {"init": np.full(2, 2.0), "state": np.full(2, 5.0)})
    np.testing.assert_array_equal(pairs[1][2], np.full(2, 2.0))
