"""Reverse-mode utilities: hooks on cotangents, retained cotangents, checkpointing, no_grad.

- `hook(fn, x)` returns x; in the backward pass fn receives x's cotangent and
  what it returns replaces it (Zygote's `hook`, PyTorch's `register_hook`).
- `retain(name, x)` returns x and, inside a `with retained() as kept:`
  block, records x's cotangent as `kept[name]` (PyTorch's `retain_grad`).
- `checkpointed(f, *args)` returns f(*args) without keeping f's intermediate
  values: the backward pass runs f again, differentiated, to get them.
- `no_grad` (rules/untracked.py, where the frontend can see it): a block or
  a function whose results carry no derivative.

Each of the first three is an ordinary function with a custom rule
(`registry.register_custom`), so the compiler treats a call of one like a call
of any function with an `@zp.adjoint` rule: resolved while running, through
calls/dispatch.py, in loops, helpers, closures and Params calls alike.
Called outside a gradient they just return their value (f(*args)).

The collector of `retained()` is found through a contextvar of this module:
per thread and per task, set only for the length of the `with` block, and
captured by each `retain` call when the forward pass runs, so a pullback
called after the block has ended still fills it.
"""

from __future__ import annotations

import contextvars

import numpy as np

from .calls import dispatch
from .errors import ZygoteError
from .rules.registry import register_custom
from .rules.untracked import no_grad  # noqa: F401  (re-exported: zp.no_grad)
from .tree import finalize, flatten, zeros_like


# -- hook ------------------------------------------------------------------------------

def hook(fn, x):
    """x itself; in the backward pass, fn(cotangent of x) becomes x's cotangent.

        y = zp.hook(lambda g: np.clip(g, -1, 1), h)     # clip the gradient flowing into h
        y = zp.hook(lambda g: (print(g.sum()), g)[1], h)  # look at it, unchanged

    fn must return the new cotangent (the one it was given to keep it): a
    hook returning None is refused, since Zygote's convention (None is a zero
    cotangent) and PyTorch's (None keeps it) would differ silently.  fn is
    called only when a cotangent reaches x.
    """
    return x


def _hook_rule(fn, x):
    def back(g):
        new = fn(g)
        _check_replacement(fn, new, g, x)
        return None, new

    return x, back


def _check_replacement(fn, new, g, x) -> None:
    """The cotangent a hook returned fits x (a wrong shape would broadcast silently)."""
    name = _name(fn)
    if new is None:
        raise ZygoteError(f"the zp.hook function {name} returned None instead of a cotangent",
                          hint="return the cotangent it receives to keep it (g), or a new one "
                               "of the same shape (np.zeros_like(g) to cut the gradient)")
    if isinstance(x, (np.ndarray, np.generic, int, float, complex)):
        expected = np.shape(x)
        if np.shape(new) not in (expected, np.shape(g)):
            raise ZygoteError(f"the zp.hook function {name} returned a cotangent of shape "
                              f"{np.shape(new)} for a value of shape {expected}",
                              hint="return an array of the shape of the cotangent it receives")


register_custom(hook, _hook_rule)


# -- retain / retained -------------------------------------------------------------------

_COLLECTING: contextvars.ContextVar[retained | None] = contextvars.ContextVar(
    "zygote_py_retained", default=None)


class _Slot:
    """One retained value and, once a backward pass reached it, its cotangent."""

    __slots__ = ("cotangent", "value")

    def __init__(self, value):
        self.value = value
        self.cotangent = None  # None: no cotangent reached the value (a zero one)


class retained:
    """Collects the cotangents of values marked with zp.retain, by name.

        def loss(x, w1, w2, w3):
            l1 = zp.retain("l1", x * w1)
            ...
        with zp.retained() as kept:
            grads = zp.gradient(loss, x, w1, w2, w3)
        kept["l1"]            # the cotangent of l1, shaped like l1

    A value no cotangent reached (it does not affect the result, or it does not
    depend on the differentiated arguments) has a zero cotangent.  A name
    retained several times (in a loop) is read with `kept.all(name)`, in the
    order the values were retained.  Each backward pass (each call of a
    pullback's back) overwrites what the previous one recorded.
    """

    def __init__(self):
        self._slots: dict[str, list[_Slot]] = {}
        self._tokens: list = []

    def __enter__(self) -> retained:
        self._tokens.append(_COLLECTING.set(self))
        return self

    def __exit__(self, *exc) -> bool:
        _COLLECTING.reset(self._tokens.pop())
        return False

    def _open(self, name: str, value) -> _Slot:
        slot = _Slot(value)
        self._slots.setdefault(name, []).append(slot)
        return slot

    def all(self, name: str) -> list:
        """The cotangents of every value retained under name, in the order retained."""
        return [_as_gradient(slot) for slot in self._named(name)]

    def __getitem__(self, name: str):
        slots = self._named(name)
        if len(slots) > 1:
            raise ZygoteError(f"{len(slots)} values were retained as {name!r}",
                              hint=f"kept.all({name!r}) lists their cotangents in order")
        return _as_gradient(slots[0])

    def _named(self, name: str) -> list[_Slot]:
        slots = self._slots.get(name)
        if slots is None:
            raise KeyError(f"nothing was retained as {name!r} (retained: {sorted(self._slots)}); "
                           "zp.retain records only while the forward pass runs inside the "
                           "`with zp.retained()` block")
        return slots

    def __contains__(self, name) -> bool:
        return name in self._slots

    def __iter__(self):
        return iter(self._slots)

    def __len__(self) -> int:
        return len(self._slots)

    def keys(self):
        return self._slots.keys()

    def __repr__(self) -> str:
        return f"zp.retained({sorted(self._slots)})"


def _as_gradient(slot: _Slot):
    """The cotangent the user sees: in x's own form, zeros where none arrived."""
    if slot.cotangent is None:
        return finalize(zeros_like(slot.value), slot.value)
    out = finalize(slot.cotangent, slot.value)
    return out if out is not None else slot.cotangent


def retain(name: str, x):
    """x itself; inside `with zp.retained() as kept:` its cotangent becomes kept[name]."""
    _open_slot(name, x)
    return x


def _open_slot(name, x) -> _Slot | None:
    if not isinstance(name, str):
        raise ZygoteError(f"zp.retain(name, x) takes the name first, a string; got "
                          f"{type(name).__name__}", hint='zp.retain("h1", h1)')
    kept = _COLLECTING.get()
    return kept._open(name, x) if kept is not None else None


def _retain_rule(name, x):
    slot = _open_slot(name, x)

    def back(g):
        if slot is not None:
            slot.cotangent = g
        return None, g

    return x, back


register_custom(retain, _retain_rule)


# -- checkpointed ------------------------------------------------------------------------

def checkpointed(f, *args):
    """f(*args), differentiated without keeping f's intermediate values: the backward
    pass recomputes them by running f again (Zygote's `checkpointed`).

    Memory for time: a loop of checkpointed steps keeps each step's arguments and
    result instead of all its intermediates.  f must compute the same result when
    run again (random numbers drawn inside f, or state it changes, are refused
    when the recomputed result differs); pass keyword arguments with a
    functools.partial or a lambda.
    """
    return f(*args)


def _checkpointed_rule(f, *args):
    token = _COLLECTING.set(None)  # retained values are recorded by the recomputation
    try:
        y = f(*args)
    finally:
        _COLLECTING.reset(token)
    kept = _COLLECTING.get()

    def back(g):
        token = _COLLECTING.set(kept)
        try:
            again, pullback = dispatch.call(f, args, (None,) * len(args), None)
        except ZygoteError as err:
            if err.loc is not None:  # it names the user's line already
                raise
            raise _restated(err, f) from None
        finally:
            _COLLECTING.reset(token)
        if not _same(y, again):
            name = _name(f)
            raise ZygoteError(
                f"zp.checkpointed: running {name} again in the backward pass gave a different "
                "result than in the forward pass, so its gradient would be that of another "
                "computation", hint="draw random numbers (or read state that changes) outside "
                "the checkpointed function and pass them in as arguments")
        return pullback(g)  # (cotangent of f itself: its captured values, *of each argument)

    return y, back


def _restated(err: ZygoteError, f) -> ZygoteError:
    """err, saying which checkpointed call it came from: run-time dispatch knows no call
    site for the recomputation, so the message would not say where it happened."""
    message = f"in the backward pass of zp.checkpointed({_name(f)}, ...): {err.message}"
    try:
        return type(err)(message, None, err.hint)
    except TypeError:  # a subclass made otherwise: the original, as it is
        return err


def _name(f) -> str:
    return getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)


def _same(a, b) -> bool:
    """a and b have the same structure and equal leaves (NaN equal to NaN)."""
    leaves_a, def_a = flatten(a)
    leaves_b, def_b = flatten(b)
    if def_a != def_b:
        return False
    for u, v in zip(leaves_a, leaves_b):
        if isinstance(u, (np.ndarray, np.generic, int, float, complex)):
            if np.shape(u) != np.shape(v) or not np.array_equal(u, v, equal_nan=_inexact(u)):
                return False
        elif u is not v and not _equal_leaf(u, v):
            return False
    return True


def _equal_leaf(u, v) -> bool:
    """Two non-numeric leaves are the same result: equal, or (objects made afresh by each
    run, such as functions, that carry no derivative) of one type without an equality."""
    try:
        same = u == v
        if isinstance(same, (bool, np.bool_)):
            return bool(same) or type(u).__eq__ is object.__eq__ and type(u) is type(v)
    except Exception:  # noqa: BLE001  (an equality that cannot answer: the types decide)
        pass
    return type(u) is type(v)


def _inexact(u) -> bool:
    return np.asarray(u).dtype.kind in "fc"


register_custom(checkpointed, _checkpointed_rule)
