"""codegen/float_loops.py and runtime/float_loops.py: a backward loop of a scalar
recurrence whose tape was spilled runs its arithmetic on Python floats, and gives the
bits, the type and the warnings-as-errors behaviour of the same loop on float64 scalars.

Each gradient below is compared with the run where the loop keeps its float64 scalars
(float_loop answering None), value for value (repr, so -0.0, inf and nan count) and
type for type, and the long recurrences with central differences."""

import types
import warnings

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.codegen import emit
from zygote_py.compiler import COMPILER
from zygote_py.runtime import float_loops, tapes

STEPS = 2000  # past SPILL_AT values (one a step, too): the tape spills, float mode can start


@pytest.fixture(autouse=True)
def short_blocks(monkeypatch):
    """Tapes spill every 256 values here (16,384 in use): loops of a few thousand steps
    spill several blocks, as a million steps do, and the tests stay quick.  The
    generated code reads the constant when it is compiled, so it is compiled afresh."""
    monkeypatch.setattr(tapes, "SPILL_AT", 256)
    COMPILER.clear()
    yield
    COMPILER.clear()


def recurrence(x, n):  # bench W1 with its trip count as an argument
    for _ in range(n):
        x = np.sin(x) * x + 0.5 * np.cos(x) / (1 + x * x)
    return x


def logistic(x, n):  # arithmetic alone: the backward reads the saved x
    for _ in range(n):
        x = 3.7 * x * (1.0 - x)
    return x


def saturating(x, n):  # tanh's and exp's cotangents read the results the forward saved
    for _ in range(n):
        x = 0.9 * np.tanh(x) + 0.05 * np.exp(-x * x) + 1e-3
    return x


def halving_divisor(x, n):  # 1 / y with y halving to 0.0: inf, then nan, in both runs
    y = x
    for _ in range(n):
        y = y * 0.5
        x = 0.5 * x + 1.0 / (1.0 + y) + 1e-3 / y
    return x * (y + 1.0)  # (both cotangents float64 scalars as the loop starts)


def thirds(x, n):  # the adjoint divides by the int constant 3
    for _ in range(n):
        x = x / 3 + np.tanh(x) * 0.7
    return x


def two_carried(x, n):
    y = x * 0.3
    for _ in range(n):
        x, y = 0.5 * y + 0.1 * x * y, x - 0.01 * y * y
    return x + 2.0 * y


CASES = [recurrence, logistic, saturating, halving_divisor, thirds, two_carried]


def _grad(f, x, n):
    """(what the gradient gives, with warnings ignored; whether it warned)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            outcome = ("value", zp.gradient(f, x, n)[0])
        except Exception as error:  # noqa: BLE001 - compared between the two runs
            outcome = ("raised", type(error).__name__)
    return outcome, any(issubclass(w.category, RuntimeWarning) for w in caught)


@pytest.fixture
def recompiled(monkeypatch):
    """Compiles afresh, once the test has patched what the generated code binds."""
    COMPILER.clear()
    yield monkeypatch
    monkeypatch.undo()
    COMPILER.clear()


def _without_float_loops(monkeypatch):
    monkeypatch.setattr(emit, "float_loop_plan", lambda op: None)
    COMPILER.clear()


def _spelled(outcome):
    kind, value = outcome
    return (kind, repr(value), type(value).__name__) if kind == "value" else outcome


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [0.5, np.float64(-1.25), 0.0], ids=repr)
def test_the_same_bits_and_type_as_on_float64_scalars(f, x, recompiled):
    fast, fast_warned = _grad(f, x, STEPS)
    _without_float_loops(recompiled)
    assert "_zp_float_loop" not in zp.grad_source(f, wrt=0, args=(x, 3))
    plain, plain_warned = _grad(f, x, STEPS)
    assert _spelled(fast) == _spelled(plain)
    assert fast_warned == plain_warned  # (an overflow: NumPy's warning, or the loop's own)


def test_the_loops_run_on_python_floats(recompiled):
    answers = []
    real = float_loops.float_loop

    def spy(*args):
        answers.append(real(*args))
        return answers[-1]

    recompiled.setattr(float_loops, "float_loop", spy)
    for f in CASES:
        answers.clear()
        zp.gradient(f, np.float64(0.5), STEPS)
        assert answers and all(a is not None for a in answers), f.__name__
    # called with a Python float: a loop of NumPy functions holds float64 scalars after its
    # first step, and runs on Python floats; one of Python's arithmetic alone holds Python
    # floats throughout, and its gradient too: it keeps them (converting back would not)
    for f, expected in ((recurrence, True), (saturating, True), (thirds, True), (logistic, False),
                        (two_carried, False)):
        answers.clear()
        zp.gradient(f, 0.5, STEPS)
        assert answers and all((a is not None) == expected for a in answers), f.__name__
        answers.clear()
        zp.gradient(f, 0.5, 10)  # nothing spilled: float_loop is not even asked
        assert not answers, f.__name__


def slow(x, n):  # a gradient that stays near 1 over the whole loop: no subnormals
    for _ in range(n):
        x = x + 1e-4 * (1.0 - x * x / (2.0 + x * x))
    return x


def test_long_recurrences_match_central_differences():
    assert "_zp_float_loop(" in zp.grad_source(slow, wrt=0, args=(0.5, 3))
    for f, x in ((slow, np.float64(0.7)), (two_carried, np.float64(0.2))):
        h = 1e-6
        (g,) = zp.gradient(lambda x, f=f: f(x, STEPS), x)
        fd = (f(x + h, STEPS) - f(x - h, STEPS)) / (2 * h)
        assert g == pytest.approx(fd, rel=1e-6, abs=1e-9), f.__name__


def test_raising_error_modes_keep_the_float64_loop():
    # np.errstate(under="raise") asks NumPy to raise where Python floats would not even warn
    steps = 4000  # W1's gradient falls below 1e-308 after about 2,600 steps
    with np.errstate(under="raise"), pytest.raises(FloatingPointError):
        zp.gradient(recurrence, np.float64(0.5), steps)
    assert 0 < zp.gradient(recurrence, np.float64(0.5), steps)[0] < 1e-300


def test_a_division_by_zero_gives_numpys_inf_with_its_warning(monkeypatch):
    assert float_loops.divide_scalars(1.0, 0.0, [0, True]) == np.inf
    with pytest.raises(ZeroDivisionError):
        float_loops.divide_scalars(1.0, 0.0, None)  # not in float mode: Python's division
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning):
            float_loops.divide_scalars(1.0, 0.0, [0, True])
    # in halving_divisor's loop the divisor reaches 0.0: the generated code calls the helper
    # there, in float mode (the comparison with the float64 run is above)
    calls, real = [], float_loops.divide_scalars

    def spy(a, b, floats):
        calls.append(floats is not None)
        return real(a, b, floats)

    monkeypatch.setattr(float_loops, "divide_scalars", spy)
    COMPILER.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = zp.gradient(halving_divisor, np.float64(-1.25), STEPS)[0]
    assert calls and all(calls) and np.isinf(g)


# -- which loops qualify (codegen/float_loops.py) ---------------------------------------------


def _source(f, *args):
    return zp.grad_source(f, wrt=0, args=args)


def test_the_scalar_recurrence_qualifies_and_its_division_is_tested():
    text = _source(recurrence, 0.5, 10)
    assert "_zp_float_loop(" in text and "_zp_refill_tape(_zp_tape, _zp_floats)" in text
    assert "_zp_divide_scalars(" in text and "x_bar = _zp_leave_float_loop(_zp_floats, x_bar)" in text


def test_loops_reading_anything_else_do_not_qualify():
    w = np.array([0.5, 0.25])

    def reads_an_array(x, n):
        for _ in range(n):
            x = np.sin(x) * w
        return np.sum(x)

    def reads_its_counter(x, n):
        for i in range(n):
            x = x * (1.0 + 1e-6 * i)
        return x

    def calls_a_function(x, n):
        for _ in range(n):
            x = np.sin(x) + x  # the backward computes cos(x)
        return x

    assert "_zp_float_loop(" not in _source(reads_an_array, np.array([0.1, 0.2]), 10)
    assert "_zp_float_loop(" not in _source(reads_its_counter, 0.5, 10)
    assert "np.cos" in _source(calls_a_function, 0.5, 10).split("grad of: for")[1]
    assert "_zp_float_loop(" not in _source(calls_a_function, 0.5, 10)


def six_hundred_steps(x):  # (its own loop: a callee's pullback is not specialised to floats)
    for _ in range(600):
        x = np.sin(x) * x + 0.5 * np.cos(x) / (1 + x * x)
    return x


def test_forward_mode_code_has_no_float_loops(recompiled):
    # zp.hessian reads gradient code again with forward mode: that code keeps plain tapes,
    # so a loop long enough to spill here (600 steps, 5 values each) never asks float_loop
    asked = []
    real = float_loops.float_loop
    recompiled.setattr(float_loops, "float_loop", lambda *args: asked.append(args) or real(*args))
    h = zp.hessian(six_hundred_steps, np.float64(0.4))
    assert not asked

    def g(x):
        return zp.gradient(six_hundred_steps, x)[0]

    assert float(np.ravel(h)[0]) == pytest.approx((g(0.4 + 1e-5) - g(0.4 - 1e-5)) / 2e-5, rel=1e-5)
    assert asked  # (the gradient alone does)


def test_a_float32_start_keeps_the_loop_on_numpy_scalars(recompiled):
    fast = _grad(recurrence, np.float32(0.5), STEPS)
    _without_float_loops(recompiled)
    assert _spelled(fast[0]) == _spelled(_grad(recurrence, np.float32(0.5), STEPS)[0])


def test_runtime_refuses_what_is_not_float64():
    steps = reversed(range(2))
    tape = [[], np.float64(1.0), np.float64(2.0)]
    assert float_loops.float_loop(tape, steps, 1, False, True, (True,), np.float64(1.0)) == [0, True]
    assert tape[1:] == [1.0, 2.0] and all(type(v) is float for v in tape[1:])
    tape = [[], np.float64(1.0), np.array(2.0)]
    assert float_loops.float_loop(tape, reversed(range(2)), 1, False, True, (True,), np.float64(1.0)) is None
    tape = [[], np.float64(1.0), np.float64(2.0)]
    assert float_loops.float_loop(tape, reversed(range(2)), 1, False, True, (True,), np.float32(1.0)) is None
    assert float_loops.float_loop(tape, iter([1, 2]), 1, False, True, (True,), np.float64(1.0)) is None
    tape = [[], 1.0, np.float64(2.0)]  # a Python float popped: only where no division needs float64
    assert float_loops.float_loop(list(tape), reversed(range(2)), 1, True, True, (True,), np.float64(1.0)) is None
    assert float_loops.float_loop(list(tape), reversed(range(2)), 1, False, True, (True,), np.float64(1.0)) == [0, True]


def test_refill_converts_only_the_loops_own_values():
    tape = tapes.new_tape()
    before = [np.float64(9.0), np.float64(8.0)]  # pushed before the loop
    tape.extend(before + [np.float64(k) for k in range(6)])
    tapes.spill_tape(tape, 1)
    floats = float_loops.float_loop(tape, reversed(range(3)), 2, False, True, (True,), np.float64(1.0))
    assert floats == [6, True]
    tapes.refill_tape(tape, floats)
    assert floats == [0, True]
    assert [type(v) for v in tape[1:3]] == [np.float64, np.float64]  # the two before the loop
    assert all(type(v) is float for v in tape[3:]) and tape[3:] == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_a_standalone_module_runs_the_loop_on_floats_as_zygote_py_does():
    from zygote_py.aot.module import standalone_module

    text = standalone_module(recurrence, wrt=("x",), args=(np.float64(0.5), 10))
    assert "float_loop" in text
    module = types.ModuleType("recurrence_grad")
    exec(compile(text, "<recurrence_grad>", "exec"), module.__dict__)  # noqa: S102 -- the module under test
    for x in (np.float64(0.5), np.float64(-2.0)):
        got = module.grad_recurrence(x, STEPS)
        want = zp.gradient(recurrence, x, STEPS)[0]
        assert repr(got[0] if isinstance(got, tuple) else got) == repr(want)


# -- random recurrences: float loops against the same code on float64 scalars ---------------


def _random_expression(rng, depth):
    if depth == 0 or rng.random() < 0.25:
        return str(rng.choice(["x", "x", "y", "0.5", "2", "1.5", "-0.3"]))
    kind = rng.integers(0, 7)
    a = _random_expression(rng, depth - 1)
    b = _random_expression(rng, depth - 1)
    return [f"np.sin({a})", f"np.tanh({a})", f"np.exp(-({a}) * ({a}))", f"({a} + {b})",
            f"({a} - {b})", f"({a} * {b})", f"({a} / (1.5 + {b} * {b}))"][kind]


def _random_recurrence(seed):
    rng = np.random.default_rng(seed)
    body = [f"        x = 0.5 * x + 0.4 * np.tanh({_random_expression(rng, 3)})"]
    if rng.random() < 0.5:
        body.append(f"        y = 0.9 * y + 0.1 * {_random_expression(rng, 2)}")
    return ("import numpy as np\n\n\ndef f(x, n):\n    y = x * 0.5\n    for _ in range(n):\n"
            + "\n".join(body) + "\n    return x + y\n")


def test_random_recurrences_give_the_same_bits_as_on_float64_scalars(tmp_path, recompiled):
    import importlib.util

    functions, running = [], 0
    for seed in range(16):
        path = tmp_path / f"recurrence_{seed}.py"
        path.write_text(_random_recurrence(seed))
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        functions.append(module.f)
        running += "_zp_float_loop(" in zp.grad_source(module.f, wrt=0, args=(np.float64(0.3), 3))
    assert running >= 6  # enough of them qualify to say something
    fast = [_grad(f, x, STEPS) for f, x in zip(functions, _starts())]
    _without_float_loops(recompiled)
    plain = [_grad(f, x, STEPS) for f, x in zip(functions, _starts())]
    for k, ((a, a_warned), (b, b_warned)) in enumerate(zip(fast, plain)):
        assert (_spelled(a), a_warned) == (_spelled(b), b_warned), _random_recurrence(k)


def _starts():
    """A float64 scalar or a Python float to start from, in turn."""
    while True:
        yield np.float64(0.3)
        yield -0.8
