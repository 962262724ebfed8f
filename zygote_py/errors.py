"""The error classes a user can see, and how a source location is shown.

Every error a user's mistake can cause is a `ZygoteError` subclass that names
the user's file, line and column, prints the offending source line with a caret
under the column, and gives a hint.  Internal failures are bugs and are not
wrapped, so that they stay visible as such.
"""

from __future__ import annotations

import linecache
from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLoc:
    """A place in the user's source: file, 1-based line, 0-based column."""

    filename: str
    line: int
    col: int = 0
    end_col: int | None = None

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.col + 1}"

    def source_line(self) -> str:
        return linecache.getline(self.filename, self.line).rstrip("\n")

    def excerpt(self) -> str:
        """The source line and a caret line under the column (empty if unreadable)."""
        text = self.source_line()
        if not text:
            return ""
        stripped = text.lstrip()
        indent = len(text) - len(stripped)
        col = max(self.col - indent, 0)
        width = 1
        if self.end_col is not None and self.end_col > self.col:
            width = self.end_col - self.col
        width = max(1, min(width, len(stripped) - col))
        return f"    {stripped}\n    {' ' * col}{'^' * width}"


class ZygoteError(Exception):
    """Base of every error zygote_py raises for a problem in the user's code or call."""

    def __init__(self, message: str, loc: SourceLoc | None = None, hint: str | None = None):
        self.message = message
        self.loc = loc
        self.hint = hint
        super().__init__(self._render())

    def _render(self) -> str:
        parts = []
        if self.loc is not None:
            parts.append(f"{self.loc}: {self.message}")
            excerpt = self.loc.excerpt()
            if excerpt:
                parts.append(excerpt)
        else:
            parts.append(self.message)
        if self.hint:
            parts.append(f"hint: {self.hint}")
        return "\n".join(parts)

    def __str__(self) -> str:  # SyntaxError overrides __str__; keep ours
        return self._render()


class UnsupportedSyntax(ZygoteError, SyntaxError):
    """A construct zygote_py cannot differentiate; raised before anything runs."""

    def __init__(self, message: str, loc: SourceLoc | None = None, hint: str | None = None):
        ZygoteError.__init__(self, message, loc, hint)
        if loc is not None:
            self.filename, self.lineno, self.offset = loc.filename, loc.line, loc.col + 1
            self.text = loc.source_line()
        self.msg = message


class NoDerivativeRule(ZygoteError):
    """An active value reaches a callable that has neither source nor a rule."""


class NonScalarOutput(ZygoteError):
    """`gradient` was asked of a function whose output is not a real scalar."""


class SourceUnavailable(ZygoteError):
    """The source of a function cannot be found or located exactly."""


class MutationError(ZygoteError):
    """An in-place write that would make the gradient wrong."""


class InternalError(ZygoteError):
    """A defect of zygote_py's own, found before a wrong number could be returned
    (an op the reverse transform has no adjoint for, say); please report it."""


__all__ = [
    "InternalError",
    "MutationError",
    "NoDerivativeRule",
    "NonScalarOutput",
    "SourceLoc",
    "SourceUnavailable",
    "UnsupportedSyntax",
    "ZygoteError",
]
