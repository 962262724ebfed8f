"""Gradient calls on several threads at once, and Params calls nested in one another.

The state of a gradient call (the compiler dispatch asks, the Params
collector that deposits go to) lives in a contextvar (zygote_py/context.py),
so each thread, and each nested call, has its own.  Every result here must
equal, exactly, the same call made alone on one thread; the single-threaded
results are themselves checked against central finite differences.  The
interpreter is made to switch threads every microsecond while the threads
run, so that an interleaving which mixes up two calls' state shows up.
"""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

import zygote_py as zp
from zygote_py import context
from zygote_py.compiler import Compiler

N_THREADS = 8


def numeric_param_grad(thunk, array, h=1e-6):
    """Central differences of thunk() in each element of array, perturbed in place."""
    out = np.zeros(array.shape)
    flat = array.reshape(-1)  # a view: the perturbation is seen by every read of array
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + h
        up = float(thunk())
        flat[i] = old - h
        down = float(thunk())
        flat[i] = old
        out.reshape(-1)[i] = (up - down) / (2 * h)
    return out


def run_threads(work, n=N_THREADS) -> list:
    """Run work(i) on n threads started together; the exceptions they raised, if any."""
    errors: list = []
    barrier = threading.Barrier(n)

    def target(i):
        try:
            barrier.wait()
            work(i)
        except BaseException as err:  # noqa: BLE001  (reported to the test below)
            errors.append((i, err))

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=target, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    return errors


# -- a small model: closures over each thread's own W, b, x -----------------------------
def layer(W, b, x):
    return np.tanh(W @ x + b)


def apply(f, v):
    return f(v)  # f is a value: its call is resolved by run-time dispatch


def make_model(seed):
    rng = np.random.default_rng(seed)
    W, b, x = rng.normal(size=(3, 4)), rng.normal(size=3), rng.normal(size=4)

    def loss(x):
        h = apply(lambda v: layer(W, b, v), x)
        return np.sum(h * h) + 0.1 * np.sum(W * W)

    return W, b, x, loss


def params_gradient(model):
    W, b, x, loss = model
    g = zp.gradient(lambda: loss(x), zp.params(W, b))
    return g[W], g[b]


MODELS = [make_model(seed) for seed in range(N_THREADS)]


@pytest.fixture(scope="module")
def expected():
    """Each model's Params gradient, computed alone and checked against finite differences."""
    out = []
    for model in MODELS:
        W, b, x, loss = model
        gW, gb = params_gradient(model)

        def thunk(loss=loss, x=x):
            return loss(x)

        np.testing.assert_allclose(gW, numeric_param_grad(thunk, W), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(gb, numeric_param_grad(thunk, b), rtol=1e-6, atol=1e-8)
        out.append((gW.copy(), gb.copy()))
    return out


def test_params_gradients_on_eight_threads_equal_the_single_threaded_ones(expected):
    mismatches: list = []

    def work(i):
        for _ in range(30):
            gW, gb = params_gradient(MODELS[i])
            if not (np.array_equal(gW, expected[i][0]) and np.array_equal(gb, expected[i][1])):
                mismatches.append(i)

    assert run_threads(work) == []
    assert mismatches == []


def test_threads_building_the_same_gradients_at_once_get_the_single_threaded_ones(expected):
    # a compiler with an empty cache, shared by all threads: they build concurrently
    fresh = Compiler()
    mismatches: list = []

    def work(i):
        with context.using(compiler=fresh):
            for _ in range(10):
                gW, gb = params_gradient(MODELS[i])
                if not (np.array_equal(gW, expected[i][0]) and np.array_equal(gb, expected[i][1])):
                    mismatches.append(i)

    assert run_threads(work) == []
    assert mismatches == []
    assert fresh.cache, "the threads compiled with the fresh compiler"


# -- concurrent builds: recursion and the guards of callees ------------------------------
ACTIVATION = np.sin


def activate(x):
    return ACTIVATION(x)


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def recursive_loss(x):
    return np.sum(power(activate(x), 3))


def test_threads_building_a_recursive_gradient_at_once_record_their_callees_guards(monkeypatch):
    fresh = Compiler()
    xs = [np.linspace(-1.0, 1.0, 4) * (k + 1) / N_THREADS for k in range(N_THREADS)]
    results: dict = {}

    def work(i):
        with context.using(compiler=fresh):
            results[i] = zp.gradient(recursive_loss, xs[i])[0]

    assert run_threads(work) == []
    for i, x in enumerate(xs):
        np.testing.assert_allclose(results[i], 3 * np.sin(x) ** 2 * np.cos(x), rtol=1e-12)
    # the entry of recursive_loss holds the guard activate's build recorded on ACTIVATION:
    # rebinding it takes effect, though recursive_loss itself never reads it
    monkeypatch.setattr(sys.modules[__name__], "ACTIVATION", np.cos)
    with context.using(compiler=fresh):
        got = zp.gradient(recursive_loss, xs[1])[0]
    np.testing.assert_allclose(got, -3 * np.cos(xs[1]) ** 2 * np.sin(xs[1]), rtol=1e-12)


# -- a Params call on one thread, explicit gradients on the others ------------------------
G_W = np.random.default_rng(7).normal(size=(3, 3))


def scale_by_global(v):
    return G_W @ v


def explicit_loss(x, f):
    return np.sum(np.sin(apply(f, x)) ** 2)


def test_a_params_call_and_explicit_gradients_on_other_threads_do_not_mix():
    x0 = np.array([0.3, -0.2, 0.5])
    ps = zp.params(G_W)

    def implicit_thunk():
        return explicit_loss(x0, scale_by_global)

    want_params = zp.gradient(implicit_thunk, ps)[G_W].copy()
    np.testing.assert_allclose(want_params, numeric_param_grad(implicit_thunk, G_W), rtol=1e-6, atol=1e-8)
    xs = [x0 * (k + 1) for k in range(N_THREADS)]
    want_explicit = [zp.gradient(explicit_loss, x, scale_by_global)[0] for x in xs]
    for x, want in zip(xs, want_explicit):
        fd = [(explicit_loss(x + h, scale_by_global) - explicit_loss(x - h, scale_by_global)) / 2e-6
              for h in np.eye(3) * 1e-6]
        np.testing.assert_allclose(want, fd, rtol=1e-6, atol=1e-8)
    mismatches: list = []
    params_done = threading.Event()

    def work(i):
        if i == 0:  # the Params calls, while the other threads take explicit gradients
            try:
                for _ in range(150):
                    if not np.array_equal(zp.gradient(implicit_thunk, ps)[G_W], want_params):
                        mismatches.append(i)
            finally:
                params_done.set()
            return
        while not params_done.is_set():
            got = zp.gradient(explicit_loss, xs[i], scale_by_global)
            if not (np.array_equal(got[0], want_explicit[i]) and got[1] is None):
                mismatches.append(i)

    assert run_threads(work) == []
    assert mismatches == []


# -- different Params sets over the same globals, one per thread --------------------------
SHARED_W = np.array([[0.2, -0.4, 0.6], [1.0, 0.5, -0.3]])
SHARED_B = np.array([0.1, -0.2])
SHARED_X = np.array([0.7, -1.1, 0.4])


def shared_loss():
    return np.sum(np.tanh(SHARED_W @ SHARED_X + SHARED_B) ** 2)


def test_threads_with_different_params_over_the_same_globals_get_their_own_grads():
    # the implicit variant built depends on which globals hold parameters of the calling
    # thread's Params (a guard); each thread must get the variant for its own set
    sets = [(SHARED_W,), (SHARED_B,), (SHARED_W, SHARED_B)]
    want = []
    for arrays in sets:
        g = zp.gradient(shared_loss, zp.params(*arrays))
        for a in arrays:
            np.testing.assert_allclose(g[a], numeric_param_grad(shared_loss, a), rtol=1e-6, atol=1e-8)
        want.append([g[a].copy() for a in arrays])
    mismatches: list = []

    def work(i):
        arrays = sets[i % len(sets)]
        ps = zp.params(*arrays)
        for _ in range(40):
            g = zp.gradient(shared_loss, ps)
            if not all(np.array_equal(g[a], w) for a, w in zip(arrays, want[i % len(sets)])):
                mismatches.append(i)

    assert run_threads(work, n=6) == []
    assert mismatches == []


# -- Params calls nested in a Params call -------------------------------------------------
OUTER_W = np.array([[0.5, -1.0], [0.25, 2.0]])
INNER_V = np.array([1.5, -0.5])
inner_results: list = []


def inner_loss():
    return np.sum(np.cos(INNER_V * OUTER_W[0]))


def squash(v):
    return np.tanh(v)


@zp.adjoint(squash)
def _squash_rule(v):
    # a custom rule that runs Params gradients of its own, in its forward and its backward:
    # they must fill their own Grads and leave the outer call's alone
    inner_results.append(zp.gradient(inner_loss, zp.params(INNER_V))[INNER_V])
    y = np.tanh(v)

    def back(g):
        inner_results.append(zp.gradient(inner_loss, zp.params(INNER_V, OUTER_W))[OUTER_W])
        return (g * (1 - y * y),)

    return y, back


def outer_loss():
    return np.sum(squash(OUTER_W @ INNER_V) ** 2) + np.sum(OUTER_W * OUTER_W)


def test_params_calls_inside_a_params_call_fill_their_own_grads():
    inner_results.clear()
    g = zp.gradient(outer_loss, zp.params(OUTER_W))
    np.testing.assert_allclose(g[OUTER_W], numeric_param_grad(outer_loss, OUTER_W), rtol=1e-6, atol=1e-8)
    assert len(inner_results) == 2
    np.testing.assert_allclose(inner_results[0], numeric_param_grad(inner_loss, INNER_V), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(inner_results[1], numeric_param_grad(inner_loss, OUTER_W), rtol=1e-6, atol=1e-8)
    assert np.all(inner_results[1][1] == 0)  # the inner loss reads only the first row


def explicit_inside(v):
    # an explicit gradient taken inside a custom rule, through a run-time dispatched call
    # that reads OUTER_W: with no Params of its own, it must not deposit into the outer Grads
    inner_results.append(zp.gradient(lambda u: np.sum(apply(scale_outer, u) ** 2), v)[0])
    return np.sin(v)


def scale_outer(u):
    return OUTER_W @ u


@zp.adjoint(explicit_inside)
def _explicit_inside_rule(v):
    y = explicit_inside(v)
    return y, lambda g: (g * np.cos(v),)


def outer_with_explicit_inside():
    return np.sum(explicit_inside(OUTER_W @ INNER_V) * 3.0)


def test_an_explicit_gradient_inside_a_params_call_deposits_nothing():
    inner_results.clear()
    g = zp.gradient(outer_with_explicit_inside, zp.params(OUTER_W))
    np.testing.assert_allclose(g[OUTER_W], numeric_param_grad(outer_with_explicit_inside, OUTER_W),
                               rtol=1e-6, atol=1e-8)
    u = OUTER_W @ INNER_V
    np.testing.assert_allclose(inner_results[0], 2 * OUTER_W.T @ (OUTER_W @ u), rtol=1e-12)


def test_the_context_is_restored_after_each_call():
    before = context.current()
    zp.gradient(outer_loss, zp.params(OUTER_W))
    zp.gradient(lambda x: np.sum(x * x), np.ones(2))
    assert context.current() is before
    with pytest.raises(zp.NonScalarOutput):
        zp.gradient(lambda: OUTER_W * 2.0, zp.params(OUTER_W))
    assert context.current() is before
