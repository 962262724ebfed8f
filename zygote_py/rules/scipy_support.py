"""Registering the rules of SciPy, an optional dependency.

The rule modules `scipy_special`, `scipy_stats` and `scipy_linalg` are not
imported with zygote_py: `rules/__init__.py` names each with
`registry.optional_rules(trigger, module)`, and the registry imports it on the
first lookup after the user's code has imported the SciPy module that triggers
it (or when every rule is asked for: `supported()`, the table).  So importing
zygote_py never imports SciPy, and without SciPy nothing changes.

Each rule is registered by the SciPy object itself (a ufunc, a function, a
distribution's class) through a `Library`, under the public name a user writes
(`scipy.special.gammaln`, `scipy.stats.norm.logpdf`): SciPy's own module paths
are private (`scipy.stats._continuous_distns.norm_gen`).  Where SciPy, or one of
its functions, is missing the rule is declared absent instead: never
registered, still listed, so docs/rules.md is the same with and without SciPy.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from zygote_py.rules import registry


def optional_module(name: str) -> Any:
    """The module, or None where it (SciPy) is not installed."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


class Library:
    """One public SciPy module (`scipy.special`): registers rules by its objects' names."""

    def __init__(self, public: str):
        self.public = public
        self.module = optional_module(public)

    def get(self, name: str) -> Any:
        """The object `public.name`, or None where SciPy or the name is missing."""
        return None if self.module is None else getattr(self.module, name, None)

    def rule(self, *names: str, **options: Any) -> Callable:
        """`registry.vjp` for the functions `public.name` (options as vjp's: diff=, jvp=,
        underived=, ...)."""

        def register(fn: Callable) -> Callable:
            for name in names:
                primal = self.get(name)
                qualname = f"{self.public}.{name}"
                if primal is None:
                    registry.declare_absent(qualname, fn)
                    continue
                registry.vjp(primal, name=qualname, **options)(fn)
            return fn

        return register

    def rule_on(self, primal: Any, public_name: str, **options: Any) -> Callable:
        """`registry.vjp` for an object that is not an attribute of the module (a frozen
        distribution's class, whose construction the rule differentiates), listed as
        `public.public_name`; primal None where absent."""

        def register(fn: Callable) -> Callable:
            qualname = f"{self.public}.{public_name}"
            if primal is None:
                registry.declare_absent(qualname, fn)
            else:
                registry.vjp(primal, name=qualname, **options)(fn)
            return fn

        return register

    def method_rule(self, cls: type | None, public_name: str, *methods: str,
                    **options: Any) -> Callable:
        """`registry.vjp_method` for methods of cls (None where absent), listed as
        `public.public_name.method`."""

        def register(fn: Callable) -> Callable:
            for method in methods:
                qualname = f"{self.public}.{public_name}.{method}"
                if cls is None:
                    registry.declare_absent(qualname, fn)
                    continue
                registry.vjp_method(cls, method, public=f"{self.public}.{public_name}", **options)(fn)
            return fn

        return register

    def type_of(self, name: str) -> type | None:
        """The class of the object `public.name` (a distribution such as scipy.stats.norm
        is an instance of its own class), or None where absent."""
        obj = self.get(name)
        return None if obj is None else type(obj)

    def nondifferentiable(self, *names: str) -> None:
        for name in names:
            primal = self.get(name)
            if primal is None:
                registry.nondifferentiable(registry.Absent(f"{self.public}.{name}"))
            else:
                registry.nondifferentiable_as(primal, f"{self.public}.{name}")


def tangent(d: Any) -> Any:
    """A forward-mode tangent where None means zero: 0.0 for None (it broadcasts)."""
    return 0.0 if d is None else d
