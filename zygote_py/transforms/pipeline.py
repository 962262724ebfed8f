"""The cleanup pipeline: passes in a declared order, repeated to a fixed point.

One round runs every pass of `PASSES` in order; rounds repeat until none of
them changes anything (at most `MAX_ROUNDS`).  Each pass takes a Function,
edits it and leaves it well formed (values it forwards are substituted before
it returns), so a verifier can run after every pass: `simplify(fn,
check=verify)` does that, and the compiler passes its verifier when
verification is on (the tests switch it on).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..ir.core import Function
from .dce import dce
from .fold import fold_pass
from .prune import prune_pass
from .rebind_numbers import rebind_numbers_pass
from .split_tuples import split_tuples_pass


@dataclass(frozen=True)
class Pass:
    name: str
    run: Callable[[Function], bool]  # True when it changed the function


# Splitting first lets folding see the element values; pruning before dead-code
# removal turns invariant slots into plain reads, which the sweep then drops.
PASSES: tuple[Pass, ...] = (
    Pass("split_tuples", split_tuples_pass),
    Pass("fold", fold_pass),
    Pass("rebind_numbers", rebind_numbers_pass),
    Pass("prune_slots", prune_pass),
    Pass("dce", dce),
)
MAX_ROUNDS = 20


class PassFailed(Exception):
    """A pass left broken IR (the check after it failed): a compiler bug."""


def run_passes(fn: Function, passes=PASSES, check: Callable[[Function], None] | None = None,
               max_rounds: int = MAX_ROUNDS) -> int:
    """Run passes to a fixed point; returns the number of rounds run."""
    for round_number in range(1, max_rounds + 1):
        changed = False
        for step in passes:
            changed |= bool(step.run(fn))
            if check is not None:
                try:
                    check(fn)
                except Exception as err:
                    raise PassFailed(f"after pass {step.name!r} (round {round_number}) on "
                                     f"{fn.name}: {err}") from err
        if not changed:
            return round_number
    return max_rounds


def simplify(fn: Function, check: Callable[[Function], None] | None = None) -> None:
    """Run the cleanup passes to a fixed point (check, if given, after every pass)."""
    run_passes(fn, check=check)
