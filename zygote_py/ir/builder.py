"""IRBuilder: where new ops go, and the one way ops are replaced.

A builder holds a block, an insertion point in it (the end, or before a given
index) and the current SourceLoc, which every op it emits carries unless told
otherwise.  Lowering (frontend/), rule splicing (ad/splice.py) and the reverse
transform (ad/reverse/adjoint.py: the backward block) build IR through it.

The API is small on purpose:
  emit(opcode, operands, nresults, attrs, regions, hints, loc) -> Op
  insert(op) -> Op                  place an op built elsewhere
  const(value) / call(fn, *args)    the two ops every client makes
  at(block, index) / at_loc(loc)    move the insertion point / location for a while
  replace_op(old, opcode, ...)      a module function: swap in a new op that takes
                                    over old's result values, so no use changes

Passes never recycle an op by assigning to `op.opcode`: an op's identity
tells its kind for its whole life (review W1).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import SourceLoc
from .core import Block, Op, Value

_CURRENT = object()  # "the builder's current location"


class IRBuilder:
    def __init__(self, block: Block | None = None, index: int | None = None,
                 loc: SourceLoc | None = None):
        self.block = block
        self.index = index  # None: append at the end of block
        self.loc = loc

    # -- placing ops --------------------------------------------------------------
    def insert(self, op: Op) -> Op:
        """Put op at the insertion point (which then moves past it)."""
        if self.index is None:
            return self.block.append(op)
        self.block.insert(self.index, op)
        self.index += 1
        return op

    def emit(self, opcode: str, operands=(), nresults: int = 1, attrs=None, regions=(), hints=(),
             loc=_CURRENT) -> Op:
        """Build an op at the insertion point; loc defaults to the builder's."""
        return self.insert(Op(opcode, operands, nresults, attrs, regions,
                              self.loc if loc is _CURRENT else loc, hints=hints))

    def const(self, value, hint: str = "") -> Value:
        return self.emit("const", (), attrs={"value": value}, hints=[hint] if hint else ()).result

    def call(self, fn, *operands: Value, expr: str | None = None, hint: str = "") -> Value:
        """A plain positional call of a statically known callable."""
        attrs = {"fn": fn, "expr": expr or getattr(fn, "__name__", None), "kw": (), "star": ()}
        return self.emit("call", list(operands), attrs=attrs, hints=[hint] if hint else ()).result

    # -- moving around ------------------------------------------------------------
    @contextmanager
    def at(self, block: Block, index: int | None = None) -> Iterator[IRBuilder]:
        """Emit into block (before index, or at its end) until the with-block ends."""
        saved = self.block, self.index
        self.block, self.index = block, index
        try:
            yield self
        finally:
            self.block, self.index = saved

    @contextmanager
    def at_loc(self, loc: SourceLoc | None) -> Iterator[IRBuilder]:
        saved = self.loc
        self.loc = loc
        try:
            yield self
        finally:
            self.loc = saved


def replace_op(old: Op, opcode: str, operands=(), attrs=None, regions=()) -> Op:
    """Put a new op in old's place in its block; it takes over old's result values
    (same ids, hints and uses) and location.  old is left detached."""
    new = Op(opcode, operands, 0, attrs, regions, old.loc)
    new.results = old.results
    for result in new.results:
        result.owner = new
    block = old.block
    block.ops[block.ops.index(old)] = new
    new.block = block
    old.block, old.results = None, []
    return new
