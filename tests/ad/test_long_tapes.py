"""Long loops: tapes that spill into typed blocks (runtime/tapes.py) give the same gradients.

The spill threshold is lowered for these tests (`small_spills`), so a loop of a few dozen
steps spills and refills many times, at every kind of iteration boundary; one test runs
the real threshold.  Every gradient is checked against central finite differences (or
against forward mode, which keeps no tape)."""

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp
from zygote_py.runtime import tapes


@pytest.fixture
def small_spills(monkeypatch):
    monkeypatch.setattr(tapes, "SPILL_AT", 5)


def _check(f, *args):
    grads = zp.gradient(f, *args)
    fd = numerical_gradient(f, args)
    for k, (g, n, a) in enumerate(zip(grads, fd, args)):
        if n is not None:
            assert_gradient_matches(g, n, a, f"arg{k}")
    return grads


def test_the_generated_code_spills_and_refills(small_spills):
    def loop(x, n):
        for _ in range(n):
            x = np.sin(x) * x + 0.5 * np.cos(x) / (1 + x * x)
        return x

    source = zp.grad_source(loop, args=(0.3, 40))
    assert "_zp_spill_tape(" in source and "_zp_refill_tape(" in source
    assert "if _zp_spills and len(_zp_tape) > 5:" in source  # decided once before the loop


@pytest.mark.parametrize("x", [0.3, np.float64(-1.1)])
def test_a_scalar_loop_of_many_steps(small_spills, x):
    def loop(x, w, n):
        s = 0.0
        for i in range(n):
            x = np.tanh(w * x + 0.1 * i) + 0.3 * x
            s = s + x * x
        return s

    _check(loop, x, 0.8, 57)


def test_python_float_arithmetic_keeps_float_type_through_the_blocks(small_spills):
    import math

    def loop(x, n):
        for _ in range(n):
            x = math.sin(x) + 0.5 * x  # Python floats all the way: spilled as array('d')
        return x

    (g, _) = _check(loop, 0.4, 33)
    assert type(g) is float


def test_nested_loops_each_with_its_own_spilling_tape(small_spills):
    def nested(x, w):
        s = 0.0
        for i in range(7):
            t = np.sin(x * (i + 1))
            for k in range(6):
                s = s + t * np.cos(w * k + 0.1 * s)
        return s

    _check(nested, 0.4, 0.7)


def test_a_loop_with_branches(small_spills):
    def branches(x, y):
        s = 0.0
        for i in range(41):
            if i % 3 == 0:
                s = s + np.sin(x * s + y)
            elif i % 3 == 1:
                s = s * 0.9 + x * y
            else:
                s = s - np.exp(-s * s) * y
        return s

    _check(branches, 0.5, 0.3)


def test_break_and_continue(small_spills):
    def jumps(x):
        s = 0.0
        for i in range(100):
            if i % 4 == 1:
                continue
            s = s + np.sin(s + x * i)
            if i > 37:
                break
        return s

    _check(jumps, 0.21)


def test_a_while_loop_of_data_dependent_length(small_spills):
    def grow(x):
        y = x
        k = 0
        while k < 31:
            y = np.tanh(y) * x + 0.1
            k += 1
        return y

    _check(grow, 0.9)


def test_a_fill_loop_writes_one_element_per_step(small_spills):
    def fill(x):
        out = np.zeros(len(x))
        for i in range(len(x)):
            out[i] = np.sin(x[i]) * x[i]
        return (out * out).sum()

    _check(fill, np.random.default_rng(1).normal(size=23))


def test_heat_steps_with_slice_writes(small_spills):
    def heat(u0, c):
        u = u0.copy()
        for _ in range(19):
            u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        return (u * u).sum()

    _check(heat, np.sin(np.linspace(0, 3, 9)), 0.2)


def test_array_values_on_the_tape(small_spills):
    def rnn(h, W):
        s = 0.0
        for _ in range(13):
            h = np.tanh(W @ h)
            s = s + np.sum(h) * 0.5
        return s

    rng = np.random.default_rng(2)
    _check(rnn, rng.normal(size=3), rng.normal(size=(3, 3)) * 0.5)


def _rec(x, k):
    s = x
    for i in range(k):
        s = np.sin(s) * x + 0.1 * i
    if k == 0:
        return s
    return _rec(s, k - 1) * 0.5 + s


def test_recursion_with_loops_at_every_level(small_spills):
    _check(lambda x: _rec(x, 6), 0.35)


def test_a_pullback_runs_its_backward_twice(small_spills):
    def loop(x):
        for _ in range(29):
            x = np.sin(x) * 1.1 + 0.2
        return x

    y, back = zp.pullback(loop, 0.3)
    assert y == loop(0.3)
    first, second = back(1.0), back(1.0)
    assert first == second
    assert_gradient_matches(first[0], numerical_gradient(loop, (0.3,))[0], 0.3, "x")


def test_the_real_threshold_on_a_loop_of_many_thousand_steps():
    def loop(x, n):
        for _ in range(n):
            x = np.sin(x) * 0.9 + 0.5 * np.cos(x) / (1 + x * x)
        return x

    n = 2 * tapes.SPILL_AT // 3  # 4 values a step: several blocks
    (g, _) = zp.gradient(loop, 0.3, n)
    _, tangent = zp.jvp(loop, (0.3, n), (1.0, 0))
    assert g == pytest.approx(tangent, rel=1e-12, abs=1e-300)


def test_the_generated_gradient_of_a_long_loop_differentiates_again(small_spills):
    # spill and refill only change how the tape stores values: differentiating the
    # generated code lowers them to nothing and reads the tape as a plain list
    from zygote_py.compiler import COMPILER

    def loop(x):
        s = 0.0
        for _ in range(23):
            s = s + np.sin(x * s + 0.3) * x
        return s

    f_grad = COMPILER.entry(loop, (True,), "grad").fn
    assert "_zp_spill_tape" in zp.grad_source(loop, args=(0.4,))

    def slope(x):
        return f_grad(x)[1][0]

    (got,) = zp.gradient(slope, 0.4)
    assert_gradient_matches(got, numerical_gradient(slope, (0.4,))[0], 0.4, "x")


def test_an_early_return_inside_the_loop(small_spills):
    def stop_early(x):
        s = 0.0
        for i in range(60):
            if s > 3.0:
                return s * x
            else:
                y = np.sin(x * i) + 1.1  # bound on some paths only: saved as it may be
            s = s + y * x
        return s

    _check(stop_early, 0.37)


def test_a_comprehension_and_list_appends(small_spills):
    def lists(x):
        ys = [np.sin(x * k) * x for k in range(17)]
        acc = []
        for y in ys:
            acc.append(y * y + x)
        return sum(acc)

    _check(lists, 0.6)


def test_a_loop_over_a_list_of_arrays(small_spills):
    def over_arrays(w, xs):
        s = 0.0
        for x in xs:
            s = s + np.sum(np.tanh(w * x)) * s * 0.01 + np.sum(w * x)
        return s

    rng = np.random.default_rng(3)
    xs = [rng.normal(size=3) for _ in range(9)]
    _check(lambda w: over_arrays(w, xs), rng.normal(size=3))


def test_loops_nested_three_deep_with_a_while(small_spills):
    def deep(x):
        s = 0.0
        for i in range(3):
            k = 0
            while k < 4:
                for j in range(3):
                    s = s + np.cos(x * (i + j) + 0.1 * s) * 0.3
                k += 1
        return s

    _check(deep, 0.45)


def test_implicit_params_through_a_long_loop(small_spills):
    W = np.array([[0.5, -0.2], [0.1, 0.4]])
    b = np.array([0.1, -0.3])

    def run(h):
        for _ in range(21):
            h = np.tanh(W @ h + b)
        return np.sum(h * h)

    h0 = np.array([0.3, -0.7])
    grads = zp.gradient(lambda: run(h0), zp.params(W, b))

    def as_w(w):
        W[...] = w
        return run(h0)

    w0 = W.copy()
    try:
        fd = numerical_gradient(as_w, (w0.copy(),))[0]
    finally:
        W[...] = w0
    assert_gradient_matches(grads[W], fd, w0, "W")


def _counting_spills(monkeypatch):
    """Count spills of gradients compiled from now on (the code binds the function it calls)."""
    calls = []
    spill = tapes.spill_tape

    def counted(tape, width=1):
        calls.append(width)
        spill(tape, width)

    monkeypatch.setattr(tapes, "spill_tape", counted)
    return calls


def test_a_loop_of_known_length_that_fits_never_checks_and_never_spills(monkeypatch):
    monkeypatch.setattr(tapes, "SPILL_AT", 40)
    calls = _counting_spills(monkeypatch)

    def loop(x, n):
        for _ in range(n):
            x = np.sin(x) * 1.1
        return x

    assert "_zp_tape.append(x)\n" in zp.grad_source(loop, args=(0.3, 9))  # x: one value a step
    zp.gradient(loop, 0.3, 39)  # 39 values fit
    assert calls == []
    _check(loop, 0.3, 83)  # 83 do not: spilled, and the gradient is still right
    assert calls and set(calls) == {1}


def test_a_loop_over_a_generator_checks_every_iteration(monkeypatch):
    monkeypatch.setattr(tapes, "SPILL_AT", 5)
    calls = _counting_spills(monkeypatch)

    def over_generator(x):
        s = 0.0
        for k in (j * 0.1 for j in range(30)):  # no len(): may spill
            s = s + np.sin(x * k + s)
        return s

    _check(over_generator, 0.7)
    assert calls
