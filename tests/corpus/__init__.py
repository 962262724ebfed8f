"""End-to-end corpus: ordinary Python/NumPy functions to differentiate.

Each topic module (`arithmetic.py`, `loops.py`, ...) is plain Python plus
`import numpy as np` / `import math`, and ends with `CASES`, a list of `Case`
(or of plain `(func, args)` tuples).  `tests/test_corpus.py` checks every case
against central finite differences.

Rules for a case:
  - the function returns a real scalar (a float, a NumPy float or a 0-d array);
  - float inputs are float64, drawn with fixed seeds (`rand`, `rfloat`) inside
    the function's smooth domain: no ties at kinks, no branch condition near
    its threshold, no log of a negative;
  - bool and str arguments are never differentiated (their gradient is None); int
    arguments and integer arrays are differentiated as reals (a float gradient,
    checked against differences taken with the int perturbed as a float).

This package imports nothing from zygote_py, so the corpus can be run in plain
Python while the compiler is being written.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Case:
    """One function and the positional arguments to differentiate it at.

    wrt:  indices of the arguments to check against finite differences
          (None: all of them).  Arguments left out are still checked for the
          type and shape of their gradient, but not numerically -- use this
          where an argument sits exactly on a point the function is not
          smooth at (e.g. the truthiness of 0.0).
    note: what the case exercises (shown on failure).
    tag:  distinguishes several cases of one function in the test id
          (`module.func-tag`).
    """

    func: Callable
    args: tuple
    wrt: tuple[int, ...] | None = None
    note: str = ""
    tag: str = ""

    @property
    def name(self) -> str:
        name = getattr(self.func, "__name__", "func")
        if name == "<lambda>":
            name = "lambda"
        return f"{name}-{self.tag}" if self.tag else name


def as_case(entry: Any) -> Case:
    """Accept a `Case` or a plain `(func, args)` tuple."""
    if isinstance(entry, Case):
        return entry
    func, args = entry
    return Case(func, tuple(args))


def rand(*shape: int, seed: int, low: float = -1.0, high: float = 1.0) -> np.ndarray:
    """A float64 array of the given shape, uniform in [low, high), reproducible."""
    return np.random.default_rng(seed).uniform(low, high, size=shape).astype(np.float64)


def rfloat(seed: int, low: float = -1.0, high: float = 1.0) -> float:
    """A Python float, uniform in [low, high), reproducible."""
    return float(np.random.default_rng(seed).uniform(low, high))


def topic_modules() -> list:
    """Every module of this package that defines CASES, in name order."""
    mods = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(mod, "CASES"):
            mods.append(mod)
    return mods


def all_cases() -> list[tuple[str, Case]]:
    """(test id, case) for every case of every topic module; ids are unique."""
    out: list[tuple[str, Case]] = []
    seen: dict[str, int] = {}
    for mod in topic_modules():
        short = mod.__name__.rsplit(".", 1)[-1]
        for entry in mod.CASES:
            case = as_case(entry)
            ident = f"{short}.{case.name}"
            seen[ident] = seen.get(ident, 0) + 1
            if seen[ident] > 1:
                ident = f"{ident}-{seen[ident]}"
            out.append((ident, case))
    return out
