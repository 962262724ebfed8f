"""Python names for IR values: readable, deterministic, and copy-free where safe.

Values are named after the user's variables (`h`, `h_1`, ...), cotangents
`x_bar`, internals `_zp_...`.  The values that meet at a branch or go around a
loop (initial value, block argument, yielded value, result) are given one
name when their live ranges do not overlap, so `x = f(x)` in a loop needs no
copies.  Live ranges are computed over the forward code followed by the
adjoint, because the adjoint reads forward values directly (in pullback form
the adjoint is a closure that runs after the forward, which orders the same).
"""

from __future__ import annotations

import keyword
import re

from ..ir.core import Block, Op, Value
from ..ir.ops import loop_layout
from ..rules.indexing import _add_index_cotangent
from ..runtime import writes

_IDENT = re.compile(r"[^0-9a-zA-Z_]")

# forward ops that hold on to their operands until the adjoint runs (a tape, a pullback)
_KEEPS_OPERANDS = ("tape_push", "call_pb", "dyncall")


class Liveness:
    """Positions of defs and uses over [forward body, backward block]."""

    def __init__(self, blocks: list[Block], params: list[Value]):
        self.pos = 0
        self.defs: dict[int, int] = {}
        self.last: dict[int, int] = {}
        self.values: dict[int, Value] = {}
        self.op_pos: dict[int, int] = {}
        self.kept: set[int] = set()  # values a pullback or tape holds on to (see keep)
        for p in params:
            self.define(p, 0)
        for block in blocks:
            self.visit_block(block)
        self.spread_kept(blocks)

    def define(self, value: Value, pos: int) -> None:
        self.defs.setdefault(value.id, pos)
        self.last.setdefault(value.id, pos)
        self.values[value.id] = value

    def visit_block(self, block: Block) -> None:
        self.pos += 1  # block arguments begin after the op that owns the block reads its operands
        start = self.pos
        for arg in block.args:
            self.define(arg, start)
        for op in block.ops:
            self.pos += 1
            here = self.pos
            self.op_pos[id(op)] = here
            for v in op.operands:
                self.use(v, here)
            if op.opcode in _KEEPS_OPERANDS:
                for v in op.operands[1:] if op.opcode == "tape_push" else op.operands:
                    self.keep(v)
            for region in op.regions:
                self.visit_block(region)
            if op.opcode in ("for", "while"):
                # a value read inside the loop but defined before it lives to the loop's end
                end = self.pos
                for region in op.regions:
                    for inner in region.walk():
                        for v in inner.operands:
                            if self.defs.get(v.id, 0) < here:
                                self.last[v.id] = max(self.last[v.id], end)
            self.pos += 1
            for r in op.results:
                self.define(r, self.pos)

    def keep(self, value: Value) -> None:
        """value (and the containers' items it is built from) is held by a pullback or a
        tape until the adjoint runs: a later version of it must be a new object, never
        the same list updated in place (`xs.append(v)` after `back = call(getitem, xs)`
        would change what the pullback reads)."""
        if value.id in self.kept:
            return
        self.kept.add(value.id)
        op = value.defining_op
        if op is not None and op.opcode in ("tuple", "list", "dict"):
            for item in op.operands:
                self.keep(item)

    def spread_kept(self, blocks: list[Block]) -> None:
        """A kept value is the same object as the loop and branch values it flows into
        unchanged (a loop's argument and result from its initial or yielded value, an
        `if`'s result from a branch's yield): those are kept too, so a nested loop
        extending the list a tape saved makes a new list."""
        changed = True
        while changed:
            changed = False
            for block in blocks:
                for op in block.walk():
                    pairs = []
                    if op.opcode in ("for", "while"):
                        layout = loop_layout(op)
                        for k, result in enumerate(layout.results):
                            targets = [layout.carried[k], result]
                            if layout.cond_args:
                                targets.append(layout.cond_args[k])
                            pairs += [(layout.inits[k], t) for t in targets]
                            pairs += [(layout.yields[k], t) for t in targets]
                    elif op.opcode == "if":
                        for region in op.regions:
                            pairs += list(zip(region.ops[-1].operands, op.results))
                    for source, target in pairs:
                        if source.id in self.kept and target.id not in self.kept:
                            self.kept.add(target.id)
                            changed = True

    def use(self, value: Value, pos: int) -> None:
        if value.id not in self.defs:
            self.define(value, 0)
        self.last[value.id] = max(self.last[value.id], pos)

    def interval(self, value: Value) -> tuple[int, int]:
        return self.defs.get(value.id, 0), self.last.get(value.id, 0)


class Names:
    """Union-find of values sharing a name, with live-interval checks."""

    def __init__(self, liveness: Liveness, reserved: set[str]):
        self.liveness = liveness
        self.parent: dict[int, int] = {}
        self.intervals: dict[int, list[tuple[int, int]]] = {}
        self.members: dict[int, list[Value]] = {}
        self.reserved = set(reserved)
        self.taken: set[str] = set()
        # names of objects the generated code reads from its closure (the Binder's; shared
        # by the Emitter): a local of the same name would hide them
        self.bound: dict[str, object] = {}
        self.roots: set[str] = set()  # ... and the user's globals it reads by name (np)
        self.assigned: dict[int, str] = {}
        self.user_hints = {v.hint for v in liveness.values.values() if v.hint}
        self.temporary = _temporary_base(self.user_hints)

    def find(self, vid: int) -> int:
        while self.parent.get(vid, vid) != vid:
            vid = self.parent[vid]
        return vid

    def _ensure(self, value: Value) -> int:
        if value.id not in self.parent:
            self.parent[value.id] = value.id
            self.intervals[value.id] = [self.liveness.interval(value)]
            self.members[value.id] = [value]
        return self.find(value.id)

    def try_union(self, a: Value, b: Value) -> bool:
        ra, rb = self._ensure(a), self._ensure(b)
        if ra == rb:
            return True
        name_a, name_b = self.assigned.get(ra), self.assigned.get(rb)
        if name_a is not None and name_b is not None and name_a != name_b:
            return False
        for s1, e1 in self.intervals[ra]:
            for s2, e2 in self.intervals[rb]:
                if s1 <= e2 and s2 <= e1:
                    return False
        if name_b is not None:
            self.assigned[ra] = self.assigned.pop(rb)
        self.parent[rb] = ra
        self.intervals[ra] += self.intervals.pop(rb)
        self.members[ra] += self.members.pop(rb)
        return True

    def force_union(self, a: Value, b: Value) -> None:
        """One name for a and b whatever their intervals (the caller has checked safety)."""
        ra, rb = self._ensure(a), self._ensure(b)
        if ra == rb:
            return
        if rb in self.assigned and ra not in self.assigned:
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.intervals[ra] += self.intervals.pop(rb)
        self.members[ra] += self.members.pop(rb)
        self.assigned.pop(rb, None)

    def name(self, value: Value) -> str:
        root = self._ensure(value)
        name = self.assigned.get(root)
        if name is None:
            hints = [m.hint for m in self.members[root] if m.hint]
            # temporaries stay clear of every user variable name, so `t` stays the user's `t`
            name = self.fresh(hints[0]) if hints else self.fresh(self.temporary, avoid=self.user_hints)
            self.assigned[root] = name
        return name

    def peek(self, value: Value) -> str | None:
        """The name `value` already has, or None; chooses none."""
        if value.id not in self.parent:
            return None
        return self.assigned.get(self.find(value.id))

    def fresh(self, hint: str, avoid: set[str] = frozenset()) -> str:
        base = _IDENT.sub("_", hint) or "t"
        if base[0].isdigit():
            base = "v" + base
        if keyword.iskeyword(base):
            base += "_"
        candidate, n = base, 0
        while candidate in self.taken or candidate in self.reserved or candidate in avoid \
                or candidate in self.bound or candidate in self.roots:
            n += 1
            candidate = f"{base}_{n}"
        self.taken.add(candidate)
        return candidate


def function_name(name: str) -> str:
    """A Python identifier for a generated function named after the user's function,
    whose __name__ may be anything a program assigned (`grad_of_<lambda>`)."""
    base = _IDENT.sub("_", str(name)) or "f"
    if base[0].isdigit():
        base = "f" + base
    return base + "_" if keyword.iskeyword(base) else base


def _temporary_base(hints: set[str]) -> str:
    """The stem of temporaries' names: `t` (t, t_1, ...), unless the user has a `t` or a
    `t_2`, whose versions the temporaries would read as; then `tmp`, and so on."""
    for base in ("t", "tmp", "temp"):
        version = re.compile(re.escape(base) + r"(_\d+)?")
        if not any(version.fullmatch(h) for h in hints):
            return base
    return "_zp_t"


def coalesce(names: Names, blocks: list[Block], mandatory_ok) -> None:
    """Try to give the values meeting at each branch and loop one name."""
    readers: dict[int, list[Op]] = {}
    for block in blocks:
        for op in block.walk():
            for v in op.operands:
                readers.setdefault(v.id, []).append(op)
    forward = blocks[0]

    def in_place_ok(mutation: Op) -> bool:
        """`xs.append(v)` may update xs in place when the old version is read only
        before the update, or where branches merge -- never by the adjoint or a tape
        (which would then see the updated list), nor by a call that returns a pullback:
        the pullback keeps its arguments and reads them when the adjoint runs."""
        here = names.liveness.op_pos[id(mutation)]
        if mutation.operands[0].id in names.liveness.kept:
            return False
        if _same_object_as_another(mutation.operands[0]):
            return False  # another value (a tape's, an earlier name's) is that very list
        for reader in readers.get(mutation.operands[0].id, []):
            if reader is mutation or reader.opcode == "yield":
                continue
            if reader.opcode in _KEEPS_OPERANDS or not _in_block(reader, forward):
                return False
            if names.liveness.op_pos[id(reader)] > here:
                return False
        return True

    # values a tape saves: the tape holds the object, so a list or dict saved in a loop
    # must not become the one that a later append or item write updates in place
    saved = {v.id for op in forward.walk() if op.opcode == "tape_push" for v in op.operands[1:]}

    def updates_in_place(value: Value) -> bool:
        op = value.defining_op
        return op is not None and op.opcode in ("append", "extend", "setitem")

    for block in blocks:
        for op in block.walk():
            if op.opcode == "if":
                for k, result in enumerate(op.results):
                    for region in op.regions:
                        y = region.ops[-1].operands[k]
                        if _own_def(y, region):
                            names.try_union(result, y)
            elif op.opcode in ("for", "while"):
                body = op.regions[-1]
                layout = loop_layout(op)
                yields = layout.yields
                for k, result in enumerate(op.results):
                    arg = layout.carried[k]
                    names.try_union(arg, result)
                    if layout.cond_args:
                        names.try_union(arg, layout.cond_args[k])
                    y = yields[k]
                    if _own_def(y, body) and yields.count(y) == 1 \
                            and not (arg.id in saved and updates_in_place(y)):
                        names.try_union(arg, y)
                    init = layout.inits[k]
                    # `h = x` before the loop reads better than renaming the loop's h to x
                    if mandatory_ok(init) and init.hint in ("", arg.hint):
                        names.try_union(arg, init)
            elif op.opcode in ("append", "extend", "setitem"):
                if in_place_ok(op):
                    names.force_union(op.operands[0], op.result)
            elif _updates_its_first_operand(op):
                # `acc = add_index_cotangent(acc, ...)`: the helper adds in place only where no
                # other variable holds acc (its reference count); an older name of the same
                # array kept alive would make it copy (only where the intervals allow)
                names.try_union(_first_operand(op), op.results[-1])


def _updates_its_first_operand(op: Op) -> bool:
    """A fused index accumulation (codegen/fuse.py) or the unpacked pair of a write's
    backward (`v_bar, x_bar = undo_write_split(x_bar, ...)`): its (last) result is its
    first operand's array, updated in place where no other variable holds it."""
    if op.opcode == "call":
        return op.attrs.get("fn") is _add_index_cotangent and bool(op.operands)
    if op.opcode == "unpack" and len(op.results) == 2 and op.operands:
        source = op.operands[0].defining_op
        return source is not None and source.opcode == "call" and \
            source.attrs.get("fn") is writes.undo_write_split and bool(source.operands)
    return False


def _first_operand(op: Op) -> Value:
    if op.opcode == "unpack":
        return op.operands[0].defining_op.operands[0]
    return op.operands[0]


def _same_object_as_another(value: Value) -> bool:
    """value is a list or dict written back after a write into an array it holds
    (runtime/writes.view_writeback): the same object as its operand, which the tape or
    another name may hold, so updating it in place would change theirs too."""
    op = value.defining_op
    return op is not None and op.opcode == "call" and op.attrs.get("fn") is writes.view_writeback


def _in_block(op: Op, block: Block) -> bool:
    while op is not None:
        if op.block is block:
            return True
        owner = op.block.parent if op.block is not None else None
        op = owner
    return False


def _own_def(value: Value, region: Block) -> bool:
    op = value.defining_op
    return op is not None and op.block is region and op.opcode not in ("const", "undef")
