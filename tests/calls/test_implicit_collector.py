"""calls/implicit.py: the collector that generated code deposits into during a Params
call, found through the current Context, and the holds_parameter walker behind guards."""

from __future__ import annotations

import threading

import numpy as np

import zygote_py as zp
from zygote_py import context
from zygote_py.calls.implicit import Collector, current_params, deposit, holds_parameter


class Layer:
    def __init__(self, W, b):
        self.W = W
        self.b = b


class Slotted:
    __slots__ = ("weight",)

    def __init__(self, weight):
        self.weight = weight


W = np.array([[1.0, 2.0], [3.0, 4.0]])
B = np.array([0.5, -0.5])
OTHER = np.array([9.0])


def test_deposit_outside_a_params_call_does_nothing():
    assert current_params() is None
    deposit(W, np.ones((2, 2)))  # no collector: no error and nowhere to go
    assert current_params() is None


def test_deposits_go_to_the_collector_of_the_current_context():
    ps = zp.params(W, B)
    collector = Collector(ps)
    layer = Layer(W, B)
    with context.using(collector=collector):
        assert current_params() is ps
        deposit(layer, {"W": np.full((2, 2), 2.0), "b": None})
        deposit([W, OTHER], [np.ones((2, 2)), np.ones(1)])  # OTHER is no parameter
        deposit({"bias": B}, {"bias": 3.0})  # a scalar cotangent broadcasts to the shape
        deposit(lambda: W, {"W": 1.0})  # W is a global read, not a cell of the lambda
    grads = collector.gradients()
    np.testing.assert_array_equal(grads[id(W)], np.full((2, 2), 3.0))
    np.testing.assert_array_equal(grads[id(B)], np.full(2, 3.0))
    assert set(grads) == {id(W), id(B)}
    assert grads[id(W)].dtype == W.dtype


def test_a_closure_cell_deposit_reaches_the_array_it_holds():
    ps = zp.params(W)
    collector = Collector(ps)
    held = W

    def reads():
        return held

    with context.using(collector=collector):
        deposit(reads, {"held": np.eye(2)})
    np.testing.assert_array_equal(collector.gradients()[id(W)], np.eye(2))


def test_gradients_are_new_arrays():
    ps = zp.params(B)
    collector = Collector(ps)
    seed = np.array([1.0, 2.0])
    with context.using(collector=collector):
        deposit(B, seed)
    out = collector.gradients()[id(B)]
    assert out is not seed and not np.shares_memory(out, seed)


def test_each_thread_deposits_into_its_own_collector():
    ps = zp.params(W)
    collectors = [Collector(ps) for _ in range(4)]
    barrier = threading.Barrier(4)

    def work(i):
        with context.using(collector=collectors[i]):
            barrier.wait()
            for _ in range(200):
                deposit(W, np.full((2, 2), float(i + 1)))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, collector in enumerate(collectors):
        np.testing.assert_array_equal(collector.gradients()[id(W)], np.full((2, 2), 200.0 * (i + 1)))


def test_holds_parameter_looks_through_objects_containers_slots_and_cells():
    ps = zp.params(W)
    held = W
    assert holds_parameter(W, ps)
    assert holds_parameter(Layer(W, B), ps)
    assert holds_parameter({"a": [(1, W)]}, ps)
    assert holds_parameter(Slotted(W), ps)
    assert holds_parameter(lambda: held, ps)  # a closure cell
    assert not holds_parameter(lambda: W, ps)  # a global read: found by the compiler, not here
    assert not holds_parameter(W.copy(), ps)  # by identity, not by value
    assert not holds_parameter(Layer(B, OTHER), ps)
    assert not holds_parameter(W, None)
