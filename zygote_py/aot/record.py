"""Recording what run-time dispatch reaches, for standalone modules.

`zygote-py grad --args SPEC` computes the gradient once through zygote_py at
example arguments while a `Recording` is active.  A Recording is an observer
(context.py) of that run: run-time dispatch tells it of every pullback and
rule it resolves (in first-use order, so the output is deterministic), and
the standalone module's dispatcher gets exactly those entries.  It also keeps the
items of every module-level list or dict the run claims (runtime/outside_containers.py),
and puts them back after the run: generating a module changes none of the user's state.  Lookups made
by the compiler itself (for calls it resolves statically) are not reported to
observers: their code is already in the generated text.
"""

from __future__ import annotations

import numpy as np

from .. import context
from ..rules import registry
from .common import hashable


class Recording(context.Observer):
    """The callees run-time dispatch resolved while it was active."""

    def __init__(self):
        self.pullbacks: list[tuple] = []  # (fn, active, cells, scalars, compiled pullback)
        self.function_rules: list[tuple] = []  # (callee, Rule)
        self.method_rules: list[tuple] = []  # ((type, name), Rule)
        self.custom_rules: list[tuple] = []  # (callee, user rule)
        self.nondiff: list = []  # callees, or (type, name)
        self.attr_rules: list[tuple] = []  # ((type, attribute name), Rule)
        self.nondiff_attrs: list = []  # (type, attribute name)
        # (container, its items before the example run's update) for every module-level or
        # captured list or dict the run claimed: put back afterwards (`restore_claimed`)
        self.claimed: list[tuple] = []
        self._seen: set = set()
        self._scope = None

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

    # -- what dispatch reports ---------------------------------------------------
    def dispatched_pullback(self, fn, active, cells, scalars, pullback) -> None:
        key = (fn, tuple(active), tuple(cells), tuple(scalars))
        self._note(self.pullbacks, key, (*key, pullback))

    def dispatched_rule(self, kind, key, found) -> None:
        if kind == "nondiff":
            self._note(self.nondiff, key, key)
        elif kind == "nondiff_attr":
            self._note(self.nondiff_attrs, key, key)
        else:
            table = {"custom_rule": self.custom_rules, "function_rule": self.function_rules,
                     "method_rule": self.method_rules, "attr_rule": self.attr_rules}[kind]
            self._note(table, key, (key, found))

    def claimed_container(self, container) -> None:
        arrays = [(a, a.copy()) for a in _arrays_held(container, 0, set())]
        self.claimed.append((container, container.copy(), arrays))

    def restore_claimed(self) -> None:
        """Put back the items of the lists and dicts the example run updated in place, and
        the values of the arrays they held (`LOG[0] += x` writes into the array): the module
        starts from, and the user's program keeps, what they held before the run."""
        for container, items, arrays in reversed(self.claimed):
            if type(container) is list:
                container[:] = items
            else:
                container.clear()
                container.update(items)
            for array, values in arrays:
                array[...] = values
        self.claimed.clear()

    # -- active while the example runs -------------------------------------------
    def __enter__(self) -> Recording:
        self._scope = context.observing(self)
        self._scope.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        scope, self._scope = self._scope, None
        scope.__exit__(*exc)


def _arrays_held(value, depth, seen):
    """The writeable NumPy arrays value holds, through lists, tuples and dicts."""
    if id(value) in seen or depth > 6:
        return
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        if value.flags.writeable:
            yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _arrays_held(item, depth + 1, seen)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _arrays_held(item, depth + 1, seen)
