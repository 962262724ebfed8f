"""The state of the gradient call running now, held in a contextvar.

Three things change what compiled code does while it runs, and none of them
may be a process-wide flag, since two threads (or two nested calls) can be in
different gradient calls at once:

  - `compiler`: the Compiler that run-time dispatch asks for the pullbacks of
    callees it meets (calls/dispatch.py reaches the compiler only this way,
    so run-time dispatch does not import the driver);
  - `collector`: the Grads being filled by a Params call (`zp.gradient(thunk,
    zp.params(...))`), where `deposit` adds what generated code hands it; its
    presence also means that callees resolved at run time are built in their
    implicit variant (see ad/implicit.py).  None in ordinary gradient calls;
  - `observers`: objects told what the compiler built and what dispatch
    resolved (subclasses of `Observer`).  `zygote-py grad` records through one
    (aot/record.py) and the tests run the IR verifier through another.

A `Context` is not changed once made; `using(...)` installs a changed copy for
the length of a `with` block and restores the previous one afterwards, also
on error.
Python gives every thread its own contextvars (a new thread starts from the
default, empty Context), so a Params call in one thread never sees another
thread's collector.  This plays the part of the context Zygote.jl threads
through `_pullback(cx, f, args...)`; here it travels implicitly, because
generated code must stay plain Python that calls helpers by name.
"""

from __future__ import annotations

import contextvars


class Observer:
    """Hooks called while zygote_py works; each does nothing unless overridden.

    Observers are notified synchronously, in the thread doing the work, in the
    order they were installed.  They watch: what they return is ignored, and an
    exception they raise stops the work (nothing half-built is cached).
    `ir_ready` runs while the compiler's lock is held, so it must not wait for
    a gradient call on another thread.
    """

    def ir_ready(self, stage: str, ir) -> None:
        """The compiler finished a stage of a function's IR: 'lowered', 'simplified'
        (both for the primal) or 'forward' (the primal rewritten by the reverse transform)."""

    def dispatched_rule(self, kind: str, key, found) -> None:
        """Run-time dispatch found something registered for a callee: kind is
        'custom_rule', 'function_rule', 'method_rule' or 'nondiff'; key is the callee
        (or (type, method name)); found is the rule (True for 'nondiff').  For an
        attribute read, kind is 'attr_rule' or 'nondiff_attr' and key (type, name)."""

    def dispatched_pullback(self, fn, active: tuple, cells: tuple, scalars: tuple, pullback) -> None:
        """Run-time dispatch got the compiled pullback of a Python function fn,
        specialised on these active parameters, active cells and scalar arguments."""

    def claimed_container(self, container) -> None:
        """A function of a gradient call claimed a module-level or captured list or dict
        it updates in place (runtime/outside_containers.py), before updating it."""


class Context:
    """Who compiles, which Params collector is filling, and who is watching.

    `reals` is set in a gradient call that differentiates an explicit int (or
    integer-array) argument as a real: run-time dispatch, which decides
    activity from the values it sees, then counts ints and integer arrays as
    carrying a derivative, so such an argument's derivative survives a closure
    or a call resolved while running."""

    __slots__ = ("collector", "compiler", "object_tangents", "objects", "observers", "reals")

    def __init__(self, compiler=None, collector=None, observers: tuple = (), reals: bool = False,
                 objects=None, object_tangents=None):
        self.compiler = compiler
        self.collector = collector
        self.observers = tuple(observers)
        self.reals = reals
        # the ObjectLedger of the objects this call builds (runtime/built_objects.py)
        self.objects = objects
        # forward mode's tangents of the attributes it wrote (calls/forward_objects.py)
        self.object_tangents = object_tangents

    @property
    def implicit(self) -> bool:
        """Whether run-time dispatch builds callees in their implicit (Params) variant."""
        return self.collector is not None

    def __repr__(self) -> str:
        return (f"Context(compiler={self.compiler!r}, collector={self.collector!r}, "
                f"observers={self.observers!r})")


_EMPTY = Context()
_CURRENT: contextvars.ContextVar[Context] = contextvars.ContextVar("zygote_py_context", default=_EMPTY)


def current() -> Context:
    """The Context of the code running now (an empty one outside any gradient call)."""
    return _CURRENT.get()


# The places (SourceLocs) of the map(), filter() and generator expressions whose items
# are being computed ahead of their reading now, innermost last (runtime/iterators.py:
# begin_ahead, end_ahead).  An exception raised while one is computed is reported by the
# API as that (items_ahead_error), since Python might never have computed the item.
_AHEAD: contextvars.ContextVar[tuple] = contextvars.ContextVar("zygote_py_items_ahead", default=())


def items_ahead() -> tuple:
    return _AHEAD.get()


def set_items_ahead(places: tuple) -> None:
    _AHEAD.set(places)


def fresh_items_ahead() -> contextvars.Token:
    """Start a run of generated code with no places (a call inside another starts its own);
    give the token to restore_items_ahead when it ends, however it ends."""
    return _AHEAD.set(())


def restore_items_ahead(token: contextvars.Token) -> None:
    _AHEAD.reset(token)


_KEEP = object()  # a field `using` leaves as it is


class using:  # lower case: it reads as a function, `with context.using(collector=c):`
    """Run a `with` block under the current Context with some fields changed.

    A class rather than a generator, with the fields spelled out: every gradient
    call enters one, and this is several times cheaper.  Entering gives the
    Context in force inside the block.  Each object serves one `with` block (it
    holds the token that restores the outer Context).
    """

    __slots__ = ("_collector", "_compiler", "_object_tangents", "_objects", "_observers",
                 "_reals", "_token")

    def __init__(self, *, compiler=_KEEP, collector=_KEEP, observers=_KEEP, reals=_KEEP,
                 objects=_KEEP, object_tangents=_KEEP):
        self._compiler = compiler
        self._collector = collector
        self._observers = observers
        self._reals = reals
        self._objects = objects
        self._object_tangents = object_tangents
        self._token = None

    def __enter__(self) -> Context:
        outer = _CURRENT.get()
        compiler = outer.compiler if self._compiler is _KEEP else self._compiler
        collector = outer.collector if self._collector is _KEEP else self._collector
        observers = outer.observers if self._observers is _KEEP else tuple(self._observers)
        reals = outer.reals if self._reals is _KEEP else self._reals
        objects = outer.objects if self._objects is _KEEP else self._objects
        tangents = outer.object_tangents if self._object_tangents is _KEEP \
            else self._object_tangents
        if compiler is outer.compiler and collector is outer.collector \
                and observers == outer.observers and reals == outer.reals \
                and objects is outer.objects and tangents is outer.object_tangents:
            return outer  # nothing changes (a call inside a call): no copy, nothing to restore
        inner = Context(compiler, collector, observers, reals, objects, tangents)
        self._token = _CURRENT.set(inner)
        return inner

    def __exit__(self, *exc) -> None:
        token, self._token = self._token, None
        if token is not None:
            _CURRENT.reset(token)


def observing(observer: Observer) -> using:
    """For a `with` block: the current Context with observer added to its observers."""
    return using(observers=(*current().observers, observer))
