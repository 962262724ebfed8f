"""Objects built and written inside the differentiated function: classes called
with the inputs (their __init__ transformed), dataclasses (frozen too),
inheritance with super(), class attributes, properties, __slots__, class
methods building with cls(...), and methods that write attributes of an object
made in the same call (self.total = self.total + v, self.count += 1), with the
later reads seeing the new values."""

from dataclasses import InitVar, dataclass, field

import numpy as np

from . import Case, rand, rfloat


class Layer:
    def __init__(self, b):
        self.b = b

    def bump(self, v):
        self.b = self.b + v

    def forward(self, x):
        return self.b * x


def bump_then_forward(t):
    """The fuzzer's repro (issue 12): bump's result is unused; d/dt = 1."""
    m = Layer(0.1)
    m.bump(t)
    return m.forward(1.0)


def built_with_the_input(x):
    m = Layer(x * x)
    return m.forward(3.0) + m.b


class Accumulator:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def add(self, v):
        self.total = self.total + v
        self.count += 1

    def mean(self):
        return self.total / self.count


def running_mean(xs):
    acc = Accumulator()
    for v in xs:
        acc.add(v * v)
    return acc.mean()


def written_here(x):
    box = Layer(x)
    box.b = box.b * box.b
    box.b += x
    return box.b * 2.0


def read_before_write(x):
    m = Layer(x)
    old = m.b
    m.b = 0.5 * x * x
    return old * m.b + m.forward(2.0)


def written_in_branches_and_loops(x, n):
    m = Layer(x)
    for i in range(n):
        if i % 2 == 0:
            m.b = m.b * x
        else:
            m.bump(1.5)
    return m.b


@dataclass
class Point:
    x: float
    y: float = 1.0

    def norm2(self):
        return self.x * self.x + self.y * self.y


def dataclass_built(a, b):
    p = Point(a, y=b * 2.0)
    q = Point(b)
    return p.norm2() + q.norm2() * a


@dataclass(frozen=True)
class Frozen:
    w: np.ndarray
    scale: float = 2.0

    def apply(self, x):
        return np.sum(self.w * x) * self.scale


def frozen_dataclass(w, x):
    return Frozen(w * 2.0, scale=x).apply(x)


@dataclass
class Derived:
    base: float
    factor: InitVar[float] = 3.0
    table: list = field(default_factory=list)

    def __post_init__(self, factor):
        self.scaled = self.base * factor
        self.table = [self.scaled, self.base]


def dataclass_post_init(a, f):
    d = Derived(a, f)
    return d.scaled * d.table[1]


@dataclass
class Trajectory:
    pos: float
    history: list = field(default_factory=list)  # left out below: a new list, not the marker
    scale: InitVar[float] = 2.0

    def __post_init__(self, scale):
        self.pos = self.pos * scale

    def step(self, dt):
        self.pos = self.pos - dt * self.pos ** 2
        self.history.append(self.pos)


def dataclass_factory_field_used(a):
    t = Trajectory(a)
    for _ in range(3):
        t.step(0.1)
    return sum(t.history) * t.pos


class Base:
    shift = 0.25  # a class attribute

    def __init__(self, w):
        self.w = w

    def forward(self, x):
        return self.w * x + self.shift


class Child(Base):
    def __init__(self, w, b):
        super().__init__(w * 2.0)
        self.b = b

    def forward(self, x):
        return super().forward(x) * self.b


def inheritance_and_super(w, b):
    return Child(w, b).forward(1.5)


class Squares:
    def __init__(self, w):
        self.w = w

    @property
    def w2(self):
        return self.w * self.w


def property_after_writes(x):
    s = Squares(x)
    first = s.w2
    s.w = s.w * 3.0
    return first + s.w2


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a = a
        self.b = b

    def total(self):
        return self.a * self.b


def slotted(a, b):
    s = Slotted(a, b)
    s.a = s.a + b
    return s.total()


class Made:
    def __init__(self, w, b):
        self.w = w
        self.b = b

    @classmethod
    def create(cls, x):
        return cls(x, 2.0 * x)

    def value(self):
        return self.w * self.b


def class_method_builds(x):
    return Made.create(x).value() + Made.create(1.0).value()


class Model:
    def __init__(self, W1, W2):
        self.layers = [Dense(W1), Dense(W2)]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return np.sum(x)


class Dense:
    def __init__(self, W):
        self.W = W
        self.calls = 0

    def __call__(self, x):
        self.calls += 1
        return np.tanh(self.W @ x)


def model_built_in_the_loss(W1, W2, x):
    model = Model(W1, W2)
    return model(x) + model(x * 0.5)


def reset(m, v):
    m.b = v


def helper_writes(x):
    m = Layer(x)
    y = m.forward(2.0)
    reset(m, x * x * x)
    return y + m.forward(1.0)


def closure_over_a_built_object(x):
    m = Layer(x)
    read = lambda: m.b * 2.0
    m.bump(x)
    return read()


CASES = [
    Case(bump_then_forward, (2.0,), note="the fuzzer's repro: a write in a method whose result is unused"),
    Case(built_with_the_input, (rfloat(seed=1201),)),
    Case(running_mean, ([0.5, 1.5, -0.25],), note="self.total = self.total + v, self.count += 1"),
    Case(written_here, (rfloat(seed=1202),)),
    Case(read_before_write, (0.7,)),
    Case(written_in_branches_and_loops, (1.1, 4), wrt=(0,)),
    Case(dataclass_built, (0.8, -0.3)),
    Case(frozen_dataclass, (rand(3, seed=1203), 0.6)),
    Case(dataclass_post_init, (0.9, 1.7), note="InitVar, default_factory, __post_init__"),
    Case(dataclass_factory_field_used, (0.7,), note="a default_factory field left out, then appended to"),
    Case(inheritance_and_super, (0.4, 1.3)),
    Case(property_after_writes, (0.8,), note="the getter sees the state at its read"),
    Case(slotted, (0.3, 1.2)),
    Case(class_method_builds, (0.6,)),
    Case(model_built_in_the_loss, (rand(3, 2, seed=1204), rand(2, 3, seed=1205), rand(2, seed=1206))),
    Case(helper_writes, (0.7,)),
    Case(closure_over_a_built_object, (0.9,)),
]


class Scaler:
    def __init__(self, w):
        self.w = w

    @property
    def doubled(self):
        return self.w * 2.0

    def apply(self, x):
        return self.w * x


class Shifter(Scaler):
    @property
    def doubled(self):
        return super().doubled + 1.0

    def apply(self, x):
        base = super().apply
        return base(x) + self.w


def super_property_and_bound_method(w, s):
    built = Shifter(w)
    return built.doubled * built.apply(2.0) + s.doubled * s.apply(3.0)


CASES += [
    Case(super_property_and_bound_method, (0.7, Shifter(1.3)),
         note="super().property and super().method as a value, on a built object and an argument"),
]


@dataclass
class Params2:
    w: float
    b: float = 0.5


class Extended(Params2):
    def __init__(self, w, b, k):
        super().__init__(w * k, b=b)
        self.k = k

    def value(self, x):
        return self.w * x + self.b * self.k


class Cooperative(Base):
    def __init__(self, w):
        Base.__init__(self, w * 3.0)  # the base's __init__ called directly


@dataclass
class Inherited(Params2):
    c: float = 2.0

    def value(self):
        return self.w * self.b * self.c


def dataclass_bases(w, b):
    return Extended(w, b, 1.5).value(2.0) + Cooperative(w).forward(b) + Inherited(w, b, c=w).value()


CASES += [
    Case(dataclass_bases, (0.6, -0.8), note="super().__init__ of a dataclass, Base.__init__(self), a dataclass subclass"),
]


class DirectDataclassBase(Params2):
    def __init__(self, w):
        Params2.__init__(self, w, b=w * w)


def dataclass_init_called_directly(w):
    d = DirectDataclassBase(w)
    return d.w * d.b


CASES += [Case(dataclass_init_called_directly, (0.7,))]


class HandFrozen:
    """Frozen by hand: its __init__ writes through object.__setattr__."""

    def __init__(self, w):
        object.__setattr__(self, "w", w)
        object.__setattr__(self, "w2", w * w)

    def __setattr__(self, name, value):
        raise AttributeError("frozen")

    def value(self, x):
        return self.w * x + self.w2


def written_with_object_setattr(w):
    return HandFrozen(w).value(1.5)


CASES += [Case(written_with_object_setattr, (0.8,))]


def read_with_getattr(w):
    o = HandFrozen(w * 2.0)
    name = "w2"
    return getattr(o, "w") * getattr(o, name) + o.value(w)  # getattr(o, "w") is o.w


CASES += [Case(read_with_getattr, (0.7,), note="getattr with a constant name")]


class Key:
    """A dict key by value: its own __eq__ and __hash__ read its attributes."""

    def __init__(self, name, tag):
        self.name = name
        self.tag = tag

    def __eq__(self, other):
        return self.name == other.name

    def __hash__(self):
        return hash(self.name)


def dict_keyed_by_built_objects(a, b):
    # the reads use other, equal Key objects, built after the dict: the backward puts
    # their attributes back (takes them off) before it reaches the dict literal
    d = {Key("a", 1): a * b, Key("b", 2): b}
    return d[Key("a", 9)] * d[Key("b", 0)] + d[Key("a", 3)]


CASES += [Case(dict_keyed_by_built_objects, (0.7, -1.3), note="equal, not identical, keys")]


class Left:
    def __init__(self, x):
        self.a = x
        super().__init__()


class Mixin:
    def __init__(self):
        self.m = 2.0
        super().__init__()


class Joined(Left, Mixin):
    def __init__(self, x):
        super().__init__(x * 3.0)  # Left, then Mixin through the MRO
        self.b = self.a * self.m

    @classmethod
    def make(cls, x):
        return cls(x)


class Further(Joined):
    @classmethod
    def make(cls, x):
        obj = super().make(x + 1.0)  # the base's class method, building a Further
        obj.c = obj.b * x
        return obj


def cooperative_super_and_class_methods(x):
    built = Further.make(x)
    return built.c + built.b


CASES += [Case(cooperative_super_and_class_methods, (0.5,),
               note="super() through a diamond-free MRO chain, super() in a class method")]


class Explicit(Base):
    def __init__(self, w):
        super(Explicit, self).__init__(w + 1.0)

    def forward(self, x):
        return super(Explicit, self).forward(x) * self.w


def two_argument_super(w):
    return Explicit(w).forward(0.5)


CASES += [Case(two_argument_super, (0.3,))]
