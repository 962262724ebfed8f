"""The IR verifier: checks SSA and structural invariants after every pass in tests.

Checked: each value is defined once; every operand is defined before its use
in a block that encloses the use (dominance for structured IR); each block
ends in exactly one terminator and has none elsewhere; each op's block link
and each region's parent link are right; terminators yield as many values as
their enclosing op expects.
"""

from __future__ import annotations

from .core import Block, Function, Op, Value


class VerifyError(Exception):
    """The IR broke an invariant: a compiler bug, never the user's fault."""


_EXPECTS_ARITY = {"if", "for", "while"}


def _yield_arity(op: Op, region_index: int) -> int | None:
    if op.opcode == "if":
        return len(op.results)
    if op.opcode == "for":
        return len(op.results)
    if op.opcode == "while":
        return 1 if region_index == 0 else len(op.results)
    return None


def verify(fn: Function) -> None:
    defined: set[int] = set()

    def define(value: Value) -> None:
        if value.id in defined:
            raise VerifyError(f"{value!r} defined twice in {fn.name}")
        defined.add(value.id)

    def check_block(block: Block, visible: set[int], expected_terminator: str, arity) -> None:
        scope = set(visible)
        for arg in block.args:
            define(arg)
            scope.add(arg.id)
        if not block.ops or block.ops[-1].opcode != expected_terminator:
            raise VerifyError(f"block in {fn.name} does not end in {expected_terminator}")
        for index, op in enumerate(block.ops):
            if op.block is not block:
                raise VerifyError(f"{op!r} has a wrong block link")
            if op.opcode in ("yield", "return") and index != len(block.ops) - 1:
                raise VerifyError(f"terminator {op!r} in the middle of a block")
            for operand in op.operands:
                if operand.id not in scope:
                    raise VerifyError(f"{op!r} uses {operand!r} before its definition in {fn.name}")
            for i, region in enumerate(op.regions):
                if region.parent is not op:
                    raise VerifyError(f"region of {op!r} has a wrong parent link")
                check_block(region, scope, "yield", _yield_arity(op, i))
            for result in op.results:
                define(result)
                scope.add(result.id)
        if arity is not None and len(block.ops[-1].operands) != arity:
            raise VerifyError(f"{block.ops[-1]!r} yields {len(block.ops[-1].operands)} values, expected {arity}")

    if fn.params != fn.body.args:
        raise VerifyError(f"{fn.name}: parameters are not the body's block arguments")
    check_block(fn.body, set(), "return", None)
