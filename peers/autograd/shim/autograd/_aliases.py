"""`autograd.numpy[.x]` is `numpy[.x]` and `autograd.scipy[.x]` is `scipy[.x]`: the same module objects.

An import hook maps each such name to the real module (not a copy: seeding
`numpy.random` must seed `autograd.numpy.random` too).  Where autograd has a
module and SciPy an object with the same functions (`scipy.stats.
multivariate_normal`, whose logpdf, pdf and entropy take autograd's
arguments), the name maps to that object.  The shim's own modules (autograd's
generalised `autograd.scipy.signal.convolve`, which SciPy does not have) are
left to the ordinary import system: `_SHIM_MODULES`.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

_ALIASES = {"autograd.numpy": "numpy", "autograd.scipy": "scipy"}
# Modules of the shim itself: autograd.scipy (a package whose other
# attributes are SciPy's) and its signal module (autograd's own convolve).
_SHIM_MODULES = frozenset({"autograd.scipy", "autograd.scipy.signal"})


def _real_name(fullname: str) -> str | None:
    if fullname in _SHIM_MODULES:
        return None
    for alias, real in _ALIASES.items():
        if fullname == alias or fullname.startswith(alias + "."):
            return real + fullname[len(alias):]
    return None


def _exists(real: str) -> bool:
    """A module by that name, or a non-module attribute of a real module."""
    if importlib.util.find_spec(real) is not None:
        return True
    parent, _, attribute = real.rpartition(".")
    return bool(parent) and importlib.util.find_spec(parent) is not None and hasattr(
        importlib.import_module(parent), attribute)


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, real: str):
        self.real = real

    def create_module(self, spec):
        try:
            return importlib.import_module(self.real)
        except ModuleNotFoundError:
            parent, _, attribute = self.real.rpartition(".")
            return getattr(importlib.import_module(parent), attribute)

    def exec_module(self, module):
        pass  # the real module is already executed


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        real = _real_name(fullname)
        if real is None or not _exists(real):
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(real))


def install() -> None:
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())
