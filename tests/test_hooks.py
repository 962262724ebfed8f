"""zp.hook, zp.retain / zp.retained and zp.checkpointed (zygote_py/hooks.py), against
finite differences and closed forms: in straight code, loops, helper functions, closures,
callable objects, Params calls and pullbacks called more than once."""

from __future__ import annotations

import numpy as np
import pytest

import zygote_py as zp
from tests.corpus.finite_diff import numerical_gradient

RNG = np.random.default_rng(7)


def assert_matches_fd(f, *args):
    grads = zp.gradient(f, *args)
    for got, want in zip(grads, numerical_gradient(f, args)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    return grads


# -- hook ---------------------------------------------------------------------------------

def test_hook_scales_the_cotangent_of_an_intermediate():
    def f(x):
        y = zp.hook(lambda g: 3.0 * g, np.sin(x))
        return np.sum(y * y)

    x = RNG.normal(size=4)
    # d/dx sum(sin(x)^2) = 2 sin cos; the hook triples the cotangent reaching sin(x)
    np.testing.assert_allclose(zp.gradient(f, x)[0], 3.0 * 2 * np.sin(x) * np.cos(x))


def test_hook_identity_leaves_the_gradient_as_finite_differences_give():
    def f(x, w):
        h = zp.hook(lambda g: g, np.tanh(w * x))
        return np.sum(h ** 2 * x)

    assert_matches_fd(f, RNG.normal(size=3), RNG.normal(size=3))


def test_hook_sees_the_cotangent_and_leaves_x_unchanged_in_the_forward():
    seen = []

    def record(g):
        seen.append(np.array(g))
        return g

    def f(x):
        y = zp.hook(record, x * 2.0)
        return np.sum(y ** 2)

    x = np.array([1.0, -2.0])
    y, grads = zp.withgradient(f, x)
    assert y == pytest.approx(4 * 5)
    np.testing.assert_allclose(seen[0], 2 * (2 * x))  # d loss / d y = 2y
    np.testing.assert_allclose(grads[0], 8 * x)


def helper(h, scale):
    return zp.hook(lambda g: g * scale, np.tanh(h))


def test_hook_in_a_loop_and_a_helper_function_runs_once_per_iteration():
    calls = []

    def f(x):
        h = x
        for _ in range(3):
            h = zp.hook(lambda g: (calls.append(1), g)[1], helper(h, 0.5))
        return np.sum(h)

    x = RNG.normal(size=3)

    def plain(x):  # the same derivative written out: each step's cotangent halved
        h = x
        for _ in range(3):
            h = np.tanh(h)
        return np.sum(h)

    got = zp.gradient(f, x)[0]
    np.testing.assert_allclose(got, zp.gradient(plain, x)[0] * 0.5 ** 3)
    assert len(calls) == 3


def test_hook_with_implicit_parameters():
    W = RNG.normal(size=(3, 3))
    x = RNG.normal(size=3)

    def loss():
        return np.sum(zp.hook(lambda g: -g, W @ x) ** 2)

    grads = zp.gradient(loss, zp.params(W))
    np.testing.assert_allclose(grads[W], -2 * np.outer(W @ x, x))


def test_hook_can_clip_a_gradient():
    def f(x):
        return np.sum(zp.hook(lambda g: np.clip(g, -1.0, 1.0), x) * np.array([5.0, 0.5, -3.0]))

    np.testing.assert_allclose(zp.gradient(f, np.zeros(3))[0], [1.0, 0.5, -1.0])


def test_hook_outside_a_gradient_returns_its_value():
    x = np.ones(2)
    assert zp.hook(lambda g: 1 / 0, x) is x


def test_hook_returning_none_is_refused():
    def f(x):
        return np.sum(zp.hook(lambda g: None, x * x))

    with pytest.raises(zp.ZygoteError, match="returned None instead of a cotangent"):
        zp.gradient(f, np.ones(2))


def test_hook_returning_a_wrong_shape_is_refused():
    def f(x):
        return np.sum(zp.hook(lambda g: np.sum(g, keepdims=True)[:, None], x * x))

    with pytest.raises(zp.ZygoteError, match="cotangent of shape"):
        zp.gradient(f, np.ones(3))


# -- retain / retained: PyTorch's retain_grad ---------------------------------------------

def pytorch_example(input, w1, w2, w3):
    l1 = zp.retain("l1", input * w1)
    l2 = l1 + w2
    l3 = l1 * w3
    l4 = l2 * l3
    return l4.mean()


def test_the_pytorch_retain_grad_example():
    with zp.retained() as kept:
        _, dw1, dw2, dw3 = zp.gradient(pytorch_example, np.ones((2, 2)), 2.0, 3.0, 4.0)
    assert (dw1, dw2, dw3) == (28.0, 8.0, 10.0)
    np.testing.assert_array_equal(kept["l1"], np.full((2, 2), 7.0))
    # the closed form: dl4/dl1 = (l3 + l2 * w3) / 4 with l1 = 2, l2 = 5, l3 = 8
    assert (8 + 5 * 4) / 4 == 7.0


def test_retain_in_a_loop_lists_every_value_in_order():
    def f(x):
        h = x
        for k in range(3):
            h = zp.retain("h", np.sin(h) * (k + 1))
        return np.sum(h)

    x = RNG.normal(size=2)
    with zp.retained() as kept:
        zp.gradient(f, x)
    bars = kept.all("h")
    assert len(bars) == 3
    # closed form: the last is 1; each earlier one is the next times its step's derivative
    hs = [x]
    for k in range(3):
        hs.append(np.sin(hs[-1]) * (k + 1))
    np.testing.assert_allclose(bars[2], np.ones(2))
    np.testing.assert_allclose(bars[1], bars[2] * np.cos(hs[2]) * 3)
    np.testing.assert_allclose(bars[0], bars[1] * np.cos(hs[1]) * 2)
    with pytest.raises(zp.ZygoteError, match="3 values were retained"):
        kept["h"]


def test_a_retained_value_no_cotangent_reaches_is_zero():
    def f(x, c):
        zp.retain("unused", x * 2.0)
        zp.retain("constant", c * 2.0)
        return np.sum(x)

    with zp.retained() as kept:
        zp.gradient(f, np.ones(3), np.ones(2), wrt=0)
    np.testing.assert_array_equal(kept["unused"], np.zeros(3))
    np.testing.assert_array_equal(kept["constant"], np.zeros(2))
    with pytest.raises(KeyError, match="nothing was retained as 'other'"):
        kept["other"]


def test_retain_outside_a_retained_block_changes_nothing():
    assert zp.gradient(pytorch_example, np.ones((2, 2)), 2.0, 3.0, 4.0)[1:] == (28.0, 8.0, 10.0)


def test_retain_fills_the_collector_of_its_forward_pass_when_back_runs_later():
    with zp.retained() as kept:
        _, back = zp.pullback(pytorch_example, np.ones((2, 2)), 2.0, 3.0, 4.0)
    back(2.0)  # after the block: the retain calls of the forward captured kept
    np.testing.assert_array_equal(kept["l1"], np.full((2, 2), 14.0))
    back(1.0)  # each backward pass overwrites
    np.testing.assert_array_equal(kept["l1"], np.full((2, 2), 7.0))


def test_retain_with_implicit_parameters_and_a_structure():
    W = RNG.normal(size=(2, 3))
    x = RNG.normal(size=3)

    def loss():
        pair = zp.retain("pair", (W @ x, 2.0 * x))
        return np.sum(pair[0] ** 2) + np.sum(pair[1])

    with zp.retained() as kept:
        zp.gradient(loss, zp.params(W))
    first, second = kept["pair"]
    np.testing.assert_allclose(first, 2 * W @ x)
    np.testing.assert_allclose(second, np.ones(3))


def test_retain_takes_the_name_first():
    with pytest.raises(zp.ZygoteError, match="takes the name first"):
        zp.retain(np.ones(2), "x")


# -- checkpointed ---------------------------------------------------------------------------

def cell(h, x, W):
    return np.tanh(W @ h + x)


def rnn(W, xs, h, checkpoint):
    for x in xs:
        h = zp.checkpointed(cell, h, x, W) if checkpoint else cell(h, x, W)
    return np.sum(h ** 2)


def test_checkpointed_rnn_matches_the_plain_one_and_finite_differences():
    W = RNG.normal(size=(3, 3)) * 0.5
    xs = RNG.normal(size=(4, 3))
    h = RNG.normal(size=3)
    plain = zp.gradient(rnn, W, xs, h, False, wrt=(0, 1, 2))
    got = assert_matches_fd(lambda W, xs, h: rnn(W, xs, h, True), W, xs, h)
    for a, b in zip(got, plain):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_checkpointed_closure_gets_the_cotangents_of_what_it_captures():
    def f(W, xs, h):
        for x in xs:
            h = zp.checkpointed(lambda s: np.tanh(W @ s + x), h)
        return np.sum(h)

    assert_matches_fd(f, RNG.normal(size=(2, 2)), RNG.normal(size=(3, 2)), RNG.normal(size=2))


def test_checkpointed_with_implicit_parameters():
    W = RNG.normal(size=(3, 3)) * 0.5
    b = RNG.normal(size=3)
    xs = list(RNG.normal(size=(3, 3)))

    def step(h, x):
        return np.tanh(W @ h + x + b)

    def loss(checkpoint):
        h = np.zeros(3)
        for x in xs:
            h = zp.checkpointed(step, h, x) if checkpoint else step(h, x)
        return np.sum(h)

    got = zp.gradient(lambda: loss(True), zp.params(W, b))
    want = zp.gradient(lambda: loss(False), zp.params(W, b))
    np.testing.assert_allclose(got[W], want[W], rtol=1e-12)
    np.testing.assert_allclose(got[b], want[b], rtol=1e-12)


def scaled(a, v):
    return a * v


class Dense:
    def __init__(self, W):
        self.W = W

    def __call__(self, x):
        return np.tanh(self.W @ x)


def test_checkpointed_callable_object_and_nesting():
    model = Dense(RNG.normal(size=(2, 2)))

    def f(model, x):
        y = zp.checkpointed(model, x)
        z = zp.checkpointed(scaled, 2.0, y)
        return np.sum(zp.checkpointed(lambda v: zp.checkpointed(np.sin, v) * v, z))

    x = RNG.normal(size=2)
    grads = zp.gradient(f, model, x)

    def plain(W, x):
        z = 2.0 * np.tanh(W @ x)
        return np.sum(np.sin(z) * z)

    fd = numerical_gradient(plain, (model.W, x))
    np.testing.assert_allclose(grads[0]["W"], fd[0], rtol=1e-6)
    np.testing.assert_allclose(grads[1], fd[1], rtol=1e-6)


RUNS = []  # a global list appended to as a side effect (a closure's list would be refused)


def counted_sin(x):
    RUNS.append(1)
    return np.sin(x)


def test_checkpointed_runs_f_again_in_the_backward_pass():
    RUNS.clear()
    runs, step = RUNS, counted_sin

    def f(x):
        return np.sum(zp.checkpointed(step, x))

    x = RNG.normal(size=2)
    np.testing.assert_allclose(zp.gradient(f, x)[0], np.cos(x))
    assert len(runs) == 2  # once untracked in the forward pass, once differentiated
    assert zp.checkpointed(step, x) is not None and len(runs) == 3  # outside a gradient: f(x)


def test_checkpointed_refuses_a_function_that_computes_something_else_when_run_again():
    def noisy(x):
        return x * np.random.rand()

    def f(x):
        return np.sum(zp.checkpointed(noisy, x))

    with pytest.raises(zp.ZygoteError, match="gave a different result"):
        zp.gradient(f, np.ones(2))


def test_retain_inside_a_checkpointed_function_is_recorded_once():
    def step(x):
        return zp.retain("inner", x * 3.0) ** 2

    def f(x):
        return np.sum(zp.checkpointed(step, x))

    with zp.retained() as kept:
        zp.gradient(f, np.array([1.0, 2.0]))
    np.testing.assert_allclose(kept["inner"], 2 * np.array([3.0, 6.0]))


# -- checkpointed: memory ---------------------------------------------------------------------

N_STATE = 64


def wide_step(h, x, v, u):
    z = np.tanh(np.outer(h, v))  # the step's activations: N x N, against a state of N
    return np.tanh(z @ u + x)


def long_rnn(v, u, xs, h, checkpoint):
    for x in xs:
        h = zp.checkpointed(wide_step, h, x, v, u) if checkpoint else wide_step(h, x, v, u)
    return np.sum(h)


def _peak_bytes(steps: int, checkpoint: bool) -> int:
    """The peak of memory allocated while one gradient of a `steps`-step RNN runs."""
    import tracemalloc

    rng = np.random.default_rng(0)
    v = rng.normal(size=N_STATE) / N_STATE
    u = rng.normal(size=N_STATE) / np.sqrt(N_STATE)
    xs = list(rng.normal(size=(steps, N_STATE)))
    h = rng.normal(size=N_STATE)
    zp.gradient(long_rnn, v, u, xs[:2], h, checkpoint, wrt=(0, 1))  # compiled before measuring
    tracemalloc.start()
    try:
        zp.gradient(long_rnn, v, u, xs, h, checkpoint, wrt=(0, 1))
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_checkpointed_1000_step_rnn_keeps_O1_step_activations():
    activations = N_STATE * N_STATE * 8  # one step's z, 32 KiB
    short, long = _peak_bytes(200, True), _peak_bytes(1000, True)
    per_step = (long - short) / 800
    # what grows with the length is each step's state and the closures that hold it
    # (about 2 KiB on CPython 3.10-3.13): far below one step's activations (32 KiB), which
    # are paid once, by the step being recomputed
    assert per_step < activations / 4, per_step
    assert long < 100 * activations  # 1000 steps' activations would be 1000 of them
    # and the measurement does see activations: without checkpointing each step keeps its own
    plain_short, plain_long = _peak_bytes(100, False), _peak_bytes(300, False)
    assert (plain_long - plain_short) / 200 > activations / 2


def step_with_output(h, x, W):
    h = np.tanh(W @ h + x)
    return h, 2.0 * h


def rnn_with_outputs(W, xs, h, checkpoint):
    total = 0.0
    for x in xs:
        h, y = zp.checkpointed(step_with_output, h, x, W) if checkpoint else step_with_output(h, x, W)
        total = total + np.sum(y ** 2)
    return total


def test_checkpointed_function_returning_a_tuple_through_a_pullback_called_twice():
    W = RNG.normal(size=(2, 2)) * 0.3
    xs = RNG.normal(size=(4, 2))
    h = RNG.normal(size=2)
    want = numerical_gradient(lambda W, xs, h: rnn_with_outputs(W, xs, h, False), (W, xs, h))
    _, back = zp.pullback(rnn_with_outputs, W, xs, h, True)
    for seed in (1.0, 2.0):
        for got, fd in zip(back(seed)[:3], want):
            np.testing.assert_allclose(got, seed * fd, rtol=1e-6, atol=1e-8)


def test_checkpointed_function_without_a_derivative_is_named_in_the_error():
    doubled = np.frompyfunc(lambda v: v * 2, 1, 1)  # a ufunc with no rule

    def f(x):
        return np.sum(zp.checkpointed(doubled, x).astype(float))

    with pytest.raises(zp.NoDerivativeRule, match=r"zp.checkpointed\(<lambda> \(vectorized\), \.\.\.\)"):
        zp.gradient(f, np.ones(2))
