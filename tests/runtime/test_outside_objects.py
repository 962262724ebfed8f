"""Attribute writes into objects the differentiated call did not build
(runtime/built_objects.py: adopt, released_cotangent): arguments, globals, closure
values and objects reached through them.  The caller sees each write, later reads see
the new value, and the gradient is taken with respect to the values at call time.
Every derivative is checked against central differences of a plain run on fresh
objects (a write changes the object, so each evaluation builds its own)."""

from dataclasses import dataclass

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.errors import MutationError

EPS = 1e-6


def central(h, x):
    """Central differences of the scalar h at x (a float or an array)."""
    if np.ndim(x) == 0:
        return (h(x + EPS) - h(x - EPS)) / (2 * EPS)
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += EPS
        down[i] -= EPS
        out[i] = (h(up) - h(down)) / (2 * EPS)
    return out


def close(got, want):
    np.testing.assert_allclose(0.0 if got is None else got, want, rtol=1e-6, atol=1e-8)


class Accumulator:
    """An object that accumulates state (issue 13's target)."""

    def __init__(self, total=0.0):
        self.total = total
        self.count = 0

    def add(self, v):
        self.total = self.total + v * v
        self.count += 1

    @property
    def mean(self):
        return self.total / self.count


class Cell:
    def __init__(self, w, state):
        self.w = w
        self.state = state

    def step(self, x):
        self.state = np.tanh(self.w * self.state + x)
        return self.state


class Holder:
    def __init__(self, inner):
        self.inner = inner


def test_an_argument_object_written_and_read_back():
    def f(acc, x):
        acc.add(x)
        acc.add(2.0 * x)
        return acc.total * 3.0 + acc.mean

    def plain(total, x):
        return f(Accumulator(total), x)

    acc = Accumulator(1.0)
    g_acc, g_x = zp.gradient(f, acc, 0.5)
    assert acc.total == pytest.approx(1.0 + 0.25 + 1.0) and acc.count == 2  # the caller sees it
    close(g_x, central(lambda x: plain(1.0, x), 0.5))
    close(g_acc["total"], central(lambda t: plain(t, 0.5), 1.0))  # w.r.t. the value at call time


def test_a_global_accumulator_that_was_not_an_input():
    """An object from a global, not differentiated itself: the derivative of what is
    written into it still reaches the reads after the write."""
    def f(x):
        for v in (x, 2.0 * x, x * x):
            GLOBAL_ACC.add(v)
        return GLOBAL_ACC.total + GLOBAL_ACC.mean

    def plain(x):
        global GLOBAL_ACC
        saved, GLOBAL_ACC = GLOBAL_ACC, Accumulator()
        try:
            return f(x)
        finally:
            GLOBAL_ACC = saved

    global GLOBAL_ACC
    GLOBAL_ACC = Accumulator()
    (g,) = zp.gradient(f, 0.7)
    assert GLOBAL_ACC.count == 3
    close(g, central(plain, 0.7))


GLOBAL_ACC = Accumulator()


def test_a_closure_value_written_with_its_old_value_read_first():
    def make(o):
        def f(x):
            before = o.state
            o.state = o.state * x + o.w
            after = o.state
            o.w = after * x
            return before * after + o.w * o.state

        return f

    def plain(x):
        return make(Cell(0.3, 1.5))(x)

    o = Cell(0.3, 1.5)
    (g,) = zp.gradient(make(o), 0.8)
    close(g, central(plain, 0.8))
    assert o.state == pytest.approx(1.5 * 0.8 + 0.3)


def test_an_object_reached_through_an_attribute_of_an_argument():
    def f(holder, xs):
        total = 0.0
        for x in xs:
            total = total + np.sum(holder.inner.step(x) ** 2)
        return total

    xs = np.array([[0.1, -0.2], [0.3, 0.5], [-0.4, 0.2]])
    w, s0 = np.array([0.7, -0.3]), np.array([0.2, 0.1])

    def plain_x(xs_):
        return f(Holder(Cell(w, s0)), xs_)

    def plain_w(w_):
        return f(Holder(Cell(w_, s0)), xs)

    def plain_s(s_):
        return f(Holder(Cell(w, s_)), xs)

    holder = Holder(Cell(w, s0))
    g_holder, g_xs = zp.gradient(f, holder, xs)
    close(g_xs, central(plain_x, xs))
    close(g_holder["inner"]["w"], central(plain_w, w))
    close(g_holder["inner"]["state"], central(plain_s, s0))
    assert holder.inner.state is not s0


def test_writes_in_a_while_loop_and_a_branch():
    def f(o, x):
        k = 0
        while k < 4:
            if k % 2 == 0:
                o.state = o.state * x
            else:
                o.state = o.state + o.w * x
            k += 1
        return o.state

    def plain(x):
        return f(Cell(0.5, 1.2), x)

    (g_o, g_x) = zp.gradient(f, Cell(0.5, 1.2), 0.9)
    close(g_x, central(plain, 0.9))
    close(g_o["w"], central(lambda w: f(Cell(w, 1.2), 0.9), 0.5))
    close(g_o["state"], central(lambda s: f(Cell(0.5, s), 0.9), 1.2))


def test_a_property_reads_the_state_of_its_point_in_the_backward_pass():
    class Spring:
        def __init__(self, s):
            self.s = s

        @property
        def energy(self):
            return self.s ** 3

    def f(sp, x):
        sp.s = x
        e1 = sp.energy
        sp.s = 2.0 * x
        return e1 + sp.energy

    (_, g) = zp.gradient(f, Spring(0.1), 0.6)
    close(g, central(lambda x: f(Spring(0.1), x), 0.6))


def test_implicit_params_through_a_stateful_global_object():
    def loss(xs):
        total = 0.0
        for x in xs:
            total = total + np.sum(MODEL.step(x))
        return total

    global MODEL
    w = np.array([0.4, -0.6])
    MODEL = Cell(w, np.array([0.1, 0.2]))
    start = MODEL.state
    xs = [np.array([0.3, 0.1]), np.array([-0.2, 0.4])]
    gs = zp.gradient(lambda: loss(xs), zp.params(MODEL))

    def plain(w_, s_):
        global MODEL
        saved, MODEL = MODEL, Cell(w_, s_)
        try:
            return loss(xs)
        finally:
            MODEL = saved

    close(gs[w], central(lambda w_: plain(w_, start), w))
    close(gs[start], central(lambda s_: plain(w, s_), start))


MODEL = None


def test_a_dataclass_argument_and_a_frozen_one():
    @dataclass
    class Box:
        v: float

    @dataclass(frozen=True)
    class Frozen:
        v: float

    def f(b, x):
        b.v = b.v * x
        return b.v * b.v

    (g_b, g_x) = zp.gradient(f, Box(1.5), 0.4)
    close(g_x, central(lambda x: f(Box(1.5), x), 0.4))
    close(g_b["v"], central(lambda v: f(Box(v), 0.4), 1.5))
    with pytest.raises(Exception, match="cannot assign to field"):
        zp.gradient(f, Frozen(1.5), 0.4)


def test_pullback_runs_twice_and_refuses_a_change_in_between():
    def f(o, x):
        o.state = o.state * x
        return o.state * o.w

    o = Cell(2.0, 3.0)
    _, back = zp.pullback(f, o, 0.5)
    assert o.state == 1.5
    assert back(1.0) == back(1.0)
    close(back(1.0)[1], 3.0 * 2.0)
    o.state = 7.0  # changed by plain code after the forward pass
    with pytest.raises(zp.ZygoteError, match="changed after the forward pass"):
        back(1.0)


def test_a_class_or_module_attribute_write_is_still_refused():
    class Config:
        scale = 1.0

    def f(x):
        Config.scale = x
        return x * Config.scale

    with pytest.raises(MutationError, match="instances only"):
        zp.gradient(f, 2.0)


def test_a_call_run_without_derivatives_after_a_write_is_refused_not_lost():
    def readout():
        return GLOBAL_ACC.total

    def f(x):
        GLOBAL_ACC.add(x)
        return readout()

    with pytest.raises(MutationError, match="ran without derivatives") as err:
        zp.gradient(f, 0.5)
    assert err.value.loc.line == f.__code__.co_firstlineno + 2


def test_forward_mode_follows_the_write():
    # (forward mode through attribute writes: tests/calls/test_forward_objects.py)
    def f(o, x):
        o.state = o.state * x
        return o.state

    cell = Cell(1.0, 2.0)
    y, t = zp.jvp(f, (cell, 0.5), (None, 1.0))
    assert (y, t) == (1.0, 2.0) and cell.state == 1.0
    y, t = zp.jvp(f, (Cell(1.0, 2.0), 0.5), ({"state": 3.0}, 1.0))
    assert t == 3.0 * 0.5 + 2.0


STANDALONE_SOURCE = '''
class Cell:
    def __init__(self, w, state):
        self.w = w
        self.state = state


def f(o, x):
    o.state = o.state * x
    return o.state


CELL = Cell(1.0, 2.0)
'''


def test_a_standalone_module_follows_the_write(tmp_path, monkeypatch):
    """zygote-py grad: the module writes the attribute and differentiates the write as
    zygote_py does (aot/standalone_runtime.py copies the ledger; tests/aot has more)."""
    import importlib.util

    from zygote_py.cli.main import main

    (tmp_path / "stateful.py").write_text(STANDALONE_SOURCE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "stateful_grad.py"
    assert main(["grad", "stateful.py:f", "--args", "py:CELL,0.5", "-o", str(out)]) == 0
    spec = importlib.util.spec_from_file_location("stateful_grad", out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import stateful

    cell = stateful.Cell(1.0, 2.0)
    y, (cell_bar, x_bar) = module.value_and_grad_f(cell, 0.5)
    assert (y, cell.state) == (1.0, 1.0)  # the caller sees the write
    assert cell_bar == {"w": None, "state": 0.5} and x_bar == 2.0
    assert zp.gradient(stateful.f, stateful.Cell(1.0, 2.0), 0.5) == (cell_bar, x_bar)


class Knots:
    def __init__(self):
        self.xp = np.array([0.0, 1.0, 2.0])
        self.fp = np.array([0.0, 3.0, 1.0])
        self.k = np.array([1, 2])


KNOTS = Knots()


def test_an_unwritten_global_object_feeds_a_rule_argument_without_a_derivative():
    """Attribute reads of objects are differentiated in case they were written; an index or
    knot read from an object nothing wrote still reaches a rule that has no derivative
    for it (decided while running)."""
    def f(x):
        return np.interp(x, KNOTS.xp, KNOTS.fp) + np.sum(np.take(KNOTS.fp, KNOTS.k)) * x

    (g,) = zp.gradient(f, 0.5)
    close(g, central(f, 0.5))


def test_a_rule_argument_without_a_derivative_read_from_a_written_object_is_refused():
    def g(x):
        GLOBAL_HOLDER.inner.q = GLOBAL_HOLDER.inner.q * x  # written with a derivative
        return np.quantile(KNOTS.fp * x, GLOBAL_HOLDER.inner.q)

    global GLOBAL_HOLDER
    GLOBAL_HOLDER = Holder(Accumulator())
    GLOBAL_HOLDER.inner.q = 0.3
    with pytest.raises(zp.NoDerivativeRule, match="'q'"):
        zp.gradient(g, 1.5)


GLOBAL_HOLDER = None


def test_a_spliced_rules_underived_argument_from_an_object_checks_while_running():
    stats = pytest.importorskip("scipy.stats")

    def unwritten(p):
        return np.sum(stats.binom.cdf(KNOTS.k, 6, p)) * 2.0

    (g,) = zp.gradient(unwritten, 0.3)
    close(g, central(unwritten, 0.3))

    def written(p):
        KNOTS_COPY.k = KNOTS_COPY.k * p
        return np.sum(stats.binom.cdf(KNOTS_COPY.k, 6, p))

    with pytest.raises(zp.NoDerivativeRule, match="'k'"):
        zp.gradient(written, 0.3)


KNOTS_COPY = Knots()


def test_a_derivative_through_the_dict_of_a_written_object_is_refused():
    def f(o, x):
        o.state = x * 2.0
        return o.__dict__["state"]

    with pytest.raises(zp.ZygoteError, match="__dict__"):
        zp.gradient(f, Cell(1.0, 1.0), 1.0)
