"""runtime/objects.py: which attribute reads run a property's getter, and __slots__ names."""

from __future__ import annotations

import numpy as np

import zygote_py as zp
from zygote_py.runtime.objects import class_property, slot_names


class Base:
    @property
    def doubled(self):
        return 2 * self.w

    shadowed = property(lambda self: 0.0)


class Child(Base):
    shadowed = 1.0  # a plain class attribute hides the base's property


class Meta(type):
    @property
    def on_the_class(cls):
        return 1.0


class WithMeta(metaclass=Meta):
    pass


def test_a_python_property_is_found_through_the_mro():
    assert class_property(Base, "doubled") is Base.__dict__["doubled"]
    assert class_property(Child, "doubled") is Base.__dict__["doubled"]


def test_what_the_first_class_in_the_mro_defines_decides():
    assert class_property(Base, "shadowed") is Base.__dict__["shadowed"]
    assert class_property(Child, "shadowed") is None


def test_non_properties_and_missing_names_are_none():
    assert class_property(Base, "__init__") is None
    assert class_property(Base, "missing") is None
    assert class_property(np.ndarray, "T") is None  # a C getter: handled by rules, not pulled back


def test_a_metaclass_property_is_not_an_instance_property():
    assert class_property(WithMeta, "on_the_class") is None


def test_a_property_added_after_a_lookup_is_seen():
    class Late:
        pass

    assert class_property(Late, "value") is None
    Late.value = property(lambda self: 3.0)
    assert class_property(Late, "value") is Late.__dict__["value"]
    del Late.value
    assert class_property(Late, "value") is None


class Scaled:
    def __init__(self, w):
        self.w = w


def total(box):
    return np.sum(box.scaled ** 2)


def test_a_gradient_goes_through_a_property_defined_after_the_first_gradient():
    box = Scaled(np.array([1.0, -2.0]))
    Scaled.scaled = 3.0  # first a class constant: no gradient flows to box through it
    try:
        assert zp.gradient(total, box)[0] == {"w": None}
        Scaled.scaled = property(lambda self: self.w * 5.0)
        (g,) = zp.gradient(total, box)
        np.testing.assert_allclose(g["w"], 50.0 * box.w, rtol=1e-12)
    finally:
        del Scaled.scaled


class SlotBase:
    __slots__ = ("a", "b")


class SlotChild(SlotBase):
    __slots__ = "c"  # noqa: PLC0205  (a single name as a string: slot_names handles it)


def test_slot_names_cover_the_bases():
    assert slot_names(SlotChild) == ["c", "a", "b"]
    assert slot_names(Scaled) == []
