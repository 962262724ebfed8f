"""Objects built inside a differentiated call, and the writes into their attributes.

Calling a user class with transformed code (`Layer(w)`) makes the object with
`object.__new__` and runs its `__init__` transformed (a dataclass's generated
`__init__`, which has no source, is replayed field by field here).  Such an
object is *tracked*: it is entered in the `ObjectLedger` of the gradient call
running now (`Context.objects`, made by api.py for every call), and only a
tracked object's attributes are written by transformed code with derivatives
(`set_attribute`, what `obj.name = v` lowers to).  An object from outside the
call (an argument, a global, a closure value, one reached through them, one
made by code that ran untransformed) is *adopted* at its first write: tracked
from then on like a built one, so that the caller sees the write and later
reads see the new value, and released when the backward undoes that first
write (`released_cotangent`): what its slots hold then are the derivatives of
its values at call time, which travel, as the object's cotangent, to where it
came from.  Classes, modules and functions are not written (MutationError).

Derivatives follow Zygote's treatment of mutable structs: the cotangent of a
tracked object does not travel with the SSA value (its attributes change under
it) but lives in the ledger, one slot per attribute, keyed by the object's
identity:

  - the adjoint of a read `obj.name` adds its cotangent into the slot
    (`deposit`, called from `dispatch.attribute_cotangent` through
    `tree.keyed_cotangent`'s callers), and the object itself gets None;
  - the adjoint of a write `obj.name = v` takes the slot out
    (`take_attribute`): what the reads after the write gathered is v's
    cotangent, and reads before it start a fresh slot.

The backward runs the writes' adjoints in reverse order, and each also puts
the attribute's old value back, so that at every point of the backward pass a
tracked object holds the state the forward pass had there (a property's
getter, differentiated when its cotangent arrives, reads the right values).
When the backward is done, `ObjectLedger.replay` writes the final values
again: the caller sees the objects as the forward pass left them.

A call whose back may do such work (it writes or builds tracked objects) is
marked with `_zp_effects`: `must_run_back` says to run it even when no cotangent reaches
its result (`m.bump(t)`, whose result is unused, still moves t's derivative).
"""

from __future__ import annotations

import dataclasses
import inspect
import types

from .. import context
from ..errors import (
    MutationError,
    NoDerivativeRule,
    SourceUnavailable,
    UnsupportedSyntax,
    ZygoteError,
)
from ..tree import accumulate, is_active

_ABSENT = object()  # an attribute that did not exist before a write


class ObjectLedger:
    """The tracked objects of one gradient call and the cotangents of their attributes.

    tracked      id -> object, for every object built by transformed code (the reference
                 keeps the id from being reused while the call runs);
    cotangents   id -> {attribute: cotangent gathered by reads since the last write};
    log          every write, (object, name, value), in order: replayed after a backward;
    versions     id -> number of writes so far (construction ends at `built[id]`);
    forward      for the ledger of a pullback's backward run, the forward's: its objects
                 may not be written now, and its log is what `replay` writes again;
    adopted      id -> number of writes not yet undone, for every object from outside the
                 call (an argument, a global, a closure value, one reached through them)
                 that transformed code wrote into: tracked from its first write on, and
                 released when the backward undoes that write (adopt, released_cotangent);
    claims       id -> Claim, for every module-level or captured list or dict a function
                 of the call claimed (runtime/outside_containers.py: claim_outside);
    derived_keys id -> a float dict key put in from a value that may carry a derivative
                 (runtime/containers.py: note_derived_key)."""

    __slots__ = ("adopted", "built", "claims", "cotangents", "derived_keys", "forward", "log",
                 "tracked", "versions")

    def __init__(self):
        self.tracked: dict[int, object] = {}
        self.cotangents: dict[int, dict] = {}
        self.log: list = []
        self.versions: dict[int, int] = {}
        self.built: dict[int, int] = {}
        self.adopted: dict[int, int] = {}
        self.forward: ObjectLedger | None = None
        # id -> the Claim of a module-level or captured list or dict that a function of this
        # call updates in place (runtime/outside_containers.py: claim_outside); a gradient
        # call made inside another (a nested zp.gradient) shares the outer call's claims:
        # its reads of a claimed container are refused as the outer call's are
        outer = context.current().objects
        self.claims: dict = outer.claims if outer is not None else {}
        # id -> a float dict key that differentiated code put in a dict from a value that may
        # carry a derivative (runtime/containers.py: note_derived_key); the backward refuses
        # a derivative reaching such a key when it is read back (refuse_key_cotangent)
        self.derived_keys: dict[int, object] = {}

    def for_backward(self) -> ObjectLedger:
        """A ledger for one run of a pullback's backward: the forward's objects, cotangent
        slots of its own (a pullback may be run more than once); objects a property's
        getter builds while it runs are its own."""
        view = ObjectLedger()
        view.derived_keys = self.derived_keys
        view.tracked, view.versions, view.built, view.adopted = \
            dict(self.tracked), dict(self.versions), dict(self.built), dict(self.adopted)
        view.forward = self
        view.claims = self.claims  # (read-only there: a backward claims nothing)
        self.check_unchanged()
        return view

    def check_unchanged(self) -> None:
        """Before a pullback's backward runs: the objects from outside that the forward wrote
        still hold what it wrote (the backward undoes those writes one by one and `replay`
        writes them again, which would lose a change made in between)."""
        final = {}
        for obj, name, value in self.log:
            if id(obj) in self.adopted:
                final[(id(obj), name)] = (obj, value)
        for (_, name), (obj, value) in final.items():
            if _stored(obj, name) is not value:
                raise ZygoteError(
                    f"{type(obj).__name__}.{name} was changed after the forward pass that wrote "
                    "it, before its pullback ran", None,
                    "run the pullback before using the object again, or take the gradient "
                    "with zp.gradient in one call")

    def replay(self) -> None:
        """Write every logged value of the forward pass again, in order: its final state."""
        for obj, name, value in (self.forward or self).log:
            object.__setattr__(obj, name, value)


def _ledger() -> ObjectLedger | None:
    return context.current().objects


def is_tracked(obj) -> bool:
    """obj was built by transformed code in the gradient call running now."""
    ledger = context.current().objects
    return ledger is not None and id(obj) in ledger.tracked


def gathered_cotangents(obj) -> dict | None:
    """The slots of a tracked object, {attribute: cotangent gathered since its last write}
    (runtime/writes.py moves the parts that belong to an array written in place)."""
    ledger = context.current().objects
    return ledger.cotangents.get(id(obj)) if ledger is not None else None


def track(obj, loc) -> ObjectLedger:
    ledger = _ledger()
    if ledger is None:
        raise ZygoteError("an object was built by differentiated code outside a gradient call", loc,
                          "call the function through zp.gradient / zp.pullback")
    ledger.tracked[id(obj)] = obj
    ledger.versions[id(obj)] = 0
    return ledger


# -- the forward: writes --------------------------------------------------------------
def set_attribute(obj, name, value, loc):
    """`obj.name = value` in transformed code: the write itself, on a tracked object only.
    Returns the attribute's previous value (or a marker that it had none), which the
    backward puts back."""
    ledger = context.current().objects
    if ledger is None:
        raise ZygoteError("an attribute is written by differentiated code outside a gradient "
                          "call", loc, "call the function through zp.gradient / zp.pullback")
    if ledger.forward is not None and (id(obj) in ledger.forward.tracked
                                       or id(obj) not in ledger.tracked):
        raise ZygoteError(f"an attribute (.{name}) is written while the backward pass runs "
                          "(a property getter that writes?)", loc, "make getters read only")
    if id(obj) not in ledger.tracked:
        _refuse_shared(obj, name, loc)
    setter = type(obj).__setattr__
    if setter is not object.__setattr__:
        params = getattr(type(obj), "__dataclass_params__", None)
        if params is not None and params.frozen:  # what Python says, from the object itself
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        raise MutationError(f"{type(obj).__name__} defines __setattr__; a write through it is "
                            "not differentiated", loc, "write attributes of a class without "
                            "__setattr__, or build a new object")
    descriptor = _class_attribute(type(obj), name)
    if descriptor is not None and hasattr(type(descriptor), "__set__") \
            and not isinstance(descriptor, types.MemberDescriptorType):
        raise MutationError(f"{type(obj).__name__}.{name} is a property or descriptor with a "
                            "setter; writing through it is not differentiated", loc,
                            "write the attribute the setter writes directly")
    if id(obj) not in ledger.tracked:
        adopt(ledger, obj, name, loc)
    return _write(ledger, obj, name, value)


def adopt(ledger: ObjectLedger, obj, name, loc) -> None:
    """obj, from outside the call, is written for the first time: from now on it is tracked
    as a built object is (its reads deposit into its slots, its writes are undone by the
    backward), until the backward undoes this first write (`released_cotangent`)."""
    _refuse_shared(obj, name, loc)
    ledger.tracked[id(obj)] = obj
    ledger.versions[id(obj)] = 0
    ledger.built[id(obj)] = 0
    ledger.adopted[id(obj)] = 0


def _refuse_shared(obj, name, loc) -> None:
    """Only instances of ordinary classes are adopted: a class, module or function holds
    state that compiled code and other callers share (and the compiler may have read)."""
    if isinstance(obj, (type, types.ModuleType, types.FunctionType, types.MethodType,
                        types.BuiltinFunctionType)):
        raise MutationError(
            f"assigning to .{name} writes into a {type(obj).__name__} "
            f"({getattr(obj, '__qualname__', getattr(obj, '__name__', '?'))}), whose attributes "
            "other code shares; zygote_py differentiates writes into instances only", loc,
            "keep the state on an instance (self.name = ...), or return the new value")


def object_set_attribute(obj, name, value, loc):
    """`object.__setattr__(obj, name, value)` (what a frozen class's __init__ writes with)."""
    ledger = context.current().objects
    if ledger is None or id(obj) not in ledger.tracked or ledger.forward is not None \
            and id(obj) in ledger.forward.tracked:
        return set_attribute(obj, name, value, loc)  # adopted, or refused, there
    return _write(ledger, obj, name, value)


def _write(ledger: ObjectLedger, obj, name, value):
    old = _stored(obj, name)
    object.__setattr__(obj, name, value)
    ledger.log.append((obj, name, value))
    ledger.versions[id(obj)] += 1
    if id(obj) in ledger.adopted:
        ledger.adopted[id(obj)] += 1
    return old


def _stored(obj, name):
    """The value the instance itself holds for name (its __dict__ or slot), or _ABSENT."""
    held = getattr(obj, "__dict__", None)
    if held is not None and name in held:
        return held[name]
    descriptor = _class_attribute(type(obj), name)
    if isinstance(descriptor, types.MemberDescriptorType):  # a __slots__ slot
        try:
            return descriptor.__get__(obj, type(obj))
        except AttributeError:
            return _ABSENT
    return _ABSENT


def _class_attribute(cls, name):
    for klass in cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    return None


# -- the backward: reads add, writes take -------------------------------------------------
def deposit(obj, name, g) -> bool:
    """Add g, the cotangent of a read of obj.name, into obj's slot when obj is tracked;
    False (nothing done) otherwise."""
    ledger = context.current().objects
    if ledger is None or id(obj) not in ledger.tracked:
        return False
    if g is not None:
        if name == "__dict__":  # a derivative through obj.__dict__[...] would bypass the slots
            raise ZygoteError(f"a derivative flows through {type(obj).__name__}.__dict__ of an "
                              "object built or written in this call", None,
                              "read the attribute itself (obj.name), or getattr is not needed")
        slots = ledger.cotangents.setdefault(id(obj), {})
        slots[name] = accumulate(slots.get(name), g)
    return True


def take_attribute(obj, name, old, new):
    """The adjoint of `obj.name = new`: new's cotangent (what reads after the write
    gathered), and obj.name set back to old, the value it had before the write.  The
    later writes are undone by now, so obj.name is new again, unless code that ran
    without derivatives wrote it (then the reads' derivatives cannot be placed)."""
    ledger = context.current().objects
    slots = ledger.cotangents.get(id(obj)) if ledger is not None else None
    g = slots.pop(name, None) if slots else None
    adopted = ledger is not None and id(obj) in ledger.adopted
    if (g is not None or adopted) and _stored(obj, name) is not new:
        raise _unseen_write(obj, name)
    if adopted:
        ledger.adopted[id(obj)] -= 1
    if old is _ABSENT:
        try:
            object.__delattr__(obj, name)
        except AttributeError:
            pass
    else:
        object.__setattr__(obj, name, old)
    return g


def released_cotangent(obj):
    """After the adjoint of a write into obj (take_attribute): when obj came from outside
    the call and this was its first write, obj is released, and what its slots gathered
    -- the reads of attributes at their values from before that write, which are the values
    obj had when it came in -- is returned as obj's cotangent, {name: g}, to travel to
    wherever obj came from (an argument, a global, an attribute of another object).  The
    reads before the first write run their adjoints later, with obj no longer tracked, so
    their cotangents take that same way.  None for any other write."""
    ledger = context.current().objects
    key = id(obj)
    if ledger is None or ledger.adopted.get(key, 1) != 0:
        return None
    del ledger.adopted[key]
    ledger.tracked.pop(key, None)
    left = ledger.cotangents.pop(key, None)
    if not left:
        return None
    if "__dict__" in left:
        raise ZygoteError(f"a derivative flows through {type(obj).__name__}.__dict__ of an "
                          "object written in this call", None, "read the attribute itself")
    out = {name: g for name, g in left.items() if g is not None}
    return out or None


def check_underived_result(y, what, loc):
    """After a call that ran without derivatives (no operand of it was active, so it ran as
    plain Python): refused when an object from outside was written with derivatives in this
    gradient call and the result could carry one -- the call may have read such an object
    (`def readout(): return model.state`), and its derivative would be lost."""
    ledger = context.current().objects
    if ledger is not None and ledger.claims:
        raise MutationError(
            f"{what} ran without derivatives (none of its arguments carries one), after a "
            "module-level or captured list or dict was updated with derivatives in this "
            "gradient call: it may read that container, and would miss their derivatives", loc,
            "pass the list or dict (or the values) to it as an argument")
    if ledger is None or not ledger.adopted or not _could_carry(y):
        return y
    raise MutationError(
        f"{what} ran without derivatives (none of its arguments carries one), but an object "
        "from outside this call was written with a derivative before it, which it may read; "
        "its result would miss that derivative", loc,
        "pass the object (or the value) to it as an argument, or read the attribute in the "
        "differentiated code itself")


def check_underived_argument(value, rule, name, loc):
    """In the backward, at a call of a rule with no derivative for its argument `name`,
    given a value read from an object that was not an input (`np.interp(x, cfg.xp, fp)`
    with a global cfg): refused when an object from outside was written with derivatives
    before the call (the value may carry one, which the rule would drop)."""
    ledger = context.current().objects
    if ledger is not None and ledger.adopted and _could_carry(value):
        raise NoDerivativeRule(
            f"the rule for {rule} has no derivative with respect to its argument {name!r}, "
            "which may depend on the inputs through an object written in this call", loc,
            "wrap that argument in zp.stop_gradient(...), or register a rule with @zp.adjoint")


def _could_carry(y) -> bool:
    return is_active(y)


def must_run_back(back, g) -> bool:
    """Whether back(g) must run: g is not None, or back has effects to run."""
    return g is not None or getattr(back, "_zp_effects", False)


def with_effects(new, back):
    """new (a wrapper of back), marked as back is."""
    if getattr(back, "_zp_effects", False):
        new._zp_effects = True
    return new


def settle(obj, g, loc=None):
    """At the construction of a tracked obj: g, a cotangent of obj that no read deposited
    (a custom rule's, a pullback's seed), is added to its slots when no write came after the
    construction (the fields then held these values throughout); otherwise refused."""
    if g is None or not _has_content(g):
        return
    ledger = context.current().objects
    key = id(obj)
    if ledger.versions.get(key) != ledger.built.get(key):
        raise ZygoteError(
            f"a derivative of a {type(obj).__name__} built in this call reached it whole, not "
            "through its attribute reads, after its attributes were written again", loc,
            "read the attributes in differentiated code (not through a custom rule), or return "
            "the values rather than the object")
    deposit_whole(obj, g, loc)


def deposit_whole(obj, g, loc=None) -> None:
    """Add g, a cotangent of the tracked obj as a whole at this point of the backward (a
    dict by attribute name, or an object of its class), into its slots."""
    if isinstance(g, dict):
        items = g.items()
    elif not isinstance(g, (tuple, list)) and hasattr(g, "__dict__"):
        items = vars(g).items()
    else:
        raise ZygoteError(f"a derivative of a {type(obj).__name__} built in this call has a form "
                          f"({type(g).__name__}) zygote_py cannot place in its attributes", loc,
                          "give its derivative as a dict of attribute names")
    for name, part in items:
        deposit(obj, name, part)


def _has_content(g) -> bool:
    if isinstance(g, dict):
        return any(_has_content(v) for v in g.values())
    if isinstance(g, (tuple, list)):
        return any(_has_content(v) for v in g)
    return g is not None


def settle_seed(y, dy):
    """A pullback's seed dy for its output y: the parts for tracked objects in y go to their
    slots now (the output's final state), and are None in what is returned."""
    if dy is None:
        return None
    ledger = context.current().objects
    if ledger is None or not ledger.tracked:
        return dy
    return _settle_seed(ledger, y, dy, 0)


def _settle_seed(ledger, y, dy, depth):
    if dy is None or depth > 32:
        return dy
    if id(y) in ledger.tracked:
        deposit_whole(y, dy)
        return None
    if type(y) in (tuple, list) and isinstance(dy, (tuple, list)) and len(y) == len(dy):
        return type(dy)(_settle_seed(ledger, a, b, depth + 1) for a, b in zip(y, dy))
    if type(y) is dict and isinstance(dy, dict):
        return {k: _settle_seed(ledger, y.get(k), v, depth + 1) for k, v in dy.items()}
    return dy


def super_of(cls, obj):
    """`super()` in a method of cls called on obj (frontend/lower_objects.py)."""
    return super(cls, obj)


# -- construction ---------------------------------------------------------------------
def construct(cls, flat, loc, function_pullback, origins_of, spread):
    """(obj, back) for calling cls (resolve.CONSTRUCT) with the flattened call flat:
    object.__new__, then __init__ transformed (a dataclass's generated __init__ replayed
    here).  back(g) gives (None, *one cotangent per operand); it runs whatever g is, since
    the writes' adjoints move the derivatives of the arguments.  function_pullback,
    origins_of and spread are dispatch's (passed in: dispatch imports this module)."""
    obj = object.__new__(cls)
    ledger = track(obj, loc)
    init = _class_attribute(cls, "__init__")
    if _generated_by_dataclass(cls):
        return _construct_dataclass(cls, obj, ledger, flat, loc, function_pullback, origins_of,
                                    spread)
    if init is object.__init__:
        init(obj, *flat.args, **flat.kwargs)  # Python's own error for unexpected arguments
        ledger.built[id(obj)] = ledger.versions[id(obj)]
        n = len(flat.origin)
        return obj, _effects(lambda g: (settle(obj, g, loc), class_attribute_cotangents(obj),
                                        *([None] * n))[1:])
    try:
        _, init_back = function_pullback(init, flat, prefix=(obj,))
    except (UnsupportedSyntax, SourceUnavailable):  # found before any of it ran
        if flat.any_active():
            raise
        # an __init__ that cannot be transformed, called without derivatives: built as
        # Python builds it, and not tracked (its attributes cannot be written later)
        del ledger.tracked[id(obj)]
        n = len(flat.origin)
        return cls(*flat.args, **flat.kwargs), lambda g: (None,) * (1 + n)
    ledger.built[id(obj)] = ledger.versions[id(obj)]

    def back(g):
        settle(obj, g, loc)
        out = init_back(None) if getattr(init_back, "_zp_effects", False) else \
            (None,) * (2 + len(flat.origin))
        class_attribute_cotangents(obj)
        return (None, *out[2:])  # past the cells' and self's cotangents

    return obj, _effects(back)


def class_attribute_cotangents(obj) -> None:
    """What is left in obj's slots once its construction is undone: reads of attributes
    its instance did not hold (class attributes).  In a Params call they go to the
    parameters the class holds; otherwise they are derivatives of constants."""
    ctx = context.current()
    left = ctx.objects.cotangents.pop(id(obj), None)
    for name, g in (left or {}).items():
        if g is not None and _stored(obj, name) is not _ABSENT:
            raise _unseen_write(obj, name)  # not ours (undone by now): a cached_property, say
        if ctx.collector is not None:
            ctx.collector.walk(_class_attribute(type(obj), name), g)


def _unseen_write(obj, name) -> ZygoteError:
    return ZygoteError(
        f"{type(obj).__name__}.{name} of an object built in this call was written by code that "
        "ran without derivatives (a functools.cached_property, a library function, a "
        "non-differentiable call), so the derivatives of its reads cannot be placed", None,
        "write the attribute in the differentiated code itself (self.name = ...)")


def _effects(back):
    back._zp_effects = True
    return back


def _generated_by_dataclass(cls) -> bool:
    """cls's __init__ is the one @dataclass wrote (it has no source to transform)."""
    return is_dataclass_init(_class_attribute(cls, "__init__"))


def is_dataclass_init(f) -> bool:
    """f looks like an __init__ that @dataclass generated (text compiled from a string, so
    no source: dataclass_init replays it; the class it belongs to is checked there)."""
    return isinstance(f, types.FunctionType) and f.__name__ == "__init__" \
        and f.__code__.co_filename == "<string>" and f.__qualname__.endswith(".__init__")


def _construct_dataclass(cls, obj, ledger, flat, loc, function_pullback, origins_of, spread):
    """Construction of a dataclass whose __init__ is generated (see dataclass_init)."""
    _, init_back = dataclass_init(_class_attribute(cls, "__init__"), flat, (obj,), loc,
                                  function_pullback, origins_of, spread)
    ledger.built[id(obj)] = ledger.versions[id(obj)]

    def back(g):
        settle(obj, g, loc)
        out = init_back(None)
        class_attribute_cotangents(obj)
        return (None, *out[2:])

    return obj, _effects(back)


NO_FIELD_VALUE = object()  # a field the generated __init__ does not set


def dataclass_field_value(field, given: dict):
    """What a dataclass's generated __init__ stores in field, given its arguments bound
    *without* their defaults: the argument passed, else the field's default, else a new
    default_factory() (the signature's default is then only a marker object, which the
    generated code replaces); NO_FIELD_VALUE for a field it leaves unset."""
    if field.init and field.name in given:
        return given[field.name]
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return NO_FIELD_VALUE


def dataclass_init(init, flat, prefix, loc, function_pullback, origins_of, spread):
    """(None, back) for init(*prefix, *flat), init a dataclass's generated __init__ and
    prefix (self,): what it does, done here (it has no source): each field set from its
    argument, its default or its default_factory, then __post_init__ with the InitVars.
    back(g) gives (None, self's cotangent (None), *one per operand), as a function's.
    self may come first in flat instead (`Base.__init__(self, ...)`), with no prefix."""
    obj = (*prefix, *flat.args)[0]
    ledger = context.current().objects
    if ledger is None or id(obj) not in ledger.tracked:
        set_attribute(obj, "__init__", None, loc)  # refused, with set_attribute's message
    cls = next((k for k in type(obj).__mro__ if vars(k).get("__init__") is init), None)
    if cls is None or "__dataclass_params__" not in vars(cls):
        raise SourceUnavailable(f"{init.__qualname__} has no source (it was compiled from a "
                                "string) and is not a dataclass's", loc,
                                "register a rule for it with @zp.adjoint")
    sig = inspect.signature(init)
    given = sig.bind(*prefix, *flat.args, **flat.kwargs).arguments  # (defaults: below)
    written = []  # (field name, previous value, value written), in order
    initvars = []
    for field in cls.__dataclass_fields__.values():
        kind = getattr(field, "_field_type", None)
        if kind is dataclasses._FIELD_INITVAR:
            initvars.append(field.name)
            continue
        if kind is not dataclasses._FIELD:
            continue  # a ClassVar
        value = dataclass_field_value(field, given)
        if value is NO_FIELD_VALUE:
            continue
        written.append((field.name, _write(ledger, obj, field.name, value), value))
    post_back = None
    post_init = _class_attribute(type(obj), "__post_init__")
    if post_init is not None:
        values = [given.get(name, cls.__dataclass_fields__[name].default) for name in initvars]
        _, post_back = function_pullback(post_init, type(flat)(values, [None] * len(values)),
                                         prefix=(obj,))
    shifted = type(flat).prefixed(prefix, flat)
    origins = origins_of(sig, shifted)

    def back(g):
        by_name = {}
        if post_back is not None and getattr(post_back, "_zp_effects", False):
            out = post_back(None)
            by_name.update(zip(initvars, out[2:]))
        for name, old, new in reversed(written):
            by_name[name] = take_attribute(obj, name, old, new)
        arg_bars, kw_bars = spread(origins, by_name, shifted)
        return (None, *arg_bars[:len(prefix)], *flat.regroup(arg_bars[len(prefix):], kw_bars))

    return None, _effects(back)
