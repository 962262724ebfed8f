"""Recording what run-time dispatch reaches, for standalone modules.

`zygote-py grad --args SPEC` computes the gradient once through zygote_py at
example arguments while a `Recording` is active.  Every pullback and rule
that `dispatch.call` / `dispatch.call_method` look up during that run is
noted (in first-use order, so the output is deterministic), and the
standalone module's dispatcher gets exactly those entries.  Lookups made by
the compiler itself (for calls it resolves statically) are not recorded:
their code is already in the generated text.
"""

from __future__ import annotations

import sys

from ..compiler import COMPILER
from ..rules import registry
from .common import hashable

_DISPATCH = "zygote_py.runtime.dispatch"
_RESOLVE = "zygote_py.resolve"  # dispatch asks the registry through the resolver


def _from_dispatch() -> bool:
    frame = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__") == _RESOLVE:
        frame = frame.f_back
    return frame is not None and frame.f_globals.get("__name__") == _DISPATCH


class Recording:
    """The callees run-time dispatch resolved while it was active."""

    def __init__(self):
        self.pullbacks: list[tuple] = []  # (fn, active, cells, scalars, compiled pullback)
        self.function_rules: list[tuple] = []  # (callee, Rule)
        self.method_rules: list[tuple] = []  # ((type, name), Rule)
        self.custom_rules: list[tuple] = []  # (callee, user rule)
        self.nondiff: list = []  # callees, or (type, name)
        self.attr_rules: list[tuple] = []  # ((type, attribute name), Rule)
        self.nondiff_attrs: list = []  # (type, attribute name)
        self._seen: set = set()
        self._saved: dict = {}

    def _note(self, table: list, key, item) -> None:
        marker = (id(table), key if hashable(key) else id(key))
        if marker not in self._seen:
            self._seen.add(marker)
            table.append(item)

    def add_static(self, f) -> None:
        """A callee named at a dynamic call site (e.g. `min(*xs)`): its rule, if it has one."""
        custom = registry.custom_rule(f)
        if custom is not None:
            self._note(self.custom_rules, f, (f, custom))
            return
        rule = registry.function_rule(f)
        if rule is not None:
            self._note(self.function_rules, f, (f, rule))
        elif registry.is_nondifferentiable(f):
            self._note(self.nondiff, f, f)

    # -- the patches ------------------------------------------------------------
    def __enter__(self) -> Recording:
        entry = COMPILER.entry
        lookups = {name: getattr(registry, name) for name in
                   ("custom_rule", "function_rule", "is_nondifferentiable", "method_rule",
                    "method_is_nondifferentiable", "attr_rule", "attr_is_nondifferentiable")}
        self._saved = lookups

        def recording_entry(fn, active, mode, cells=(), scalars=(), *more, **options):
            out = entry(fn, active, mode, cells, scalars, *more, **options)
            if mode == "pullback" and _from_dispatch():
                key = (fn, tuple(active), tuple(cells), tuple(scalars))
                self._note(self.pullbacks, key, (fn, tuple(active), tuple(cells), tuple(scalars), out.fn))
            return out

        def wrap(name, original):
            def lookup(*args):
                out = original(*args)
                if out and _from_dispatch():
                    key = args[0] if len(args) == 1 else tuple(args)
                    if name == "custom_rule":
                        self._note(self.custom_rules, key, (key, out))
                    elif name == "function_rule":
                        self._note(self.function_rules, key, (key, out))
                    elif name == "method_rule":
                        self._note(self.method_rules, key, (key, out))
                    elif name == "attr_rule":
                        self._note(self.attr_rules, key, (key, out))
                    elif name == "attr_is_nondifferentiable":
                        self._note(self.nondiff_attrs, key, key)
                    else:
                        self._note(self.nondiff, key, key)
                return out

            return lookup

        COMPILER.entry = recording_entry
        for name, original in lookups.items():
            setattr(registry, name, wrap(name, original))
        return self

    def __exit__(self, *exc) -> None:
        del COMPILER.entry  # back to the class's method
        for name, original in self._saved.items():
            setattr(registry, name, original)
