"""Forward mode through attribute writes (calls/forward_objects.py, ad/forward/objects.py):
a tangent per written attribute, kept by the object, so that every later read -- through
another name, a list holding the object, a method, a function it is passed to -- sees it;
objects built in the function; zp.hessian (forward over the gradient, whose backward puts
the attributes back) of functions that write attributes.  Every tangent is checked against
central differences of plain runs on fresh objects (tests/forward_object_checks.py)."""

from dataclasses import dataclass

import numpy as np
import pytest
from forward_object_checks import check_hessian, check_jvp

import zygote_py as zp
from zygote_py import nn
from zygote_py.errors import MutationError

X = np.array([0.3, -0.5, 0.9])
V = np.array([0.7, 0.2, -1.1])


class Cell:
    def __init__(self, w, state):
        self.w = w
        self.state = state

    def step(self, x):
        self.state = np.tanh(self.w * self.state + x)
        return self.state


class Accumulator:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def add(self, v):
        self.total = self.total + v * v
        self.count += 1

    @property
    def mean(self):
        return self.total / self.count


def step(m, x):
    """A function called by name that writes into the object it is given (Recur's step)."""
    m.state = np.tanh(m.w * m.state + x)
    return m.state


# -- writes in the function itself: jvp and Hessian -----------------------------------------
# (one function, compiled once; make() puts its object back to the start state)
BODY_CELL = Cell(0.8, 0.3)


def body_writes(x):
    c = BODY_CELL
    c.state = c.state * x[0] + np.sin(x[1])
    held = [c]
    held[0].state = held[0].state * c.w * x[1]  # the same object, reached another way
    return BODY_CELL.state * x[2] + c.state ** 2


def make_body_writes():
    BODY_CELL.state = 0.3
    return body_writes


def test_writes_in_the_body_reached_two_ways():
    check_jvp(make_body_writes, X, V)
    check_hessian(make_body_writes, X)


STEP_CELL = Cell(0.8, 0.3)


def by_name_steps(x):
    total = 0.0
    for i in range(x.shape[0]):
        total = total + step(STEP_CELL, x[i]) ** 2
    return total + STEP_CELL.state


def make_by_name_steps():
    STEP_CELL.state = 0.3
    return by_name_steps


def test_a_function_called_by_name_writes_the_state_each_step():
    check_jvp(make_by_name_steps, X, V)
    # (two steps: forward mode over each step's back function compiles it per call)
    make_by_name_steps()(X[:2])
    after_one_call = STEP_CELL.state
    check_hessian(make_by_name_steps, X[:2])
    # the Hessian's columns each start from the state at the call, and it leaves the state
    # one call leaves, which the caller sees
    zp.hessian(make_by_name_steps(), X[:2])
    assert STEP_CELL.state == after_one_call != 0.3


# -- methods, built objects, properties: jvp ------------------------------------------------
def make_methods():
    def f(x):
        acc = Accumulator()  # built here
        cell = Cell(x[0], 0.1)
        for v in x:
            acc.add(cell.step(v))
        return acc.mean * acc.count + cell.state

    return f


def test_methods_that_write_and_objects_built_in_the_function():
    check_jvp(make_methods, X, V)


def test_an_object_argument_with_a_tangent_and_its_writes_seen_by_the_caller():
    def f(cell, x):
        cell.step(x)
        cell.step(2.0 * x)
        return cell.state * cell.w

    cell = Cell(0.8, 0.3)
    y, t = zp.jvp(f, (cell, 0.4), ({"w": 0.5, "state": -1.0}, 1.0))
    h = 1e-6

    def run(s):
        return f(Cell(0.8 + 0.5 * s, 0.3 - 1.0 * s), 0.4 + s)

    assert np.isclose(y, run(0.0)) and np.isclose(t, (run(h) - run(-h)) / (2 * h))
    expected = Cell(0.8, 0.3)
    expected.step(0.4)
    expected.step(0.8)
    assert cell.state == expected.state


def test_an_object_returned_has_the_tangents_of_its_attributes():
    def f(x):
        acc = Accumulator()
        acc.add(x)
        acc.add(3.0 * x)
        return acc

    acc, t = zp.jvp(f, (0.5,), (1.0,))
    assert acc.count == 2 and np.isclose(acc.total, 0.25 + 2.25)
    assert set(t) == {"total"} and np.isclose(t["total"], 2 * 0.5 + 18 * 0.5)


@dataclass
class Point:
    x: float
    y: float

    def norm2(self):
        return self.x * self.x + self.y * self.y


@dataclass(frozen=True)
class Frozen:
    scale: float

    def apply(self, v):
        return self.scale * v


def test_dataclasses_built_in_the_function():
    def make():
        def f(x):
            p = Point(x[0], x[1] * x[2])
            p.x = p.x + Frozen(x[2]).apply(p.y)
            return p.norm2()
        return f

    check_jvp(make, X, V)


def test_a_property_reads_the_attributes_written_before_it():
    def make():
        def f(x):
            acc = Accumulator()
            acc.add(x[0])
            acc.add(x[1] * x[2])
            return acc.mean
        return f

    check_jvp(make, X, V)


def test_a_method_that_writes_under_a_hessian_is_followed():
    # (a method of a captured object: the gradient resolves the call while it runs;
    # tests/calls/test_forward_dispatched_writes.py has the cases in full)
    def make():
        cell = Cell(0.8, 0.3)

        def f(x):
            return cell.step(x[0]) * x[1]
        return f

    check_hessian(make, X[:2])


# -- nn.Recur, stepped one call at a time ----------------------------------------------------
def test_recur_per_step_jvp_and_forward_jacobian():
    rng = np.random.default_rng(3)
    model = nn.RNN(3, 4)
    xs = rng.normal(size=(4, 3))

    def make():
        m = model

        def loss(seq):
            m.reset()
            total = 0.0
            for t in range(seq.shape[0]):
                y = m(seq[t])
                total = total + np.sum(y * y)
            return total
        return loss

    check_jvp(make, xs, rng.normal(size=xs.shape))
    (jac,) = zp.jacobian(make(), xs, mode="forward")  # columns: each call starts at reset
    (grad,) = zp.gradient(make(), xs)
    np.testing.assert_allclose(jac, grad, rtol=1e-10, atol=1e-12)


# -- refusals, as reverse mode refuses ---------------------------------------------------------
GLOBAL_ACC = Accumulator()


def test_a_call_without_derivatives_after_a_write_is_refused_not_lost():
    def readout():
        return GLOBAL_ACC.total

    def f(x):
        GLOBAL_ACC.add(x)
        return readout()

    with pytest.raises(MutationError, match="ran without derivatives"):
        zp.jvp(f, (0.5,), (1.0,))


class Config:
    scale = 1.0


def test_a_class_attribute_write_is_refused():
    def f(x):
        Config.scale = x
        return x * 2.0

    with pytest.raises(MutationError, match="instances only"):
        zp.jvp(f, (0.5,), (1.0,))


RESET_CELL = Cell(0.8, 0.3)


def reset_plainly():  # no argument, no closure: runs as plain Python
    RESET_CELL.state = 0.0


def test_an_attribute_changed_by_code_forward_mode_did_not_follow_is_refused():
    def f(x):
        RESET_CELL.state = RESET_CELL.state * x
        reset_plainly()
        return RESET_CELL.state + x

    with pytest.raises(zp.ZygoteError, match="did not follow"):
        zp.jvp(f, (0.5,), (1.0,))

    def g(x):  # a closure over the object is transformed: its write is followed
        cell = Cell(0.8, 0.3)

        def reset():
            cell.state = 0.0

        cell.state = cell.state * x
        reset()
        return cell.state + x

    assert zp.jvp(g, (0.5,), (1.0,)) == (0.5, 1.0)
# -- a back with effects that no cotangent reaches still runs -----------------------------
class Box:
    def __init__(self):
        self.s = 0.0


BOX = Box()


def put(box, x):  # returns nothing: its back runs only because it has effects
    box.s = x[0] * x[1]


def through_a_put(x):
    put(BOX, x)
    return BOX.s * x[0]


def make_put():
    BOX.s = 0.0
    return through_a_put


def test_a_back_with_effects_runs_when_no_cotangent_reaches_it():
    # (the flag `back._zp_effects = True` of the pullback code must survive its lowering
    # for forward mode: frontend/lower_objects.py; it was lost, and this Hessian was wrong)
    hess = check_hessian(make_put, X[:2])
    np.testing.assert_allclose(hess, [[2 * X[1], 2 * X[0]], [2 * X[0], 0.0]], atol=1e-12)


def test_a_closure_and_a_bound_method_over_a_written_object_read_its_tangents():
    def make():
        def f(x):
            acc = Accumulator()
            acc.add(x[0])
            read = lambda k: acc.total * k  # noqa: E731  (captures the written object)
            add = acc.add  # a bound method of it, called as a value
            add(x[1] * x[2])
            return read(x[2]) + acc.mean
        return f

    check_jvp(make, X, V)
