"""`autograd.numpy[.x]` is `numpy[.x]` and `autograd.scipy[.x]` is `scipy[.x]`: the same module objects.

An import hook maps each such name to the real module (not a copy: seeding
`numpy.random` must seed `autograd.numpy.random` too).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

_ALIASES = {"autograd.numpy": "numpy", "autograd.scipy": "scipy"}


def _real_name(fullname: str) -> str | None:
    for alias, real in _ALIASES.items():
        if fullname == alias or fullname.startswith(alias + "."):
            return real + fullname[len(alias):]
    return None


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, real: str):
        self.real = real

    def create_module(self, spec):
        return importlib.import_module(self.real)

    def exec_module(self, module):
        pass  # the real module is already executed


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        real = _real_name(fullname)
        if real is None or importlib.util.find_spec(real) is None:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(real))


def install() -> None:
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())
