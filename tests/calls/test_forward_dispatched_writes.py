"""zp.hessian, zp.hvp and a forward zp.jacobian of a gradient through calls the gradient
resolves while it runs (`m.step(x)` of a captured or global object, a method called on an
argument, a callable held in an attribute) of functions that write or build objects
(calls/forward_dispatched.py: the callee's compiled pullback runs once, by forward mode,
which follows its writes in the book of attribute tangents).  Each Hessian is checked
against central differences of zp.gradient on fresh objects, and symmetric
(tests/forward_object_checks.py); one against a Hessian derived by hand; the objects are
left as one call of f leaves them."""

from dataclasses import dataclass

import numpy as np
import pytest
from forward_object_checks import check_hessian, fd_hessian

import zygote_py as zp
from zygote_py import nn

X = np.array([0.3, -0.7])


class Lin:
    def __init__(self, w):
        self.w = w
        self.s = 0.0

    def step(self, x):
        self.s = self.s + np.sum(self.w * x)
        return self.s


class Scaled(Lin):  # the method overridden in a subclass
    def step(self, x):
        self.s = np.sin(self.s) + np.sum(self.w * x * x)
        return self.s


LIN = Lin(np.array([1.0, 2.0]))


def two_steps(x):
    LIN.s = 0.0
    a = LIN.step(x)
    b = LIN.step(x * x)
    return a * b


def make_two_steps():
    LIN.s = 5.0
    return two_steps


def test_a_method_writing_its_state_twice_matches_a_hand_derived_hessian():
    # a = w.x, c = w.(x*x), f = a (a + c): H = 2 w w' + w dc' + dc w' + a diag(2 w)
    hess = check_hessian(make_two_steps, X)
    w = LIN.w
    a = w @ X
    dc = 2 * w * X
    expected = 2 * np.outer(w, w) + np.outer(w, dc) + np.outer(dc, w) + a * np.diag(2 * w)
    np.testing.assert_allclose(hess, expected, rtol=1e-12, atol=1e-12)


def test_the_state_after_the_hessian_is_what_one_call_leaves():
    v = np.array([0.4, -1.3])
    expected = fd_hessian(make_two_steps, X) @ v
    make_two_steps()(X)
    after_one_call = LIN.s
    zp.hessian(make_two_steps(), X)
    assert LIN.s == after_one_call != 5.0
    hv = zp.hvp(make_two_steps(), X, v)
    np.testing.assert_allclose(hv, expected, rtol=1e-6, atol=1e-8)
    assert LIN.s == after_one_call


def test_the_state_read_before_the_first_write_starts_each_column():
    def make():
        m = Lin(np.array([0.5, -1.5]))
        m.s = 0.25

        def f(x):
            return m.step(x) * m.step(np.cos(x)) + m.s * x[0]
        return f

    check_hessian(make, X)


def test_an_object_passed_as_an_argument_and_a_subclass_override():
    def run(m, x):
        y = m.step(x)
        return y * m.step(2.0 * x) + m.s ** 2

    for cls in (Lin, Scaled):
        def make(cls=cls):
            m = cls(np.array([0.7, 1.1]))
            return lambda x: run(m, x)

        check_hessian(make, X)


def test_two_objects_of_one_class_keep_their_own_state():
    def make():
        p, q = Lin(np.array([1.0, -0.5])), Lin(np.array([0.3, 2.0]))
        both = [p, q]

        def f(x):
            total = 0.0
            for m in both:
                total = total + m.step(x) * m.step(x * x[0])
            return total + p.s * q.s
        return f

    check_hessian(make, X)


def test_a_method_run_plainly_before_the_state_is_written_with_a_derivative():
    # the first step moves nothing (its operand is a constant and the object was not yet
    # written), so it runs plainly; the write after it is followed.  Each column must start
    # from the state at the call, not from the value that first followed write replaced
    # (forward_objects.undo_writes: a Hessian of 6 where 3 is right, before)
    def make():
        m = Lin(np.array([1.0, 2.0]))

        def f(x):
            a = m.step(np.ones(2))
            m.s = m.s * x[0]
            b = m.step(np.ones(2))
            return m.s * x[1] + a * b * x[0]
        return f

    hess = check_hessian(make, X)
    # a = 3, m.s = 3 x0, b = 3 x0 + 3: f = (3 x0 + 3) x1 + 3 (3 x0 + 3) x0
    np.testing.assert_allclose(hess, [[18.0, 3.0], [3.0, 0.0]], atol=1e-12)


class Bumper:
    def __init__(self):
        self.t = 0.5

    def bump(self, v):
        self.t = self.t * v + 0.25
        return self.t * self.t


def test_a_method_that_runs_plainly_and_writes_is_undone_between_columns():
    # q.bump(1.5) carries no derivative: the gradient runs it as plain Python, which the
    # backward does not undo; each column must still start from q.t at the call (its
    # attributes are compared around the call: forward_objects._note_plain_writes).  It
    # ran once per column before, and the second column was that of another function.
    def make():
        q = Bumper()

        def f(x):
            a = q.bump(1.5)
            return a * x[0] ** 2 * x[1]
        return f

    def make_by_name():  # the same through a function called by name, given the object
        q = Bumper()

        def f(x):
            a = bump(q, 1.5)
            return a * x[0] ** 2 * x[1]
        return f

    a = (0.5 * 1.5 + 0.25) ** 2
    for maker in (make, make_by_name):
        f = maker()
        hess = zp.hessian(f, X)
        np.testing.assert_allclose(hess, [[2 * a * X[1], 2 * a * X[0]], [2 * a * X[0], 0.0]],
                                   atol=1e-12)
        assert f.__closure__[0].cell_contents.t == 1.0  # as one call leaves it


def bump(q, v):
    q.t = q.t * v + 0.25
    return q.t * q.t


GLOBAL_BUMPER = Bumper()


def bump_global(v):  # writes an object it is not given
    GLOBAL_BUMPER.t = GLOBAL_BUMPER.t * v + 0.25
    return GLOBAL_BUMPER.t * GLOBAL_BUMPER.t


def test_plain_code_changing_state_it_is_not_given_is_refused_not_a_wrong_hessian():
    # the columns cannot put that state back; the second column's value differs from the
    # first's (forward_api._same_call), which is refused
    def f(x):
        return bump_global(1.5) * x[0] ** 2 * x[1]

    with pytest.raises(zp.ZygoteError, match="do not all start from the same state"):
        zp.hessian(f, X)
    with pytest.raises(zp.ZygoteError, match="do not all start from the same state"):
        zp.jacobian(f, X, mode="forward")


# -- nn.Recur stepped one call at a time ---------------------------------------------------
RNG = np.random.default_rng(5)
MODEL = nn.RNN(3, 2)
SEQ = RNG.normal(size=6)


def global_loss(x):
    MODEL.reset()
    total = 0.0
    for t in range(2):
        y = MODEL(x[3 * t:3 * t + 3])
        total = total + np.sum(y * y)
    return total


def argument_loss(m, x):
    m.reset()
    total = 0.0
    for t in range(2):
        y = m(x[3 * t:3 * t + 3])
        total = total + np.sum(np.tanh(y) * y)
    return total + np.sum(m.state)


def test_recur_per_step_hessian_captured_as_a_global():
    MODEL.state = MODEL.init
    global_loss(SEQ)
    after_one_call = MODEL.state
    check_hessian(lambda: global_loss, SEQ)
    zp.hessian(global_loss, SEQ)
    np.testing.assert_array_equal(MODEL.state, after_one_call)


def test_recur_per_step_hessian_and_hvp_passed_as_an_argument():
    def make():
        return lambda x: argument_loss(MODEL, x)

    hess = check_hessian(make, SEQ)
    v = RNG.normal(size=SEQ.shape)
    np.testing.assert_allclose(zp.hvp(make(), SEQ, v), hess @ v, rtol=1e-10, atol=1e-12)


def test_forward_jacobian_of_the_gradient_code_through_a_writing_method():
    # zp.jacobian(mode="forward") of the compiled gradient: one column per element, each
    # starting from the state at the call (what zp.hessian runs, without its packing)
    from zygote_py.forward_api import _gradient_function

    grad = _gradient_function(make_two_steps(), X)
    (jac,) = zp.jacobian(lambda x: grad(x)[1][0], X, mode="forward")
    np.testing.assert_allclose(jac, fd_hessian(make_two_steps, X), rtol=1e-6, atol=1e-8)


# -- methods that build objects, write into arrays they hold, append to lists -------------
class Layer:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.tanh(self.w * x)


class Net:
    def __init__(self, w):
        self.w = w
        self.items = []
        self.buf = np.zeros(2)

    def build(self, x):
        layer = Layer(self.w * x)  # a class built inside a method called through dispatch
        return layer(x)

    def log(self, v):
        self.items.append(v)
        return v

    def set_item(self, i, v):
        # (an in-place `self.buf[i] = v` is refused by reverse mode already: written into a
        # copy, stored back)
        buf = self.buf.copy()
        buf[i] = v
        self.buf = buf
        return buf


def test_a_method_that_builds_objects():
    def make():
        net = Net(np.array([1.0, 2.0]))
        return lambda x: np.sum(net.build(x) ** 2)

    check_hessian(make, X)


def test_a_method_that_appends_to_a_list_it_holds():
    def make():
        net = Net(np.array([1.0, 2.0]))

        def f(x):
            net.items = []
            net.log(x[0] * x[1])
            net.log(np.sin(x[1]))
            return net.items[0] * net.items[1] + len(net.items)
        return f

    check_hessian(make, X)


def test_a_method_that_writes_into_an_array_it_holds():
    def make():
        net = Net(np.array([1.0, 2.0]))

        def f(x):
            net.buf = np.zeros(2)
            net.set_item(0, x[0] * x[1])
            b = net.set_item(1, np.exp(x[0]))
            return np.sum(b * b) + net.buf[0]
        return f

    check_hessian(make, X)


def test_a_method_reading_weights_the_function_set_on_its_object():
    # the weights held by the object, set from x by f (their tangents in the book) and read
    # by the method, which nothing else it is given moves: it runs transformed all the same
    def make():
        m = Lin(np.zeros(2))

        def f(x):
            m.w = np.exp(x)
            m.s = x[0]
            m.step(np.array([1.0, -2.0]))
            return m.step(np.ones(2)) * m.s
        return f

    check_hessian(make, X)


@dataclass
class Pair:
    a: float
    b: float = 0.5


class Maker:
    def make(self, x):
        p = Pair(x * 2.0)  # a dataclass built in a method called through dispatch
        p.b = p.b * np.sin(x)
        return p.a * p.b

    def make_late(self, x):
        return Late(x).c


@dataclass
class Late:
    a: float

    def __post_init__(self):
        self.c = self.a * 2.0


def test_a_dataclass_built_through_dispatch():
    def make():
        maker = Maker()
        return lambda x: np.sum(maker.make(x) ** 2)

    check_hessian(make, X)


def test_a_dataclass_with_post_init_built_through_dispatch_is_refused_not_guessed():
    maker = Maker()

    def f(x):
        return np.sum(maker.make_late(x) ** 2)

    np.testing.assert_allclose(zp.gradient(f, X)[0], 8 * X)
    with pytest.raises(zp.NoDerivativeRule, match="dataclass with __post_init__"):
        zp.hessian(f, X)
