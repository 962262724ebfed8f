"""Declared ops: one `OpDef` per opcode, and accessors for their operand layouts.

An op is still an `Op` with a string opcode (see core.py); this module says
what each opcode means, once, so that no pass has to work it out again:

- operands and region arguments come in named *segments*; a segment's length
  is fixed (an int), the rest of the list (`"*"`, at most one per layout), as
  many as the op has results (`"results"`), or given by an attr (its value if
  an int, its length if a tuple: `"ntargets"`, `"names"`);
- the result arity (a count of the same kinds);
- each region's role, its argument segments and how many values its
  terminator yields;
- purity: True when the op may be removed if its results are unused, False
  when it has effects, None when that depends on the op (a call on its
  callee, a branch or loop on its body: see analysis/purity.py);
- the attrs the op may carry, each with its type and whether it is required.

The verifier (verify.py) checks every op against its OpDef.  Passes read
layouts through `segments`, `region_segments` and `loop_layout` rather than
slicing operand lists by hand.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# Op and Value (core.py, which imports this module) appear here only in annotations,
# which are strings under `from __future__ import annotations`: no import, no circle

Count = int | str  # 3, "*", "results", or the name of an attr


@dataclass(frozen=True)
class Attr:
    """One attr an op may carry: `accepts(value)` says whether its value is well typed."""

    accepts: Callable[[Any], bool]
    describe: str
    required: bool = False


@dataclass(frozen=True)
class RegionDef:
    role: str
    args: tuple[tuple[str, Count], ...] = ()
    yields: Count = 0


@dataclass(frozen=True)
class OpDef:
    opcode: str
    doc: str
    operands: tuple[tuple[str, Count], ...] = ()
    results: Count = 1
    regions: tuple[RegionDef, ...] = ()
    pure: bool | None = True
    terminator: bool = False
    attrs: dict[str, Attr] = field(default_factory=dict)


# -- attr types ------------------------------------------------------------------


def _of(*kinds, optional_none=False, describe=""):
    def accepts(value):
        return (optional_none and value is None) or isinstance(value, kinds)
    return accepts, describe or " or ".join(k.__name__ for k in kinds) + (" or None" if optional_none else "")


def _attr(kinds, required=False, optional_none=False, describe=""):
    if not isinstance(kinds, tuple):
        kinds = (kinds,)
    accepts, text = _of(*kinds, optional_none=optional_none, describe=describe)
    return Attr(accepts, text, required)


def _tuple_of(item_ok: Callable[[Any], bool], describe: str, required=False) -> Attr:
    return Attr(lambda v: isinstance(v, tuple) and all(item_ok(x) for x in v), describe, required)


def _is_int(value) -> bool:
    return type(value) is int


def _any(required=False) -> Attr:
    return Attr(lambda v: True, "any value", required)


_CALLABLE = Attr(callable, "a callable", True)
_NAME = _attr(str, required=True)
_EXPR = _attr(str, optional_none=True)
_KW = _tuple_of(lambda k: k is None or isinstance(k, str), "a tuple of keyword names (None for **)")
_STAR = _tuple_of(_is_int, "a tuple of operand indices")
_EXIT = _tuple_of(_is_int, "a tuple of slot indices")
_CALL_ATTRS = {"fn": _CALLABLE, "expr": _EXPR, "kw": _KW, "star": _STAR}

FOR_KINDS = ("range", "iter", "zip", "enumerate", "reversed")
DYNCALL_KINDS = ("call", "callv", "method")

# -- the ops ---------------------------------------------------------------------

_DEFS = [
    OpDef("const", "a Python constant (`static` marks a callee or module named in the source)",
          attrs={"value": _any(required=True), "expr": _EXPR, "static": _attr(bool)}),
    OpDef("global", "a run-time read of a module global", attrs={"name": _NAME}),
    OpDef("cell", "a run-time read of a closure cell", attrs={"name": _NAME}),
    OpDef("closure", "a nested function made into a value over its captured values and defaults",
          operands=(("captured", "names"), ("defaults", "ndefaults"), ("kwdefaults", "kwdefaults")),
          attrs={"code": _attr(types.CodeType, required=True),
                 "names": _tuple_of(lambda n: isinstance(n, str), "a tuple of names", True),
                 "ndefaults": Attr(_is_int, "int", True),
                 "kwdefaults": _tuple_of(lambda n: isinstance(n, str), "a tuple of names", True)}),
    OpDef("call", "a call of a statically known callable", operands=(("args", "*"),), pure=None,
          attrs=_CALL_ATTRS),
    OpDef("callv", "a call of a callable value", operands=(("callee", 1), ("args", "*")), pure=False,
          attrs={"kw": _KW, "star": _STAR}),
    OpDef("method", "obj.name(args)", operands=(("obj", 1), ("args", "*")), pure=False,
          attrs={"name": _NAME, "kw": _KW, "star": _STAR}),
    OpDef("getattr", "obj.name", operands=(("obj", 1),), attrs={"name": _NAME}),
    OpDef("tuple", "a tuple literal", operands=(("items", "*"),)),
    OpDef("list", "a list literal", operands=(("items", "*"),)),
    OpDef("dict", "a dict literal: keys and values alternate", operands=(("pairs", "*"),)),
    OpDef("unpack", "a, *b, c = v: one result per target", operands=(("source", 1),), results="n",
          attrs={"n": Attr(_is_int, "int", True), "star": Attr(lambda v: v is None or _is_int(v),
                                                              "int or None")}),
    OpDef("append", "xs + [v], for a list created in this function",
          operands=(("container", 1), ("item", 1))),
    OpDef("extend", "[*xs, *vs], for a list created in this function",
          operands=(("container", 1), ("items", 1))),
    OpDef("setitem", "{**d, k: v}, for a dict created in this function",
          operands=(("container", 1), ("key", 1), ("value", 1))),
    OpDef("undef", "the value of a variable not assigned on this path"),
    OpDef("assert", "assert test[, message]", operands=(("test", 1), ("message", "*")), results=0,
          pure=False),
    OpDef("raise", "raise exc", operands=(("exc", 1),), results=0, pure=False),
    OpDef("if", "two regions; each yields the merged values, the op's results",
          operands=(("cond", 1),), results="*", pure=None,
          regions=(RegionDef("then", yields="results"), RegionDef("else", yields="results"))),
    OpDef("for", "iterate over the iterables (as `kind` says), carrying values around the body",
          operands=(("iterables", "*"), ("inits", "results")), results="*", pure=None,
          regions=(RegionDef("body", (("targets", "ntargets"), ("carried", "results")), "results"),),
          attrs={"kind": Attr(lambda v: v in FOR_KINDS, f"one of {FOR_KINDS}", True),
                 "ntargets": Attr(_is_int, "int", True), "exit": _EXIT}),
    OpDef("while", "run body while cond yields true; both regions receive the carried values",
          operands=(("inits", "results"),), results="*", pure=None,
          regions=(RegionDef("cond", (("carried", "results"),), 1),
                   RegionDef("body", (("carried", "results"),), "results")),
          attrs={"exit": _EXIT}),
    OpDef("yield", "ends a region: its values flow to the enclosing op", operands=(("values", "*"),),
          results=0, terminator=True),
    OpDef("return", "ends a function body", operands=(("value", 1),), results=0, pure=False,
          terminator=True),
    # added by the reverse transform
    OpDef("call_pb", "a user function's forward pass: (value, pullback)", operands=(("args", "*"),),
          results=2, pure=False,
          attrs={**_CALL_ATTRS, "pb_expr": _attr(str, required=True),
                 # a symbolic reference (ad.reverse.callees.CalleeRef) the driver resolves
                 "callee": Attr(lambda v: all(hasattr(v, k) for k in ("fn", "active", "implicit")),
                                "a callee reference (fn, active, implicit)", True)}),
    OpDef("dyncall", "a call resolved at run time: (value, pullback); operand 0 is the callee "
          "(callv) or the object (method)", operands=(("args", "*"),), results=2, pure=False,
          attrs={"dyn_kind": Attr(lambda v: v in DYNCALL_KINDS, f"one of {DYNCALL_KINDS}", True),
                 "fn": Attr(callable, "a callable"), "name": _attr(str), "expr": _EXPR,
                 "kw": _KW, "star": _STAR}),
    OpDef("call_back", "back(g): one result per cotangent the pullback returns",
          operands=(("pullback", 1), ("cotangent", 1)), results="*", pure=False),
    OpDef("tape_new", "a fresh, empty tape"),
    OpDef("tape_open", "the backward pass's handle on a tape", operands=(("tape", 1),), pure=False),
    OpDef("tape_push", "save values on a tape (`last`: on the region's last push, how many values "
          "the region pushes in all; a long tape spills there)", operands=(("tape", 1), ("values", "*")),
          results=0, pure=False, attrs={"last": _attr(int)}),
    OpDef("tape_pop", "restore the values pushed last (`first`: the backward region's first pop, "
          "where a spilled tape refills)", operands=(("tape", 1),), results="*", pure=False,
          attrs={"first": _attr(bool)}),
]

OPS: dict[str, OpDef] = {d.opcode: d for d in _DEFS}
TERMINATORS = frozenset(d.opcode for d in _DEFS if d.terminator)
LOOPS = frozenset({"for", "while"})


class UnknownOpcode(KeyError):
    """An opcode with no OpDef: a compiler bug."""


def opdef(opcode: str) -> OpDef:
    try:
        return OPS[opcode]
    except KeyError:
        raise UnknownOpcode(f"no OpDef for opcode {opcode!r}") from None


# -- layouts ---------------------------------------------------------------------


def count_of(op: Op, count: Count) -> int | None:
    """How many values a segment or result count stands for on op; None for "*"."""
    if isinstance(count, int):
        return count
    if count == "*":
        return None
    if count == "results":
        return len(op.results)
    value = op.attrs.get(count)
    return len(value) if isinstance(value, tuple) else value


def split(op: Op, layout, values: list[Value]) -> dict[str, list[Value]]:
    """values cut into the named segments of layout (the variadic one takes the rest).

    Raises ValueError when the counts cannot add up to len(values)."""
    fixed = [count_of(op, count) for _, count in layout]
    known = sum(n for n in fixed if n is not None)
    rest = len(values) - known
    if rest < 0 or (None not in fixed and rest != 0):
        raise ValueError(f"{op.opcode} has {len(values)} values where its layout needs "
                         f"{known}{' or more' if None in fixed else ''}")
    out, start = {}, 0
    for (name, _), n in zip(layout, fixed):
        n = rest if n is None else n
        out[name] = values[start:start + n]
        start += n
    return out


def segments(op: Op) -> dict[str, list[Value]]:
    """op's operands by segment name: `segments(loop)["inits"]`."""
    return split(op, opdef(op.opcode).operands, op.operands)


def region_segments(op: Op, index: int) -> dict[str, list[Value]]:
    """The arguments of op's index-th region by segment name."""
    return split(op, opdef(op.opcode).regions[index].args, op.regions[index].args)


@dataclass(frozen=True)
class LoopLayout:
    """A `for` or `while` op taken apart: slot k is carried by inits[k] -> carried[k]
    (and cond_args[k] for while) -> yields[k] -> results[k]."""

    iterables: list[Value]  # for: the iterated values; while: []
    inits: list[Value]
    targets: list[Value]  # for: the body arguments bound to items; while: []
    carried: list[Value]  # the body's arguments that carry the slots
    cond_args: list[Value]  # while: the cond region's arguments; for: []
    yields: list[Value]  # what the body yields back, one per slot
    results: list[Value]


def loop_layout(op: Op) -> LoopLayout:
    if op.opcode not in LOOPS:
        raise ValueError(f"loop_layout of a {op.opcode} op")
    operands = segments(op)
    body = op.regions[-1]
    args = region_segments(op, len(op.regions) - 1)
    cond_args = region_segments(op, 0)["carried"] if op.opcode == "while" else []
    return LoopLayout(operands.get("iterables", []), operands["inits"], args.get("targets", []),
                      args["carried"], cond_args, list(body.ops[-1].operands), list(op.results))
