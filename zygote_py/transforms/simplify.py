"""The cleanup entry point: `simplify(fn)` runs the pass pipeline (pipeline.py).

The passes live one per module: fold.py (constant folding and forwarding),
prune.py (loop slots that never change), dce.py (dead code and dead slots),
split_tuples.py (tuple-valued branch results).  `fold` is also used alone, on
a rule body spliced at a call site (ad/splice.py).
"""

from __future__ import annotations

from .dce import dce
from .fold import const_value, fold
from .pipeline import simplify
from .prune import prune_invariant_slots, remove_loop_slots
from .split_tuples import split_tuple_results

__all__ = ["const_value", "dce", "fold", "prune_invariant_slots", "remove_loop_slots", "simplify",
           "split_tuple_results"]
