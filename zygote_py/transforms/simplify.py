"""Cleanup passes over the IR: constant folding, forwarding, pruning, dead code.

- fold: calls of pure operators on constants are evaluated; `if` on a constant
  keeps one branch; results that every branch yields alike are forwarded;
  unpacking or indexing a tuple literal forwards the element.
- prune: a loop slot whose body yields its own argument back never changes,
  so its uses read the initial value instead.
- dce: mark-and-sweep from the return value and every effectful op; a loop or
  branch slot lives only if something live reads it.
Rule bodies lean on folding: `if b == 2:` with a constant exponent disappears.
"""

from __future__ import annotations

import builtins
import operator

from ..ir.clone import replace_all_uses
from ..ir.core import Block, Function, Op, Value
from ..analysis.purity import is_constant_foldable, is_pure

_PLAIN = (bool, int, float, complex, str, slice, type(None), type(Ellipsis))


def _is_plain(value) -> bool:
    if isinstance(value, tuple):
        return all(_is_plain(v) for v in value)
    return isinstance(value, _PLAIN)


def _is_type_spec(value) -> bool:
    if isinstance(value, type):
        return True
    return isinstance(value, tuple) and value != () and all(isinstance(t, type) for t in value)


def const_value(value: Value, default=None):
    op = value.defining_op
    if op is not None and op.opcode == "const":
        return op.attrs["value"]
    return default


_NOT_CONST = object()


def _make_const(op: Op, value) -> None:
    op.opcode, op.operands, op.attrs, op.regions = "const", [], {"value": value}, []


def fold(block: Block, mapping: dict[int, Value]) -> bool:
    changed = False
    index = 0
    while index < len(block.ops):
        op = block.ops[index]
        for region in op.regions:
            changed |= fold(region, mapping)
        operands = [mapping.get(v.id, v) for v in op.operands]
        op.operands = operands
        if op.opcode == "call" and not op.attrs.get("kw") and not op.attrs.get("star") \
                and is_constant_foldable(op.attrs["fn"]):
            values = [const_value(v, _NOT_CONST) for v in operands]
            if all(v is not _NOT_CONST and _is_plain(v) for v in values):
                try:
                    result = op.attrs["fn"](*values)
                except Exception:  # leave it for run time, where it raises as in Python
                    result = _NOT_CONST
                if result is not _NOT_CONST and _is_plain(result):
                    _make_const(op, result)
                    changed = True
            elif op.attrs["fn"] is operator.getitem:
                changed |= _forward_getitem(op, operands, mapping)
            elif op.attrs["fn"] is builtins.isinstance and len(values) == 2 \
                    and values[0] is not _NOT_CONST and _is_plain(values[0]) and _is_type_spec(values[1]):
                _make_const(op, isinstance(values[0], values[1]))
                changed = True
        elif op.opcode == "unpack" and op.attrs.get("star") is None:
            changed |= _forward_unpack(op, operands[0], mapping)
        elif op.opcode == "if":
            cond = const_value(operands[0], _NOT_CONST)
            if cond is not _NOT_CONST:
                branch = op.regions[0] if cond else op.regions[1]
                yields = branch.ops[-1].operands
                inner = branch.ops[:-1]
                for k, result in enumerate(op.results):
                    mapping[result.id] = mapping.get(yields[k].id, yields[k])
                del block.ops[index]
                for offset, moved in enumerate(inner):
                    block.insert(index + offset, moved)
                changed = True
                continue
            changed |= _forward_same_yields(op, mapping)
        index += 1
    return changed


def _forward_getitem(op, operands, mapping) -> bool:
    container, key = operands
    src = container.defining_op
    k = const_value(key, _NOT_CONST)
    if src is None or type(k) is not int or src.opcode not in ("tuple",):
        if src is not None and src.opcode == "const" and isinstance(src.attrs["value"], tuple) \
                and type(k) is int:
            try:
                _make_const(op, src.attrs["value"][k])
                return True
            except IndexError:
                return False
        return False
    if -len(src.operands) <= k < len(src.operands):
        mapping[op.result.id] = src.operands[k]
        op.opcode, op.operands, op.attrs = "const", [], {"value": None}  # now dead
        return True
    return False


def _forward_unpack(op, source, mapping) -> bool:
    src = source.defining_op
    if src is None:
        return False
    if src.opcode == "tuple" and len(src.operands) == len(op.results):
        for result, value in zip(op.results, src.operands):
            mapping[result.id] = value
        op.opcode, op.operands, op.attrs = "undef", [], {}
        op.results = op.results[:1]  # one dead result left for the sweep to remove
        return True
    return False


def _forward_same_yields(op: Op, mapping) -> bool:
    then_yield, else_yield = (r.ops[-1].operands for r in op.regions)
    changed = False
    for k, result in enumerate(op.results):
        a, b = then_yield[k], else_yield[k]
        if a is b and result.id not in mapping:
            mapping[result.id] = a
            changed = True
    return changed


def prune_invariant_slots(block: Block, mapping: dict[int, Value]) -> bool:
    changed = False
    for op in block.ops:
        for region in op.regions:
            changed |= prune_invariant_slots(region, mapping)
        if op.opcode not in ("for", "while"):
            continue
        body = op.regions[-1]
        first_arg = op.attrs["ntargets"] if op.opcode == "for" else 0
        first_init = len(op.operands) - len(op.results)
        keep = []
        for k in range(len(op.results)):
            arg = body.args[first_arg + k]
            yielded = body.ops[-1].operands[k]
            if yielded is arg:
                init = op.operands[first_init + k]
                mapping[arg.id] = init
                mapping[op.results[k].id] = init
                if op.opcode == "while":
                    mapping[op.regions[0].args[k].id] = init
                changed = True
            else:
                keep.append(k)
        if len(keep) != len(op.results):
            remove_loop_slots(op, keep)
    return changed


def remove_loop_slots(op: Op, keep: list[int]) -> None:
    """Keep only the carried slots in `keep` (indices into op.results)."""
    first_init = len(op.operands) - len(op.results)
    first_arg = op.attrs.get("ntargets", 0) if op.opcode == "for" else 0
    op.operands = op.operands[:first_init] + [op.operands[first_init + k] for k in keep]
    op.results = [op.results[k] for k in keep]
    for i, region in enumerate(op.regions):
        region.args = region.args[:first_arg] + [region.args[first_arg + k] for k in keep]
        is_cond = op.opcode == "while" and i == 0
        if not is_cond:
            term = region.ops[-1]
            term.operands = [term.operands[k] for k in keep]
    if "exit" in op.attrs:
        op.attrs["exit"] = tuple(keep.index(k) for k in op.attrs["exit"] if k in keep)


def dce(fn: Function) -> bool:
    live_ops: set[int] = set()
    live_vals: set[int] = set()
    live_slots: set[tuple[int, int]] = set()
    work: list = []

    def mark_val(value: Value) -> None:
        if value.id not in live_vals:
            live_vals.add(value.id)
            work.append(("val", value))

    def mark_op(op: Op) -> None:
        if id(op) not in live_ops:
            live_ops.add(id(op))
            work.append(("op", op))

    def mark_slot(op: Op, k: int) -> None:
        if (id(op), k) not in live_slots:
            live_slots.add((id(op), k))
            first_init = len(op.operands) - len(op.results)
            mark_val(op.operands[first_init + k])
            body = op.regions[-1]
            mark_val(body.ops[-1].operands[k])
            mark_op(op)

    for op in fn.walk():
        if op.opcode == "return" or op.opcode not in ("yield",) and not is_pure(op):
            mark_op(op)

    while work:
        kind, item = work.pop()
        if kind == "op":
            op = item
            if op.opcode != "yield":
                if op.opcode in ("for", "while"):
                    first_init = len(op.operands) - len(op.results)
                    for v in op.operands[:first_init]:
                        mark_val(v)
                    for k in op.attrs.get("exit", ()):
                        mark_slot(op, k)
                    if op.opcode == "while":
                        mark_val(op.regions[0].ops[-1].operands[0])
                elif op.opcode == "if":
                    mark_val(op.operands[0])
                else:
                    for v in op.operands:
                        mark_val(v)
            parent = op.block.parent if op.block is not None else None
            if parent is not None:
                mark_op(parent)
        else:
            value = item
            owner = value.owner
            if isinstance(owner, Op):
                if owner.opcode == "if":
                    k = owner.results.index(value)
                    for region in owner.regions:
                        mark_val(region.ops[-1].operands[k])
                    mark_op(owner)
                elif owner.opcode in ("for", "while"):
                    mark_slot(owner, owner.results.index(value))
                else:
                    mark_op(owner)
            elif isinstance(owner, Block) and owner.parent is not None:
                loop = owner.parent
                if loop.opcode == "for":
                    index = owner.args.index(value) - loop.attrs["ntargets"]
                    if index >= 0:
                        mark_slot(loop, index)
                    else:
                        mark_op(loop)
                elif loop.opcode == "while":
                    mark_slot(loop, owner.args.index(value))

    changed = False

    def sweep(block: Block) -> None:
        nonlocal changed
        kept = []
        for op in block.ops:
            if op.opcode in ("yield", "return") or id(op) in live_ops:
                kept.append(op)
                for region in op.regions:
                    sweep(region)
                if op.opcode == "if":
                    keep = [k for k, r in enumerate(op.results) if r.id in live_vals]
                    if len(keep) != len(op.results):
                        op.results = [op.results[k] for k in keep]
                        for region in op.regions:
                            term = region.ops[-1]
                            term.operands = [term.operands[k] for k in keep]
                        changed = True
                elif op.opcode in ("for", "while"):
                    keep = [k for k in range(len(op.results)) if (id(op), k) in live_slots]
                    if len(keep) != len(op.results):
                        remove_loop_slots(op, keep)
                        changed = True
            else:
                changed = True
        block.ops = kept

    sweep(fn.body)
    return changed


def split_tuple_results(block: Block) -> bool:
    """An `if` result used only as r[0], r[1], ... becomes one result per element.

    Rules often return a tuple of cotangents from inside a branch; splitting it
    lets dead-code removal drop the cotangents nobody needs (an inactive
    operand's matmul, say)."""
    uses: dict[int, list[Op]] = {}
    for op in block.walk():
        for v in op.operands:
            uses.setdefault(v.id, []).append(op)
    changed = False
    for op in list(block.walk()):
        if op.opcode != "if":
            continue
        for k, result in enumerate(list(op.results)):
            readers = uses.get(result.id, [])
            indices = set()
            for reader in readers:
                key = const_value(reader.operands[1], _NOT_CONST) if len(reader.operands) == 2 else _NOT_CONST
                if not (reader.opcode == "call" and reader.attrs["fn"] is operator.getitem
                        and reader.operands[0] is result and type(key) is int and key >= 0):
                    break
                indices.add(key)
            else:
                if not readers:
                    continue
                tuples = [r.ops[-1].operands[k].defining_op for r in op.regions]
                # a branch yielding a tuple literal, or another if's result (which the
                # getitems inserted below then let the next round split in turn)
                if not any(t is not None and t.opcode in ("tuple", "if") for t in tuples):
                    continue
                size = max(indices) + 1
                new_results = {}
                for i in sorted(indices):
                    value = Value(result.hint, op)
                    op.results.append(value)
                    new_results[i] = value
                    for region in op.regions:
                        term = region.ops[-1]
                        src = term.operands[k].defining_op
                        if src is not None and src.opcode == "tuple" and len(src.operands) >= size:
                            term.operands.append(src.operands[i])
                        elif src is not None and (src.opcode == "undef" or (
                                src.opcode == "const" and src.attrs["value"] is None)):
                            term.operands.append(term.operands[k])  # a path that returns nothing here
                        else:
                            index = Op("const", (), 1, {"value": i})
                            item = Op("call", [term.operands[k], index.result], 1,
                                      {"fn": operator.getitem, "expr": "getitem", "kw": (), "star": ()})
                            region.insert(len(region.ops) - 1, index)
                            region.insert(len(region.ops) - 1, item)
                            term.operands.append(item.result)
                for reader in readers:
                    i = const_value(reader.operands[1])
                    reader.opcode, reader.attrs = "call", {"fn": _identity, "expr": "_identity",
                                                           "kw": (), "star": ()}
                    reader.operands = [new_results[i]]
                changed = True
    return changed


def _identity(x):
    return x


_identity._zp_pure = True


def _forward_identity(block: Block, mapping) -> None:
    for op in block.walk():
        if op.opcode == "call" and op.attrs["fn"] is _identity:
            mapping[op.result.id] = op.operands[0]


def simplify(fn: Function) -> None:
    """Run fold, prune and dce to a fixed point."""
    for _ in range(20):
        mapping: dict[int, Value] = {}
        changed = split_tuple_results(fn.body)
        _forward_identity(fn.body, mapping)
        changed |= fold(fn.body, mapping)
        changed |= prune_invariant_slots(fn.body, mapping)
        replace_all_uses(fn.body, mapping)
        changed |= dce(fn)
        if not changed:
            return


# The lowering's flag helper folds like an operator.
def _mark_foldable() -> None:
    from ..frontend import lower_stmt

    lower_stmt.builtins_or._zp_pure = True


_mark_foldable()
