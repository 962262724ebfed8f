"""The state of the gradient call running now, held in a contextvar.

Three things change what compiled code does while it runs, and none of them
may be a process-wide flag, since two threads (or two nested calls) can be in
different gradient calls at once:

  - `compiler`: the Compiler that run-time dispatch asks for the pullbacks of
    callees it meets (runtime/dispatch.py reaches the compiler only this way,
    so the runtime layer does not import the driver);
  - `collector`: the Grads being filled by a Params call (`zp.gradient(thunk,
    zp.params(...))`), where `deposit` adds what generated code hands it; its
    presence also means that callees resolved at run time are built in their
    implicit variant (see ad/implicit.py).  None in ordinary gradient calls;
  - `observers`: objects told what the compiler built and what dispatch
    resolved (subclasses of `Observer`).  `zygote-py grad` records through one
    (aot/record.py) and the tests run the IR verifier through another.

A `Context` is immutable; `using(...)` installs a changed copy for the length
of a `with` block and restores the previous one afterwards, also on error.
Python gives every thread its own contextvars (a new thread starts from the
default, empty Context), so a Params call in one thread never sees another
thread's collector.  This plays the part of the context Zygote.jl threads
through `_pullback(cx, f, args...)`; here it travels implicitly, because
generated code must stay plain Python that calls helpers by name.
"""

from __future__ import annotations

import contextlib
import contextvars


class Observer:
    """Hooks called while zygote_py works; each does nothing unless overridden.

    Observers are notified synchronously, in the thread doing the work, in the
    order they were installed.  They watch: what they return is ignored.
    """

    def ir_ready(self, stage: str, ir) -> None:
        """The compiler finished a stage of a function's IR: 'lowered', 'simplified'
        (both for the primal) or 'forward' (the primal rewritten by the reverse transform)."""

    def dispatched_rule(self, kind: str, key, found) -> None:
        """Run-time dispatch found something registered for a callee: kind is
        'custom_rule', 'function_rule', 'method_rule' or 'nondiff'; key is the callee
        (or (type, method name)); found is the rule (True for 'nondiff')."""

    def dispatched_pullback(self, fn, active: tuple, cells: tuple, scalars: tuple, pullback) -> None:
        """Run-time dispatch got the compiled pullback of a Python function fn,
        specialised on these active parameters, active cells and scalar arguments."""


class Context:
    """Who compiles, which Params collector is filling, and who is watching."""

    __slots__ = ("collector", "compiler", "observers")

    def __init__(self, compiler=None, collector=None, observers: tuple = ()):
        self.compiler = compiler
        self.collector = collector
        self.observers = tuple(observers)

    @property
    def implicit(self) -> bool:
        """Whether run-time dispatch builds callees in their implicit (Params) variant."""
        return self.collector is not None

    def replaced(self, **changes) -> Context:
        """A copy with some fields changed."""
        unknown = set(changes) - set(self.__slots__)
        if unknown:
            raise TypeError(f"Context has no field {min(unknown)!r}")
        fields = {name: getattr(self, name) for name in self.__slots__}
        fields.update(changes)
        return Context(**fields)

    def __repr__(self) -> str:
        return (f"Context(compiler={self.compiler!r}, collector={self.collector!r}, "
                f"observers={self.observers!r})")


_EMPTY = Context()
_CURRENT: contextvars.ContextVar[Context] = contextvars.ContextVar("zygote_py_context", default=_EMPTY)


def current() -> Context:
    """The Context of the code running now (an empty one outside any gradient call)."""
    return _CURRENT.get()


@contextlib.contextmanager
def using(**changes):
    """Run a `with` block under the current Context with some fields changed."""
    outer = _CURRENT.get()
    if all(name in Context.__slots__ and getattr(outer, name) is value for name, value in changes.items()):
        yield outer  # nothing changes (the common case of a call inside a call): no copy
        return
    inner = outer.replaced(**changes)
    token = _CURRENT.set(inner)
    try:
        yield inner
    finally:
        _CURRENT.reset(token)


@contextlib.contextmanager
def observing(observer: Observer):
    """Run a `with` block with observer added to the current Context's observers."""
    with using(observers=(*current().observers, observer)) as ctx:
        yield ctx
