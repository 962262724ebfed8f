"""The value types the generator tracks, and the scope of a body being written.

A type is a short string:
  S   a Python float (or NumPy float scalar)     I   an int (loop counters, len)
  V   float array of shape (3,)                  W   float array of shape (2,)
  M   float array of shape (2, 3)
  L   list of floats (length >= 1)               LV  list of V arrays (length >= 1)
  D   dict with str keys 'a' and 'b' -> float    O   an instance of the program's class
  F:X>Y  a callable taking one X and returning a Y (a closure or lambda)
"""

from __future__ import annotations

import random

SHAPES = {"V": (3,), "W": (2,), "M": (2, 3)}
ARRAYS = tuple(SHAPES)
NUMERIC = ("S", "V", "W", "M")


def fn_type(arg: str, ret: str) -> str:
    return f"F:{arg}>{ret}"


def fn_parts(ty: str) -> tuple[str, str]:
    arg, ret = ty[2:].split(">")
    return arg, ret


class Scope:
    """Names visible in a body, with their types.

    `frozen` holds names a closure has captured: zygote_py documents that a
    closure used as a value captures values when it is made, so the generator
    never rebinds such a name afterwards (that would test a documented
    difference, not a bug)."""

    def __init__(self, names: dict[str, str] | None = None, frozen: set[str] | None = None):
        self.names: dict[str, str] = dict(names or {})
        self.frozen: set[str] = set(frozen or ())

    def copy(self) -> Scope:
        return Scope(self.names, self.frozen)

    def of_type(self, ty: str) -> list[str]:
        return [n for n, t in self.names.items() if t == ty]

    def pick(self, rng: random.Random, ty: str) -> str | None:
        names = self.of_type(ty)
        if not names:
            return None
        # prefer recent names: they tend to depend on more of the program
        return names[-1] if rng.random() < 0.4 else rng.choice(names)

    def rebindable(self, ty: str) -> list[str]:
        return [n for n in self.of_type(ty) if n not in self.frozen and not n.startswith("self.")]

    def merge_branches(self, branches: list[Scope]) -> None:
        """After an if/else: keep the names every branch defines with one type."""
        common = dict(branches[0].names)
        for b in branches[1:]:
            common = {n: t for n, t in common.items() if b.names.get(n) == t}
        for n, t in common.items():
            self.names.setdefault(n, t)
        for b in branches:
            self.frozen |= b.frozen
