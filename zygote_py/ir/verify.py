"""The IR verifier: checks SSA and structural invariants after every pass in tests.

Checked: each value is defined once; every operand is defined before its use
in a block that encloses the use (dominance for structured IR); each block
ends in exactly one terminator and has none elsewhere; each op's block link
and each region's parent link are right.  Every op is checked against its
OpDef (ops.py): the opcode is known, its operands fit the declared segments,
it has the declared number of results and regions, each region has the
declared arguments and its terminator yields the declared number of values,
and its attrs are declared, present when required and well typed.
`verify_ops` checks only the last part, for a block that is not a function.
"""

from __future__ import annotations

from .core import Block, Function, Op, Value
from .ops import OPS, OpDef, count_of, split


class VerifyError(Exception):
    """The IR broke an invariant: a compiler bug, never the user's fault."""


def check_op(op: Op) -> None:
    """Check op (not its regions' contents) against its OpDef."""
    definition = OPS.get(op.opcode)
    if definition is None:
        raise VerifyError(f"{op!r}: unknown opcode {op.opcode!r}")
    _check_attrs(op, definition)
    try:
        split(op, definition.operands, op.operands)
    except ValueError as err:
        raise VerifyError(f"{op!r}: operands do not fit its layout: {err}") from None
    results = count_of(op, definition.results)
    if results is not None and len(op.results) != results:
        raise VerifyError(f"{op!r} has {len(op.results)} results, expected {results}")
    if len(op.regions) != len(definition.regions):
        raise VerifyError(f"{op!r} has {len(op.regions)} regions, expected {len(definition.regions)}")
    for region, region_def in zip(op.regions, definition.regions):
        try:
            split(op, region_def.args, region.args)
        except ValueError as err:
            raise VerifyError(f"{op!r}: the {region_def.role} region's arguments: {err}") from None
        expected = count_of(op, region_def.yields)
        term = region.ops[-1] if region.ops else None
        if term is not None and term.opcode == "yield" and expected is not None \
                and len(term.operands) != expected:
            raise VerifyError(f"{term!r} ends the {region_def.role} region of {op!r} with "
                              f"{len(term.operands)} values, expected {expected}")


def _check_attrs(op: Op, definition: OpDef) -> None:
    for key, value in op.attrs.items():
        spec = definition.attrs.get(key)
        if spec is None:
            raise VerifyError(f"{op!r}: attr {key!r} is not declared for {op.opcode}")
        if not spec.accepts(value):
            raise VerifyError(f"{op!r}: attr {key}={value!r} should be {spec.describe}")
    for key, spec in definition.attrs.items():
        if spec.required and key not in op.attrs:
            raise VerifyError(f"{op!r}: missing attr {key!r}")


def verify_ops(block: Block) -> None:
    """Check every op in block (and its regions) against its OpDef, and nothing else.

    For blocks that are not whole functions: the backward block reads forward
    values as closures, so its dominance cannot be checked on its own."""
    for op in block.walk():
        check_op(op)


def verify(fn: Function) -> None:
    defined: set[int] = set()

    def define(value: Value) -> None:
        if value.id in defined:
            raise VerifyError(f"{value!r} defined twice in {fn.name}")
        defined.add(value.id)

    def check_block(block: Block, visible: set[int], expected_terminator: str) -> None:
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
            check_op(op)
            for operand in op.operands:
                if operand.id not in scope:
                    raise VerifyError(f"{op!r} uses {operand!r} before its definition in {fn.name}")
            for region in op.regions:
                if region.parent is not op:
                    raise VerifyError(f"region of {op!r} has a wrong parent link")
                check_block(region, scope, "yield")
            for result in op.results:
                if result.owner is not op:
                    raise VerifyError(f"{result!r} is a result of {op!r} but names another owner")
                define(result)
                scope.add(result.id)

    if fn.params != fn.body.args:
        raise VerifyError(f"{fn.name}: parameters are not the body's block arguments")
    check_block(fn.body, set(), "return")
