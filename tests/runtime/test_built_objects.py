"""Objects built inside the differentiated call (runtime/built_objects.py): what is
refused, and where, and the parts the corpus (tests/corpus/built_objects.py) does
not reach: pullbacks of functions returning a built object, Params, the ledger's
bookkeeping.  Every derivative is checked against central differences."""

from dataclasses import dataclass

import numpy as np
import pytest
from corpus.finite_diff import numerical_gradient

import zygote_py as zp
from zygote_py.errors import MutationError, UnsupportedSyntax


class Layer:
    def __init__(self, b):
        self.b = b

    def bump(self, v):
        self.b = self.b + v

    def forward(self, x):
        return self.b * x


def _check(f, *args):
    got = zp.gradient(f, *args)
    want = numerical_gradient(f, args)
    for g, w in zip(got, want):
        assert np.allclose(0.0 if g is None else g, w, rtol=1e-6, atol=1e-8), (got, want)
    return got


def test_the_fuzzers_repro_from_issue_12():
    def f(t):
        m = Layer(0.1)
        m.bump(t)
        return m.forward(1.0)

    assert zp.gradient(f, 0.7) == (1.0,)


def test_a_write_into_an_argument_is_differentiated():
    """Objects from outside the call are written too (tests/runtime/test_outside_objects.py)."""
    def f(x, arg):
        arg.b = x
        return arg.b

    layer = Layer(1.0)
    assert zp.gradient(f, 2.0, layer) == (1.0, None)  # arg.b's value at the call is unread
    assert layer.b == 2.0  # the caller sees the write


def test_a_write_into_an_object_made_without_derivatives_is_differentiated():
    def make():
        return Layer(1.0)

    def f(x):
        m = make()  # no active argument: runs as plain Python; adopted at its first write
        m.bump(x)
        return m.b * x

    _check(f, 2.0)


def test_a_class_global_attribute_write_is_refused():
    def f(x):
        Layer.default = x
        return x

    with pytest.raises(MutationError):
        zp.gradient(f, 2.0)


def test_a_list_handed_to_an_object_is_not_updated_under_its_name():
    def f(x):
        p = [x]
        m = Layer(p)
        p.append(x)
        return m.b[0]

    with pytest.raises(MutationError, match="may hold now"):
        zp.gradient(f, 2.0)


class OwnSetattr:
    def __init__(self, a):
        self.a = a

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value * 2)


class WithSetter:
    def __init__(self, a):
        self._a = a

    @property
    def a(self):
        return self._a

    @a.setter
    def a(self, value):
        self._a = value


@dataclass(frozen=True)
class Frozen:
    w: float


def test_writes_python_would_route_elsewhere_are_refused():
    with pytest.raises(MutationError, match="defines __setattr__"):
        zp.gradient(lambda x: OwnSetattr(x).a, 2.0)

    def setter(x):
        s = WithSetter(x)
        s.a = x * 2.0
        return s.a

    with pytest.raises(MutationError, match="setter"):
        zp.gradient(setter, 2.0)

    def frozen(x):
        f = Frozen(x)
        f.w = 3.0
        return f.w

    import dataclasses

    with pytest.raises(dataclasses.FrozenInstanceError):
        zp.gradient(frozen, 2.0)


def test_del_of_an_attribute_is_refused_before_anything_runs():
    def f(x):
        m = Layer(x)
        del m.b
        return x

    with pytest.raises(UnsupportedSyntax):
        zp.gradient(f, 2.0)


def test_setattr_and_augmented_writes():
    def f(x):
        m = Layer(x)
        setattr(m, "b", m.b * 3.0)  # noqa: B010  (the builtin is what is tested)
        m.b *= x
        m.b -= 0.5 * x
        return m.b

    assert np.isclose(_check(f, 0.8)[0], 6.0 * 0.8 - 0.5)


def test_pullback_of_a_returned_object_takes_its_seed_by_attribute():
    def f(x):
        m = Layer(x * x)
        m.bump(3.0 * x)
        return m

    y, back = zp.pullback(f, 2.0)
    assert y.b == 4.0 + 6.0  # the caller sees the state the forward pass left
    assert back({"b": 1.0}) == (2 * 2.0 + 3.0,)
    assert back({"b": 2.0}) == (2 * (2 * 2.0 + 3.0),)  # reusable
    assert y.b == 10.0


def test_objects_built_from_params():
    W = np.array([1.0, -2.0])

    def loss():
        m = Layer(W * 2.0)
        m.bump(W)
        return np.sum(m.b * m.b)

    grads = zp.gradient(loss, zp.params(W))
    assert np.allclose(grads[W], 18.0 * W)


def test_a_held_list_updated_in_place_with_a_derivative_is_followed():
    class History:
        def __init__(self):
            self.items = []

        def add(self, v):
            self.items.append(v)

    def f(x):
        h = History()
        h.add(x * 2.0)
        return h.items[0] * x

    # (refused before lists from outside were updated in place: lower_containers.py)
    assert zp.gradient(f, 1.5) == (pytest.approx(4 * 1.5),)


def test_an_init_that_cannot_be_transformed_still_builds_without_derivatives():
    class Opened:
        def __init__(self, n):
            try:
                self.n = int(n)
            except ValueError:
                self.n = 0

    def f(x):
        o = Opened("3")
        return x * o.n

    assert zp.gradient(f, 2.0) == (3.0,)
    with pytest.raises(UnsupportedSyntax):
        zp.gradient(lambda x: Opened(x).n * x, 2.0)


def test_super_outside_a_method_is_refused():
    def f(x):
        return super().__init__(x)

    with pytest.raises(UnsupportedSyntax):
        zp.gradient(f, 2.0)


def build(x):
    return Layer(x)


class Fluent:
    def __init__(self, b):
        self.b = b

    def scale(self, k):
        self.b = self.b * k
        return self


def test_built_in_a_helper_changed_in_the_caller():
    def f(x):
        m = build(x)
        m.bump(x * x)
        return m.b * m.b

    _check(f, 0.6)


def test_built_in_a_comprehension_and_bumped_in_a_loop():
    def f(x, ws):
        layers = [Layer(w * x) for w in ws]
        for layer in layers:
            layer.bump(x)
        total = 0.0
        for layer in layers:
            total = total + layer.forward(x)
        return total

    _check(f, 0.7, [0.5, -1.0, 2.0])


def test_written_in_a_while_loop_of_the_caller():
    def f(x):
        m = Layer(x)
        n = 0
        while n < 3:
            m.b = m.b * x + 1.0
            n += 1
        return m.b

    _check(f, 0.9)


def test_a_method_returning_self():
    def f(x):
        return Fluent(x).scale(x).scale(3.0).b

    assert np.isclose(_check(f, 0.8)[0], 6.0 * 0.8)


def test_a_derivative_through_dict_of_a_built_object_is_refused():
    def f(x):
        m = Layer(x)
        return m.__dict__["b"] * 2.0

    with pytest.raises(zp.ZygoteError, match="__dict__"):
        zp.gradient(f, 1.0)


class Scaled:
    W = np.array([1.0, 3.0])  # a class attribute that is a parameter

    def __init__(self, k):
        self.k = k

    def value(self):
        return np.sum(self.W * self.k)


def test_a_class_attribute_parameter_gets_its_gradient_in_a_params_call():
    k = np.array([2.0, 5.0])
    grads = zp.gradient(lambda: Scaled(k * 1.0).value(), zp.params(Scaled.W, k))
    assert np.allclose(grads[Scaled.W], k)
    assert np.allclose(grads[k], Scaled.W)


def test_an_attribute_written_by_code_without_derivatives_is_refused():
    import functools

    class Cached:
        def __init__(self, w):
            self.w = w

        @functools.cached_property
        def twice(self):
            return self.w * 2.0

    def f(x):
        return Cached(x).twice * 3.0

    with pytest.raises(zp.ZygoteError, match="written by code that ran without derivatives"):
        zp.gradient(f, 1.0)


def ident(p):
    return p


def test_a_list_passed_to_a_function_that_may_keep_it_is_not_updated_under_its_name():
    """Python's q is p: q would see the append; rewritten as a new list it would not
    (a silently wrong 1.0 instead of 2.0 before)."""

    def f(x):
        p = [x]
        q = ident(p)
        p.append(2.0 * x)
        return q[-1]

    with pytest.raises(MutationError, match="may hold now"):
        zp.gradient(f, 3.0)

    def g(x):
        p = [x]
        total = np.sum(np.array(p))  # a rule does not keep it: p may still grow
        p.append(2.0 * x)
        return total + p[-1]

    assert zp.gradient(g, 3.0) == (3.0,)


class Pair:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    @property
    def swapped(self):
        return Pair(self.b, self.a * 2.0)  # a getter that builds an object


def test_a_getter_building_an_object_in_a_pullback():
    def f(x):
        p = Pair(x, x * x)
        p.a = p.a * 3.0
        return p.swapped.b * p.swapped.a

    y, back = zp.pullback(f, 0.7)
    want = numerical_gradient(f, (0.7,))[0]
    assert np.isclose(back(1.0)[0], want)
    assert np.isclose(back(2.0)[0], 2 * want)
    _check(f, 0.7)


# -- `obj.name op= v` and `a op= b` on values Python updates in place ----------------


class _Box:
    def __init__(self, w):
        self.w = w


def _attribute_array_iadd(x):
    b = _Box(x * 1.0)
    alias = b.w
    b.w += x  # Python writes into the array alias holds too: refused, never rebound
    return np.sum(alias * x)


def _attribute_number_iadd(x):
    b = _Box(x[0] * 2.0)
    b.w += x[1]
    b.w *= x[2]
    return b.w


def _aliased_list_iadd(x):
    a = [x[0]]
    held = [a]
    a += [x[1]]  # list.__iadd__ extends the list held also holds: refused
    return held[0][-1]


def test_augmented_assignment_on_an_array_attribute_is_refused_not_rebound():
    with pytest.raises(zp.MutationError, match="in place"):
        zp.gradient(_attribute_array_iadd, np.array([1.0, 2.0, 3.0]))


def test_augmented_assignment_on_a_number_attribute_rebinds_with_its_derivative():
    x = np.array([0.5, -1.5, 2.0])
    value, (g,) = zp.withgradient(_attribute_number_iadd, x)
    assert value == pytest.approx((2 * x[0] + x[1]) * x[2])
    np.testing.assert_allclose(g, [2 * x[2], x[2], 2 * x[0] + x[1]])


def test_augmented_assignment_on_an_aliased_list_is_refused_not_rebound():
    with pytest.raises(zp.MutationError, match="in place"):
        zp.gradient(_aliased_list_iadd, np.array([1.0, 2.0]))
