"""Forward mode through attribute writes: a tangent per attribute written, kept by the object.

Reverse mode keeps the cotangents of an object's attributes in the gradient call's
ObjectLedger (runtime/built_objects.py), because the attributes change under the SSA
values.  Forward mode has the same problem the other way round: `m.state = h` changes
what every later read of `m.state` sees -- through this name, another name, a list
holding `m`, a method of `m`, a function `m` is passed to -- and those reads must see h's
tangent.  So the tangent of a written attribute does not travel with an SSA value either:
the forward-mode call (zp.jvp, and so zp.hessian's forward pass) holds an
`ObjectTangents` book in its Context, keyed by the object's identity, and

  - `attribute_write` (what `obj.name = v` becomes in forward-mode code) performs the write
    exactly as reverse mode does (built_objects.set_attribute: the same refusals of
    classes, modules, `__setattr__`, property setters, frozen dataclasses) and records
    (the value written, its tangent) under the object;
  - `attribute_read` (every attribute read of a value that may be an object) returns the
    recorded tangent when the attribute still holds the value recorded, and otherwise asks
    the object's own tangent as before (forward_dispatch.jvp_attr).  An attribute that
    holds something else than what forward-mode code wrote there was written by code
    forward mode did not follow: refused (unless no tangent was recorded anywhere yet,
    when the new value cannot carry one), never a stale tangent.

An object with recorded attributes has no tangent of its own, but its calls are not
plain Python any more: a method of it, or a function it is passed to, may read those
attributes.  Such an object is given the tangent `Written()` (an empty dict of
attribute tangents that does not count as zero), so the forward dispatcher transforms
those calls instead of running them plainly.  A call of user code that carries no
tangent at all after an attribute was written with one (it may read that object through
a global) is refused when its result could carry a derivative, as reverse mode refuses
it (`check_underived_result`).

A class called in forward-mode code (`Layer(w)`) is built as reverse mode builds it:
`object.__new__`, then its `__init__` transformed (a dataclass's generated `__init__`
replayed field by field), its writes recorded in the book; the object's tangent is
`Written()`.  `materialize` turns the tangent of an object in zp.jvp's result into the
dict of its attributes' tangents the user sees.

Forward over reverse (zp.hessian of code that writes attributes): gradient code runs
`set_attribute` in its forward part (followed by `attribute_write`, which also returns the old
value's tangent), and in its backward `take_attribute` (which puts the old value back:
the book takes the old tangent back too), `attribute_cotangent` deposits and
`released_cotangent`.  Those move cotangents through the ledger's slots; their tangents
move through `ObjectTangents.slots` the same way (`deposit_jvp`, `take_attribute_jvp`,
`released_cotangent_jvp`).
"""

from __future__ import annotations

import dataclasses
import inspect
import types

from .. import context
from ..errors import MutationError, NoDerivativeRule, ZygoteError
from ..resolve import CONSTRUCT, PROPERTY, RULE, getattr_hook, resolve, resolve_attribute
from ..rules import registry
from ..runtime import built_objects, writes
from ..runtime.containers import refuse_container_update
from ..tree import accumulate, is_active
from . import dispatch
from . import forward_dispatch as fwd


class Written(dict):
    """The tangent of an object whose attributes forward-mode code wrote (their tangents are
    in the call's ObjectTangents): no attribute tangent of its own, yet not a zero tangent,
    so that calls it is passed to are transformed rather than run plainly."""

    __slots__ = ()


class ObjectTangents:
    """The forward-mode call's tangents of the attributes it wrote.

    fields   id(obj) -> {name: (the value written, its tangent)};
    held     id(obj) -> obj (the reference keeps the id from being reused during the call);
    slots    id(obj) -> {name: the tangent of the cotangent in the reverse ledger's slot}
             (forward over reverse: gradient code's attribute cotangents);
    moves    how many tangents that may be nonzero were recorded (never decreases);
    first    (id(obj), name) -> (obj, name, the value before the call's first write):
             what `undo_writes` puts back (None where code run plainly wrote it first)."""

    __slots__ = ("at_call_state", "fields", "first", "held", "moves", "slots")

    def __init__(self, at_call_state: bool = False):
        self.fields: dict[int, dict] = {}
        self.held: dict[int, object] = {}
        self.slots: dict[int, dict] = {}
        self.first: dict[tuple, tuple] = {}
        self.moves = 0
        # one column of several (zp.hessian, a forward zp.jacobian): the call leaves what it
        # wrote as it found it (restore_final, undo_writes), so the next column starts there
        self.at_call_state = at_call_state

    def undo_writes(self) -> None:
        """Put every attribute the call wrote back to its value from before the call: the
        columns of zp.hessian and of a forward zp.jacobian each start from the state the
        first one started from, as one call of f sees it."""
        for entry in self.first.values():
            if entry is None:  # first written by code run plainly (see _written_before)
                continue
            obj, name, old = entry
            if old is built_objects._ABSENT:
                try:
                    object.__delattr__(obj, name)
                except AttributeError:
                    pass
            else:
                object.__setattr__(obj, name, old)

    def enter(self, obj) -> dict:
        key = id(obj)
        entry = self.fields.get(key)
        if entry is None:
            entry = self.fields[key] = {}
            self.held[key] = obj
        return entry


def _book(loc) -> ObjectTangents:
    book = context.current().object_tangents
    if book is None:
        raise NoDerivativeRule(
            "forward mode does not follow attribute writes into objects here (forward-mode "
            "code run outside zp.jvp / zp.hessian, such as a nested derivative's)", loc,
            "write the computation without the attribute write, or use reverse mode")
    return book


def _unseen(obj, name, loc) -> ZygoteError:
    return ZygoteError(
        f"{type(obj).__name__}.{name}, written with a derivative by forward-mode code, was "
        "changed since by code forward mode did not follow (a call that carried no "
        "derivative, a library function), so its tangent is unknown", loc,
        "write the attribute in the differentiated code itself, or pass the object to the "
        "code that changes it")


# -- writes and reads ------------------------------------------------------------------------
def _written_before(obj, name) -> bool:
    """Whether the call's ledger logged a write of obj.name before the one just made: a write
    by gradient code run plainly (a call dispatched while the gradient runs, none of whose
    inputs moved), not recorded here.  The value this write replaced is then not the one
    from before the call, so `undo_writes` leaves that attribute alone: the gradient's
    backward, which takes every logged write back, has put it back already."""
    log = context.current().objects.log
    return any(o is obj and n == name for o, n, _ in log[:-1])


def attribute_write(obj, obj_dot, name, value, value_dot, loc, form=built_objects.set_attribute):
    """`obj.name = value` in forward-mode code: the write, as reverse mode makes it, and its
    tangent recorded.  Returns (the old value, its tangent) -- what gradient code's backward
    puts back (forward over reverse)."""
    book = context.current().object_tangents
    if book is None:  # forward-mode code run by a nested derivative, not by zp.jvp
        if value_dot is not None:
            _book(loc)  # refused
        return form(obj, name, value, loc), None
    if context.current().objects is None:
        raise ZygoteError("forward-mode code wrote an attribute outside zp.jvp", loc,
                          "call generated forward code through zp.jvp")
    old = form(obj, name, value, loc)
    key = (id(obj), name)
    if key not in book.first:
        book.first[key] = None if _written_before(obj, name) else (obj, name, old)
    entry = book.enter(obj)
    previous = entry.get(name)
    if previous is not None:
        if previous[0] is old:
            old_dot = previous[1]
        elif fwd.has_tangent(previous[1]):
            raise _unseen(obj, name, loc)
        else:
            old_dot = None
    elif old is built_objects._ABSENT or type(obj_dot) is Written:
        old_dot = None
    else:
        old_dot = fwd.tangent_attr(obj_dot, name)
    entry[name] = (value, value_dot)
    if value_dot is not None:
        book.moves += 1
    return old, old_dot


def attribute_read(obj, obj_dot, name, loc):
    """`obj.name` in forward-mode code: (value, tangent), the tangent the last write recorded
    where there was one."""
    book = context.current().object_tangents
    if book is not None and book.fields:
        entry = book.fields.get(id(obj))
        if entry is not None:
            found = entry.get(name)
            value = getattr(obj, name)
            if found is not None:
                if value is found[0]:
                    return value, found[1]
                if fwd.has_tangent(found[1]) or book.moves:  # (the new value may carry one)
                    raise _unseen(obj, name, loc)
                return value, None
            if not fwd.has_tangent(obj_dot):
                obj_dot = Written()  # a property's getter may read written attributes
    return fwd.jvp_attr(obj, obj_dot, name, loc)


# -- calls ---------------------------------------------------------------------------------
_PLAIN_MODULES = ("builtins", "numpy")


def _with_written(book, args, tangents, spec):
    """tangents with Written() for each operand the book holds whose tangent is None."""
    out = None
    for i, (a, how) in enumerate(zip(args, spec)):
        if how not in ("*", "**") and id(a) in book.fields and \
                (i >= len(tangents) or tangents[i] is None):
            if out is None:
                out = list(tangents) + [None] * (len(args) - len(tangents))
            out[i] = Written()
    return tuple(out) if out is not None else tangents


def _callee_written(book, f, f_dot):
    """f_dot, with Written() for what f holds that the book holds: a bound method's
    receiver, a closure's captured objects (their calls must read the written tangents)."""
    if f_dot is None and isinstance(f, types.MethodType):
        return Written() if id(f.__self__) in book.fields else None
    closure = getattr(f, "__closure__", None)
    if not closure or not isinstance(f, types.FunctionType) or \
            not (f_dot is None or type(f_dot) is fwd.CellTangents):
        return f_dot
    extra = {}
    for name, cell in zip(f.__code__.co_freevars, closure):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if id(value) in book.fields and (f_dot is None or f_dot.get(name) is None):
            extra[name] = Written()
    if not extra:
        return f_dot
    out = fwd.CellTangents(f_dot or {})
    out.update(extra)
    return out


def _check_plain(book, y, what, loc):
    if book is not None and book.moves and is_active(y):
        raise MutationError(
            f"{what} ran without derivatives (none of its arguments carries one), but an "
            "attribute was written with a derivative before it, which it may read; its "
            "result would miss that derivative", loc,
            "pass the object (or the value) to it as an argument, or read the attribute in "
            "the differentiated code itself")
    return y


def _user_receiver(obj) -> bool:
    module = getattr(type(obj), "__module__", "") or ""
    return module.split(".")[0] not in _PLAIN_MODULES


def jvp_method(obj, obj_dot, name, args, tangents, spec, loc):
    """`obj.name(*args)` in forward-mode code (forward_dispatch.jvp_method), where an object
    whose attributes were written (the receiver or an operand) counts as moving: its method,
    or the method it is passed to, is transformed and reads those attributes' tangents.
    A method of an object of the user's that runs without any tangent after an attribute
    was written with one is refused when its result could carry a derivative."""
    book = context.current().object_tangents
    proxy = type(obj) is super
    if book is not None and book.fields:
        held = obj.__self__ if proxy else obj
        if obj_dot is None and id(held) in book.fields:
            obj_dot = Written()
        tangents = _with_written(book, args, tangents, spec)
    if (obj_dot is not None or any(t is not None for t in tangents)) and \
            (type(obj) is list or type(obj) is dict):
        refuse_container_update(obj, name, loc)  # (a list or dict from outside reached by an
        # expression the lowering does not follow: refused as reverse mode refuses it)
    if proxy:  # super().name(...): the method the MRO after that class gives, bound to self
        bound = getattr(obj, name)
        if not isinstance(bound, types.MethodType) and \
                not any(type(t) is not Written and fwd.has_tangent(t) for t in tangents):
            tangents = (None,) * len(args)  # object.__init__ and the like: no derivative
            y, _ = fwd.jvp_call(bound, None, args, tangents, spec, loc)
            return y, None
        return jvp_call(bound, obj_dot, args, tangents, spec, loc)
    if obj_dot is None and not any(t is not None for t in tangents):
        before = _states(book, (obj, *args)) if _user_receiver(obj) else None
        y, _ = fwd.jvp_method(obj, None, name, args, tangents, spec, loc)
        if before:
            _note_plain_writes(book, before)
        if _user_receiver(obj):
            _check_plain(book, y, f".{name}(...)", loc)
        return y, None
    return fwd.jvp_method(obj, obj_dot, name, args, tangents, spec, loc)


def _states(book, values):
    """In one column of several (book.at_call_state), before code of the user's runs plainly
    (nothing it is given moves): [(obj, a shallow copy of its __dict__)] for the instances
    of the user's classes among values (a receiver, the arguments)."""
    if book is None or not book.at_call_state:
        return None
    out = []
    for obj in values:
        held = getattr(obj, "__dict__", None)
        if type(held) is dict and _user_receiver(obj) and not isinstance(obj, type):
            out.append((obj, dict(held)))
    return out


def _note_plain_writes(book, before) -> None:
    """After code of the user's ran plainly in one column of several: the attributes it
    changed on the objects it was given are entered in `first` with their values from
    before, so that `undo_writes` puts them back and the next column starts from the state
    at the call (the gradient's backward does not know of these writes)."""
    for obj, state in before:
        after = getattr(obj, "__dict__", {})
        for name in set(state) | set(after):
            old = state.get(name, built_objects._ABSENT)
            if after.get(name, built_objects._ABSENT) is not old:
                book.first.setdefault((id(obj), name), (obj, name, old))
                book.held[id(obj)] = obj


def plain_method(obj, name, args, spec, loc):
    """jvp_method of a call the transform knows carries no tangent."""
    return jvp_method(obj, None, name, args, (None,) * len(args), spec, loc)


def jvp_call(f, f_dot, args, tangents, spec, loc):
    """`f(*args)` in forward-mode code (forward_dispatch.jvp_call), with objects whose
    attributes were written counting as moving (as jvp_method); a class of the user's is
    built here (construct)."""
    book = context.current().object_tangents
    if book is not None and book.fields:
        tangents = _with_written(book, args, tangents, spec)
        f_dot = _callee_written(book, f, f_dot)
        if f_dot is None and not any(t is not None for t in tangents):
            if book.moves and isinstance(f, type) and _constructs(f):
                # its __init__ may read written attributes: built as with tangents (exact)
                pargs, kwargs, targs, tkwargs = fwd._spread(args, tangents, spec)
                return construct(f, pargs, kwargs, targs, tkwargs, loc)
            before = _states(book, args)
            y, _ = fwd.jvp_call(f, None, args, tangents, spec, loc)
            if before:
                _note_plain_writes(book, before)
            if not _runs_no_user_code(f, args):
                _check_plain(book, y, f"{getattr(f, '__qualname__', type(f).__name__)}(...)",
                             loc)
            return y, None
    if isinstance(f, type) and any(t is not None for t in tangents) and _constructs(f):
        pargs, kwargs, targs, tkwargs = fwd._spread(args, tangents, spec)
        return construct(f, pargs, kwargs, targs, tkwargs, loc)
    if f_dot is None and not any(t is not None for t in tangents):
        before = _states(book, args)
        if before:
            y, _ = fwd.jvp_call(f, None, args, tangents, spec, loc)
            _note_plain_writes(book, before)
            return y, None
    return fwd.jvp_call(f, f_dot, args, tangents, spec, loc)


def _runs_no_user_code(f, args) -> bool:
    """gradient code's `attribute_cotangent(obj, name, g)` of a plain attribute: it only
    wraps g ({name: g}, or into a tracked object's slot), reading nothing of the user's (a
    property's getter, a rule, super() do: they are checked as any call)."""
    if f is not dispatch.attribute_cotangent or len(args) != 3 or type(args[0]) is super:
        return False
    return resolve_attribute(type(args[0]), args[1], registry).kind not in (PROPERTY, RULE)


def plain_call(f, args, spec, loc):
    """jvp_call of a call of code of the user's the transform knows carries no tangent."""
    return jvp_call(f, None, args, (None,) * len(args), spec, loc)


def _constructs(f) -> bool:
    try:
        return resolve(f, registry).kind == CONSTRUCT
    except TypeError:
        return False


# -- objects built in forward-mode code ------------------------------------------------------
def construct(cls, args, kwargs, targs, tkwargs, loc):
    """(obj, Written()) for `cls(*args, **kwargs)` with tangents: object.__new__, then its
    __init__ transformed (its writes recorded), as reverse mode builds it."""
    book = _book(loc)
    if context.current().objects is None:
        raise ZygoteError("forward-mode code built an object outside zp.jvp", loc,
                          "call generated forward code through zp.jvp")
    obj = object.__new__(cls)
    built_objects.track(obj, loc)  # (a frozen dataclass's fields are written past its __setattr__)
    book.enter(obj)
    init = built_objects._class_attribute(cls, "__init__")
    targs = fwd._padded(targs, len(args))
    if built_objects.is_dataclass_init(init):
        _dataclass_init(init, obj, args, kwargs, targs, tkwargs, loc)
    elif init is object.__init__:
        init(obj, *args, **kwargs)  # Python's own error for unexpected arguments
    else:
        fwd.python_jvp(init, None, (obj, *args), kwargs, (Written(), *targs), tkwargs, loc)
    return obj, Written()


def _dataclass_init(init, obj, args, kwargs, targs, tkwargs, loc):
    """A dataclass's generated __init__ (no source), replayed: each field from its argument,
    default or default_factory, then __post_init__ with the InitVars, transformed."""
    cls = next((k for k in type(obj).__mro__ if vars(k).get("__init__") is init), None)
    if cls is None or "__dataclass_params__" not in vars(cls):
        raise ZygoteError(f"{init.__qualname__} has no source and is not a dataclass's", loc,
                          "register a rule for it with @zp.adjoint")
    sig = inspect.signature(init)
    given = sig.bind(obj, *args, **kwargs).arguments  # (defaults: dataclass_field_value)
    tbound = sig.bind_partial(None, *targs, **tkwargs).arguments
    initvars = []
    for field in cls.__dataclass_fields__.values():
        kind = getattr(field, "_field_type", None)
        if kind is dataclasses._FIELD_INITVAR:
            initvars.append(field.name)
            continue
        if kind is not dataclasses._FIELD:
            continue  # a ClassVar
        tangent = tbound.get(field.name) if field.init else None
        value = built_objects.dataclass_field_value(field, given)
        if value is built_objects.NO_FIELD_VALUE:
            continue
        attribute_write(obj, None, field.name, value, tangent, loc, built_objects.object_set_attribute)
    post_init = built_objects._class_attribute(type(obj), "__post_init__")
    if post_init is not None:
        values = tuple(given.get(name, cls.__dataclass_fields__[name].default)
                       for name in initvars)
        dots = tuple(tbound.get(name) for name in initvars)
        fwd.python_jvp(post_init, None, (obj, *values), {}, (Written(), *dots), {}, loc)


# -- zp.jvp's result -------------------------------------------------------------------------
def materialize(y, t, depth=0):
    """t, the tangent of zp.jvp's result y, with each object whose attributes were written
    given as the dict of its attributes' tangents (the form of an object's tangent)."""
    book = context.current().object_tangents
    if book is None or not book.fields or depth > 32:
        return None if type(t) is Written else t
    if id(y) in book.fields:
        out = dict(t) if type(t) is dict else {}
        for name, (value, tangent) in book.fields[id(y)].items():
            if getattr(y, name, None) is value:
                out[name] = materialize(value, tangent, depth + 1)
        return {k: v for k, v in out.items() if v is not None} or None
    if type(t) is Written:
        return None
    if type(y) in (list, tuple) and type(t) in (list, tuple) and len(t) == len(y):
        return type(t)(materialize(a, b, depth + 1) for a, b in zip(y, t))
    if type(y) is dict and type(t) is dict:
        return {k: materialize(y.get(k), v, depth + 1) for k, v in t.items()}
    return t


# -- forward over reverse: the ledger's cotangent slots in gradient code ----------------------
def _slots_of(book, obj) -> dict:
    key = id(obj)
    slots = book.slots.get(key)
    if slots is None:
        slots = book.slots[key] = {}
        book.held[key] = obj
    return slots


def deposit_tangent(obj, name, g_dot) -> bool:
    """Beside built_objects.deposit: g_dot, the tangent of a read's cotangent, added into
    obj's tangent slot when obj is tracked by the reverse ledger; False otherwise."""
    ledger = context.current().objects
    if ledger is None or id(obj) not in ledger.tracked:
        return False
    if g_dot is not None:
        book = _book(None)
        slots = _slots_of(book, obj)
        slots[name] = accumulate(slots.get(name), g_dot)
    return True


def take_attribute_jvp(obj, name, old, new, old_dot):
    """built_objects.take_attribute in forward-mode code over a gradient: (new's cotangent,
    its tangent); the attribute's old value is put back, and the book takes its old tangent
    back with it."""
    book = context.current().object_tangents
    if book is None:  # (no tangent was recorded: see attribute_write)
        return built_objects.take_attribute(obj, name, old, new), None
    slots = book.slots.get(id(obj))
    g_dot = slots.pop(name, None) if slots else None
    g = built_objects.take_attribute(obj, name, old, new)
    entry = book.fields.get(id(obj))
    if entry is not None:
        if old is built_objects._ABSENT:
            entry.pop(name, None)
        else:
            entry[name] = (old, old_dot)
    return g, g_dot


def released_cotangent_jvp(obj):
    """built_objects.released_cotangent in forward-mode code over a gradient: (obj's
    cotangent, its tangent, from the tangent slots)."""
    ledger = context.current().objects
    releasing = ledger is not None and ledger.adopted.get(id(obj), 1) == 0
    g = built_objects.released_cotangent(obj)
    book = context.current().object_tangents
    if not releasing or book is None:
        return g, None
    left = book.slots.pop(id(obj), None)
    out = {name: t for name, t in (left or {}).items() if t is not None}
    return g, (out or None)


def attribute_cotangent_jvp(obj, obj_dot, name, g, g_dot, loc):
    """dispatch.attribute_cotangent(obj, name, g) for an object the reverse ledger tracks
    (built or written in the call), forward: g goes to obj's slot, g_dot to its tangent
    slot; nothing comes back."""
    how = resolve_attribute(type(obj), name, registry)
    if how.kind == PROPERTY or how.kind == RULE or getattr_hook(obj, name) is not None:
        raise NoDerivativeRule(
            f"forward mode over a gradient does not follow the attribute {name!r} (a property "
            "or an attribute with a rule) of an object written in the call", loc,
            "read plain attributes of written objects, or use finite differences of zp.gradient")
    value = dispatch.attribute_cotangent(obj, name, g)
    if g_dot is not None and not deposit_tangent(obj, name, g_dot):
        raise ZygoteError("an object's attribute cotangent left the reverse ledger", loc,
                          "this is a defect of zygote_py; please report it")
    return value, None


def restore_final(snapshot_pairs) -> None:
    """writes.restore_final in forward-mode code over a gradient: what the forward left is
    written back into the arrays, lists and dicts the gradient wrote, except in a column
    that must leave them as the call found them (the backward has put that back)."""
    book = context.current().object_tangents
    if book is not None and book.at_call_state:
        return
    writes.restore_final(snapshot_pairs)
