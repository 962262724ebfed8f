"""The structure registry (zygote_py/tree.py): kinds, flatten/unflatten round trips,
accumulation of internal cotangents, finalize's types, zeros and user registration."""

from __future__ import annotations

import collections
import dataclasses
import typing

import numpy as np
import pytest

import zygote_py as zp
from zygote_py import tree


class Pair(typing.NamedTuple):
    w: np.ndarray
    b: float


Point = collections.namedtuple("Point", "x y")


@dataclasses.dataclass
class Dense:
    w: np.ndarray
    n: int


@dataclasses.dataclass(frozen=True)
class Frozen:
    w: np.ndarray
    b: float


@dataclasses.dataclass(slots=True)
class SlotDC:
    w: np.ndarray
    b: float


class Slotted:
    __slots__ = ("scale", "unset", "w")

    def __init__(self, w, scale):
        self.w = w
        self.scale = scale


class Plain:
    def __init__(self, w, name):
        self.w = w
        self.name = name


class Vec2:
    """Registered with the default (attribute) flatten: its gradient is a Vec2."""

    def __init__(self, x, y):
        self.x = x
        self.y = y


tree.register_structure(Vec2)


class Polar:
    """Registered with its own flatten: children named r, theta; a label as aux."""

    def __init__(self, r, theta, label="p"):
        self.r, self.theta, self.label = r, theta, label


tree.register_structure(Polar, lambda p: ({"r": p.r, "theta": p.theta}, p.label),
                        lambda label, kids: Polar(kids["r"], kids["theta"], label))

W = np.array([1.0, -2.0, 0.5])


# -- kinds -----------------------------------------------------------------------------
@pytest.mark.parametrize("value, kind", [
    (1.0, tree.SCALAR), (np.float32(1.0), tree.SCALAR), (1j, tree.SCALAR), (3, tree.LEAF),
    (True, tree.LEAF), ("s", tree.LEAF), (None, tree.LEAF), (np.int64(2), tree.LEAF),
    (W, tree.ARRAY), ((1, 2), tree.TUPLE), ([1], tree.LIST), ({}, tree.DICT),
    (Pair(W, 1.0), tree.RECORD), (Point(1.0, 2.0), tree.RECORD), (Dense(W, 1), tree.OBJECT),
    (Slotted(W, 1.0), tree.OBJECT), (Vec2(1.0, 2.0), tree.CUSTOM), (np.sin, tree.LEAF),
    (len, tree.LEAF), (np, tree.LEAF), (int, tree.LEAF), (lambda: 0, tree.LEAF),
])
def test_kind_of_each_type(value, kind):
    assert tree.kind_of(value) == kind


def test_children_of_slots_and_dataclasses_include_every_set_attribute():
    assert [k for k, _ in tree.children(Slotted(W, 2.0))] == ["scale", "w"]  # `unset` is skipped
    assert [k for k, _ in tree.children(SlotDC(W, 2.0))] == ["w", "b"]
    assert [k for k, _ in tree.children(Frozen(W, 2.0))] == ["w", "b"]
    assert [k for k, _ in tree.children(Pair(W, 2.0))] == [0, 1]
    assert [k for k, _ in tree.children(Polar(1.0, 2.0))] == ["r", "theta"]


@pytest.mark.parametrize("value, active", [
    (1.0, True), (2, False), (np.arange(3), False), (W, True), (W.astype(np.complex128), True),
    ((1, "a", None), False), ((1, 2.0), True), ({"a": [1, (W,)]}, True), ({"a": 1}, False),
    (Pair(W, 1.0), True), (Point(1, 2), False), (Dense(np.arange(2), 3), False),
    (Slotted(W, 1.0), True), (Slotted(np.arange(2), 1), False), (SlotDC(W, 1.0), True),
    (Polar(1.0, 2.0), True), (Polar(1, 2), False), (np.sin, False),
])
def test_is_active(value, active):
    assert tree.is_active(value) is active


def test_is_active_survives_a_cycle_of_objects():
    a, b = Plain(1, "a"), Plain(2, "b")
    a.w, b.w = b, a
    assert tree.is_active(a) is False
    b.name = 3.0
    assert tree.is_active(a) is True


# -- flatten / unflatten ------------------------------------------------------------------
ROUND_TRIPS = [
    1.0, W, (1.0, [2.0, {"k": W}]), Pair(W, 2.0), Point(x=1.0, y=(2.0, 3.0)),
    {"a": Pair(W, 1.0), "b": [Slotted(W, 3.0)]}, Polar(1.0, W, "lab"), Vec2(Pair(W, 1.0), 2.0),
    collections.OrderedDict(a=1.0, b=W), collections.defaultdict(list, a=[W]), Frozen(W, 1.0),
    SlotDC(W, 4.0),
]


def _same(a, b):
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and np.array_equal(a, b)
    if type(a) is not type(b):
        return False
    kids_a, kids_b = tree.children(a), tree.children(b)
    if kids_a or kids_b:
        return [k for k, _ in kids_a] == [k for k, _ in kids_b] and all(
            _same(x, y) for (_, x), (_, y) in zip(kids_a, kids_b))
    return a == b


@pytest.mark.parametrize("value", ROUND_TRIPS, ids=lambda v: type(v).__name__)
def test_flatten_unflatten_round_trip(value):
    leaves, treedef = tree.flatten(value)
    rebuilt = tree.unflatten(treedef, leaves)
    assert _same(rebuilt, value)
    assert tree.flatten(rebuilt)[1] == treedef
    assert treedef.n_leaves == len(leaves)


def test_flatten_orders_leaves_and_unflatten_replaces_them():
    value = {"a": Pair(W, 2.0), "b": [3.0, Point(4.0, 5.0)]}
    leaves, treedef = tree.flatten(value)
    assert leaves[0] is W and leaves[1:] == [2.0, 3.0, 4.0, 5.0]
    doubled = tree.unflatten(treedef, [leaf * 2 for leaf in leaves])
    assert type(doubled["a"]) is Pair and doubled["a"].b == 4.0
    assert doubled["b"][1] == Point(8.0, 10.0)
    np.testing.assert_array_equal(doubled["a"].w, 2 * W)
    with pytest.raises(ValueError, match="6 leaves for a structure of 5"):
        tree.unflatten(treedef, [*leaves, 1.0])


def test_custom_flatten_keeps_its_aux():
    _, treedef = tree.flatten(Polar(1.0, 2.0, "here"))
    rebuilt = tree.unflatten(treedef, [10.0, 20.0])
    assert (rebuilt.r, rebuilt.theta, rebuilt.label) == (10.0, 20.0, "here")
    assert treedef != tree.flatten(Polar(1.0, 2.0, "there"))[1]


# -- accumulate -------------------------------------------------------------------------
def test_accumulate_treats_none_as_zero_and_adds_leaves():
    assert tree.accumulate(None, 2.0) == 2.0 and tree.accumulate(3.0, None) == 3.0
    assert tree.accumulate(None, None) is None
    np.testing.assert_array_equal(tree.accumulate(W, W), 2 * W)


def test_accumulate_structures_child_by_child():
    a = (W, None, {"k": 1.0})
    b = (None, 2.0, {"k": 2.0, "j": 5.0})
    out = tree.accumulate(a, b)
    assert type(out) is tuple and out[0] is W and out[1] == 2.0 and out[2] == {"k": 3.0, "j": 5.0}
    assert tree.accumulate([1.0, None], [2.0, 4.0]) == [3.0, 4.0]


def test_accumulate_sequences_of_different_length_keeps_the_tail():
    assert tree.accumulate([1.0], [2.0, 3.0]) == [3.0, 3.0]
    assert tree.accumulate((1.0, 7.0), (2.0,)) == (3.0, 7.0)


def test_accumulate_positional_and_keyed_cotangents_of_one_record():
    # a record read by index (positional) and by a field name kept keyed
    out = tree.accumulate((1.0, None), {"b": 2.0, 0: 4.0})
    assert out == {0: 5.0, "b": 2.0}
    assert tree.finalize(out, Pair(1.0, 1.0)) == Pair(5.0, 2.0)


def test_accumulate_a_namedtuple_cotangent_adds_fields_not_concatenates():
    out = tree.accumulate(Point(1.0, 2.0), (3.0, None))
    assert tuple(out) == (4.0, 2.0)


# -- finalize -----------------------------------------------------------------------------
def test_finalize_scalars_and_arrays():
    assert type(tree.finalize(np.float64(2.0), 1.0)) is float
    assert tree.finalize(2.0 + 1.0j, 1.0) == 2.0  # a real argument gets the real part
    g32 = tree.finalize(np.ones(3), np.zeros(3, dtype=np.float32))
    assert g32.dtype == np.float32
    broadcast = tree.finalize(2.0, np.zeros((2, 3)))
    assert broadcast.shape == (2, 3) and broadcast.flags.writeable and np.all(broadcast == 2.0)
    view = np.arange(6.0)[::2]
    assert tree.finalize(view, W).base is None  # owned: never a view of something else
    assert tree.finalize(W, np.arange(3)) is None  # an int array is never differentiated
    assert tree.finalize(5.0, 3) is None and tree.finalize(None, 1.0) is None


def test_finalize_mirrors_containers_and_records():
    assert tree.finalize((1.0, None), (2.0, 3.0)) == (1.0, None)
    assert tree.finalize([None, 2.0], [1, 1.0]) == [None, 2.0]
    assert tree.finalize({1: 4.0}, (0.0, 1.0)) == (None, 4.0)  # keyed cotangent of a tuple
    assert tree.finalize({"a": 1.0}, {"a": 0.0, "b": 0.0}) == {"a": 1.0, "b": None}
    g = tree.finalize((W, 3.0), Pair(W, 1.0))
    assert type(g) is Pair and g.b == 3.0 and g.w is not None
    g = tree.finalize({"y": 2.0}, Point(1.0, 1.0))  # a record read by attribute
    assert type(g) is Point and g == Point(None, 2.0)
    assert tree.finalize((1.0, 2.0), Point(1, 2)) is None  # nothing active in it


def test_finalize_objects_give_a_dict_of_attributes():
    assert tree.finalize({"w": W}, Dense(W, 3)) == {"w": W, "n": None}
    g = tree.finalize({"w": W, "scale": 2.0}, Slotted(W, 1.0))
    assert set(g) == {"w", "scale"} and g["scale"] == 2.0
    assert tree.finalize({"b": 1.0}, SlotDC(W, 1.0)) == {"w": None, "b": 1.0}
    assert tree.finalize({"b": 1.0}, Frozen(W, 1.0)) == {"w": None, "b": 1.0}
    assert tree.finalize(3.0, Dense(W, 3)) is None  # not a cotangent of an object


def test_finalize_registered_structures_give_their_own_type():
    g = tree.finalize({"x": 2.0}, Vec2(1.0, 1.0))
    assert type(g) is Vec2 and (g.x, g.y) == (2.0, None)
    g = tree.finalize({"theta": 3.0, "r": 1.0}, Polar(1.0, 1.0, "lab"))
    assert type(g) is Polar and (g.r, g.theta, g.label) == (1.0, 3.0, "lab")
    # a finalized gradient of a registered structure reads back as a cotangent of it
    assert tree.child_cotangent(g, Polar(1.0, 1.0), "theta", 1) == 3.0


def test_keyed_cotangent_is_positional_for_records():
    assert tree.keyed_cotangent(Pair(W, 1.0), "b", 2.0) == (None, 2.0)
    assert tree.keyed_cotangent(Dense(W, 1), "w", W) == {"w": W}
    assert tree.keyed_cotangent(Pair(W, 1.0), "b", None) is None


# -- zeros ---------------------------------------------------------------------------------
def test_zeros_like_mirrors_the_internal_cotangent_form():
    z = tree.zeros_like({"a": Pair(np.arange(3), 1.0), "b": [Slotted(W, 1.0)]})
    assert type(z["a"]) is tuple and z["a"][0].dtype == np.float64 and z["a"][1] == 0.0
    assert z["b"][0]["w"].shape == W.shape and z["b"][0]["scale"] == 0.0
    assert tree.zeros_like(np.zeros(2, dtype=np.complex64)).dtype == np.complex128


# -- registration ----------------------------------------------------------------------------
def test_register_structure_reclassifies_types_seen_before():
    class Late:
        def __init__(self, v):
            self.v = v

    assert tree.kind_of(Late(1.0)) == tree.OBJECT
    assert zp.register_structure(Late) is Late
    assert tree.kind_of(Late(1.0)) == tree.CUSTOM
    assert type(tree.finalize({"v": 1.0}, Late(2.0))) is Late


def test_register_structure_rejects_bad_input_with_a_zygote_error():
    with pytest.raises(zp.StructureError, match="expects a class"):
        zp.register_structure(Vec2(1.0, 2.0))
    with pytest.raises(zp.StructureError, match="flatten and unflatten"):
        zp.register_structure(Plain, flatten=lambda p: ({}, None))

    class Bad:
        pass

    zp.register_structure(Bad, lambda b: [1.0], lambda aux, kids: Bad())
    with pytest.raises(zp.StructureError, match="returned list"):
        tree.is_active(Bad())
    assert issubclass(zp.StructureError, zp.ZygoteError)


def test_a_gradient_for_an_attribute_flatten_leaves_out_is_an_error_not_dropped():
    class Renamed:
        def __init__(self, r):
            self.r = r

    zp.register_structure(Renamed, lambda p: ({"radius": p.r}, None), lambda aux, kids: Renamed(kids["radius"]))
    assert tree.finalize({"radius": 2.0}, Renamed(1.0)).r == 2.0
    assert tree.finalize({"r": None}, Renamed(1.0)).r is None  # no gradient there: nothing lost
    with pytest.raises(zp.StructureError, match=r"Renamed\.r, which the flatten"):
        tree.finalize({"r": 2.0}, Renamed(1.0))


def test_unflatten_keeps_a_defaultdict_factory():
    leaves, treedef = tree.flatten(collections.defaultdict(list, a=1.0))
    rebuilt = tree.unflatten(treedef, [2.0])
    assert type(rebuilt) is collections.defaultdict and rebuilt["a"] == 2.0
    assert rebuilt["missing"] == [] and leaves == [1.0]
