"""The IR's text form: what `zygote-py ir` prints and the golden tests compare.

Values are renumbered in order of appearance, so the text is deterministic:
`%x.3` is the fourth value printed, once the user's variable `x`.  Each op
line ends with the user's file (base name) and line when known.
"""

from __future__ import annotations

import os

from .core import Block, Function, Op, Value


def _const_repr(value) -> str:
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class _Printer:
    def __init__(self):
        self.names: dict[int, str] = {}
        self.lines: list[str] = []

    def name(self, value: Value) -> str:
        key = value.id
        if key not in self.names:
            n = len(self.names)
            self.names[key] = f"%{value.hint}.{n}" if value.hint else f"%{n}"
        return self.names[key]

    def names_of(self, values) -> str:
        return ", ".join(self.name(v) for v in values)

    def attrs_text(self, op: Op) -> str:
        attrs = op.attrs
        if op.opcode == "const":
            return attrs.get("expr") or _const_repr(attrs["value"])
        if op.opcode in ("global", "cell"):
            return attrs["name"]
        parts = []
        if op.opcode == "call":
            parts.append(attrs.get("expr") or _const_repr(attrs["fn"]))
        elif op.opcode in ("method", "getattr"):
            parts.append("." + attrs["name"])
        for key in ("kind", "kw", "star", "n", "exit", "keys"):
            if attrs.get(key) not in (None, (), False):
                parts.append(f"{key}={attrs[key]!r}")
        return " ".join(parts)

    def op(self, op: Op, indent: str) -> None:
        head = f"{self.names_of(op.results)} = " if op.results else ""
        attrs = self.attrs_text(op)
        body = f"{op.opcode}{' ' + attrs if attrs else ''}"
        if op.operands:
            body += f"({self.names_of(op.operands)})"
        loc = f"  @{os.path.basename(op.loc.filename)}:{op.loc.line}" if op.loc else ""
        if not op.regions:
            self.lines.append(f"{indent}{head}{body}{loc}")
            return
        self.lines.append(f"{indent}{head}{body} {{{loc}")
        for i, region in enumerate(op.regions):
            if i:
                self.lines.append(f"{indent}}} {{")
            self.block(region, indent + "  ")
        self.lines.append(f"{indent}}}")

    def block(self, block: Block, indent: str) -> None:
        if block.args:
            self.lines.append(f"{indent}^({self.names_of(block.args)}):")
        for op in block.ops:
            self.op(op, indent)


def format_function(fn: Function) -> str:
    printer = _Printer()
    loc = f"  @{os.path.basename(fn.loc.filename)}:{fn.loc.line}" if fn.loc else ""
    header = f"func {fn.name}({printer.names_of(fn.params)}) {{{loc}"
    printer.block(fn.body, "  ")
    return "\n".join([header, *printer.lines, "}"]) + "\n"


def format_block(block: Block) -> str:
    printer = _Printer()
    printer.block(block, "")
    return "\n".join(printer.lines) + "\n"
