"""The SSA intermediate representation: values, ops, blocks and functions.

Every value is assigned once.  Control flow is structured: `if`, `for` and
`while` are ops that own nested blocks (regions).  Values merging after a
branch, or carried around a loop, are block arguments and op results rather
than phi nodes.  A block ends with a terminator (`yield`, or `return` in a
function body) whose operands flow to the enclosing op's results (or, for a
loop body, to its next iteration).

The op vocabulary is declared in ops.py (one OpDef per opcode: operand
layout, result arity, regions, purity, typed attrs).  In brief (attrs in brackets):
  const [value]                      a Python constant
  global [name] / cell [name]        runtime read of a module global / closure cell
  call [fn, expr, kw, star]          call of a statically known callable
  callv [kw, star]                   call of a callable value (operand 0)
  method [name, kw, star]            obj.name(args) (operand 0 is obj)
  getattr [name]                     obj.name
  tuple / list / dict                container literals (dict: keys and values alternate)
  unpack [n, star]                   a, *b, c = v
  append / extend / setitem          functional update of a list/dict created here
  if                                 operand: cond; regions then/else; results merged values
  for [kind, exit, ntargets]         operands: iterables..., inits...; region args: targets..., carried...
  while [exit]                       operands: inits; regions cond (yields flag) and body
  yield / return                     terminators
  assert, raise, undef               assertion; raise; the value of a not-yet-assigned variable
  closure [code, names, ndefaults, kwdefaults]   a nested function as a value
  call_pb, dyncall, call_back,       added by the reverse transform: calls returning
  tape_new/open/push/pop             (value, pullback), pullback calls, per-loop tapes
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..errors import SourceLoc
from .ops import TERMINATORS, loop_layout

_ids = iter(range(1 << 62))


class Value:
    """An SSA value: defined once, by an op result or a block argument."""

    __slots__ = ("hint", "id", "owner")

    def __init__(self, hint: str = "", owner: Any = None):
        self.id = next(_ids)
        self.hint = hint  # the user's variable name, used for readable generated names
        self.owner = owner  # the defining Op, or the Block for a block argument

    @property
    def defining_op(self) -> Op | None:
        return self.owner if isinstance(self.owner, Op) else None

    def __repr__(self) -> str:
        return f"%{self.hint or 'v'}.{self.id}"


class Op:
    """One operation; `regions` are nested blocks for structured control flow."""

    __slots__ = ("attrs", "block", "loc", "opcode", "operands", "regions", "results")

    def __init__(self, opcode, operands=(), nresults=0, attrs=None, regions=(), loc=None, hints=()):
        self.opcode: str = opcode
        self.operands: list[Value] = list(operands)
        self.attrs: dict = dict(attrs or {})
        self.regions: list[Block] = list(regions)
        self.loc: SourceLoc | None = loc
        self.block: Block | None = None
        if nresults == 1:  # (most ops: a build makes thousands)
            self.results: list[Value] = [Value(hints[0] if hints else "", self)]
        else:
            hints = list(hints) + [""] * (nresults - len(hints))
            self.results = [Value(hints[i], self) for i in range(nresults)]
        for region in self.regions:
            region.parent = self

    @property
    def result(self) -> Value:
        return self.results[0]

    def __repr__(self) -> str:
        return f"<Op {self.opcode} {self.results} <- {self.operands}>"


class Block:
    """A list of ops ending in a terminator, with arguments."""

    __slots__ = ("args", "ops", "parent")

    def __init__(self, arg_hints=()):
        self.args: list[Value] = [Value(h, self) for h in arg_hints]
        self.ops: list[Op] = []
        self.parent: Op | None = None

    def add_arg(self, hint: str = "") -> Value:
        value = Value(hint, self)
        self.args.append(value)
        return value

    def append(self, op: Op) -> Op:
        op.block = self
        self.ops.append(op)
        return op

    def insert(self, index: int, op: Op) -> Op:
        op.block = self
        self.ops.insert(index, op)
        return op

    @property
    def terminator(self) -> Op | None:
        return self.ops[-1] if self.ops and self.ops[-1].opcode in TERMINATORS else None

    def walk(self) -> Iterator[Op]:
        """Every op in this block and its nested regions, in program order."""
        for op in self.ops:
            yield op
            for region in op.regions:
                yield from region.walk()


@dataclass
class Function:
    """A function in IR form plus what codegen needs to know of its origin."""

    name: str
    params: list[Value]
    body: Block
    loc: SourceLoc | None = None
    # Python signature facts: parameter names, kinds and defaults (see frontend.scope)
    signature: Any = None
    meta: dict = field(default_factory=dict)

    def walk(self) -> Iterator[Op]:
        return self.body.walk()


def enclosing_ops(block: Block) -> Iterator[Op]:
    """The ops that (transitively) own block, innermost first."""
    op = block.parent
    while op is not None:
        yield op
        op = op.block.parent if op.block is not None else None


def is_inside(block: Block | None, ancestor: Block) -> bool:
    """True if block is ancestor or nested (at any depth) inside it."""
    while block is not None:
        if block is ancestor:
            return True
        owner = block.parent
        block = owner.block if owner is not None else None
    return False


def value_block(value: Value) -> Block | None:
    """The block in which value is defined."""
    owner = value.owner
    if isinstance(owner, Block):
        return owner
    if isinstance(owner, Op):
        return owner.block
    return None


def iteration_pairs(loop: Op) -> list[tuple[Value, Value]]:
    """(iterable, target) pairs of a `for` op: the block arguments that are items of
    an iterable (range indices and enumerate counters are not)."""
    kind = loop.attrs.get("kind")
    layout = loop_layout(loop)
    iterables, targets = layout.iterables, layout.targets
    if kind == "enumerate":
        return [(iterables[0], targets[1])]
    if kind in ("iter", "reversed", "zip"):
        return list(zip(iterables, targets))
    return []
