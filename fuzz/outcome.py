"""The outcome kinds of running one program, and the Outcome record (see oracle.py)."""

from __future__ import annotations

from dataclasses import dataclass

OK, REFUSED, WRONG_GRADIENT, WRONG_PRIMAL, INTERNAL = (
    "ok",
    "refused",
    "wrong_gradient",
    "wrong_primal",
    "internal_error",
)
INVALID, UNSTABLE = "invalid", "unstable"
FAILURES = (WRONG_GRADIENT, WRONG_PRIMAL, INTERNAL)
SKIPPED = (INVALID, UNSTABLE)


@dataclass(frozen=True)
class Outcome:
    kind: str
    detail: str = ""
    signature: str = ""  # groups outcomes that are (probably) the same defect
    forward: tuple = ()  # what forward_oracle.py checked: ('jvp ok', 'hessian refused'), ...

    @property
    def failed(self) -> bool:
        return self.kind in FAILURES


class FuzzTimeout(BaseException):
    """Raised by the alarm; a BaseException so no `except Exception` swallows it."""
