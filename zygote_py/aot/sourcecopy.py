"""Source-level tools for writing code out as a standalone module.

`zygote-py grad` copies Python functions and classes (the user's, and helpers
of zygote_py itself) into one module, so it needs their text without
decorators, the global names each one reads, a way to rename references
without touching attributes or keywords, and Python expressions that rebuild
plain values (numbers, arrays, containers) exactly.
"""

from __future__ import annotations

import ast
import builtins
import functools
import inspect
import io
import symtable
import textwrap
import tokenize

import numpy as np


def definition_source(obj, keep=None) -> tuple[str, int]:
    """(the dedented source of a function or class without its decorators, its def line).

    keep(decorator node) says which decorators stay (@dataclass, which writes the class's
    __init__ and which the copy needs as much as the original)."""
    lines, first = inspect.getsourcelines(obj)
    text = textwrap.dedent("".join(lines))
    node = ast.parse(text).body[0]
    # decorators run at definition time in the original module; the copy is the plain function
    def_line = node.lineno
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.decorator_list:
        kept = [f"@{ast.get_source_segment(text, d)}\n" for d in node.decorator_list
                if keep is not None and keep(d)]
        text = "".join(kept) + "".join(text.splitlines(True)[def_line - 1:])
    return text.rstrip() + "\n", first + def_line - 1


def strip_unresolved_annotations(text: str) -> str:
    """text without the parameter and return annotations that name anything but builtins.

    zygote_py's modules postpone their annotations (`from __future__ import annotations`),
    so `def for_backward(self) -> ObjectLedger` may name the class being defined; a
    standalone module does not postpone them, and they would be evaluated when the copy is
    defined.  They say nothing at run time, so they are dropped."""
    tree = ast.parse(text)
    spans = []  # ((line, col) where the annotation's text starts, (line, col) where it ends)
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        args = node.args
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if arg is not None and arg.annotation is not None and not _builtin_only(arg.annotation):
                name_end = (arg.lineno, arg.col_offset + len(arg.arg))
                spans.append((name_end, (arg.annotation.end_lineno, arg.annotation.end_col_offset)))
        returns = getattr(node, "returns", None)
        if returns is not None and not _builtin_only(returns):
            spans.append((None, (returns.end_lineno, returns.end_col_offset), returns))
    if not spans:
        return text
    lines = text.splitlines(True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line.encode("utf-8")))
    raw = text.encode("utf-8")

    def offset(line, col):  # ast columns are UTF-8 byte offsets
        return starts[line - 1] + col

    cuts = []
    for span in spans:
        end = offset(*span[1])
        if span[0] is not None:
            cuts.append((offset(*span[0]), end))
        else:  # `-> T`: from the arrow before T
            start = raw.rindex(b"->", 0, offset(span[2].lineno, span[2].col_offset))
            while start > 0 and raw[start - 1:start] in (b" ", b"\t"):
                start -= 1
            cuts.append((start, end))
    for start, end in sorted(cuts, reverse=True):
        raw = raw[:start] + raw[end:]
    return raw.decode("utf-8")


def _builtin_only(annotation) -> bool:
    return all(is_builtin_name(n.id) for n in ast.walk(annotation) if isinstance(n, ast.Name))


def free_globals(text: str) -> list[str]:
    """The global names a piece of module-level code reads but does not define, sorted."""
    top = symtable.symtable(text, "<copy>", "exec")
    defined = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    found: set[str] = set()

    def visit(table) -> None:
        for sym in table.get_symbols():
            if sym.is_referenced() and sym.is_global():
                found.add(sym.get_name())
        for child in table.get_children():
            visit(child)

    visit(top)
    return sorted(found - defined)


def is_builtin_name(name: str) -> bool:
    return hasattr(builtins, name)


def rename(text: str, mapping: dict[str, str]) -> str:
    """Rename the name tokens in mapping; attributes (`x.name`) and keywords (`name=`) stay."""
    mapping = {k: v for k, v in mapping.items() if k != v}
    if not mapping:
        return text
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for name, row, col, end in _name_references(text):
        if name in mapping:
            edits.setdefault(row, []).append((col, end, mapping[name]))
    lines = text.splitlines(True)
    for row, changes in edits.items():
        line = lines[row - 1]
        for start, end, new in sorted(changes, reverse=True):
            line = line[:start] + new + line[end:]
        lines[row - 1] = line
    return "".join(lines)


@functools.lru_cache(maxsize=1024)
def _name_references(text: str) -> tuple[tuple[str, int, int, int], ...]:
    """(name, line, column, end column) of every name token of text that is not an
    attribute or a keyword argument: what `rename` may change.  Cached by the text itself:
    the same helpers are renamed in every module a process writes."""
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    found = []
    for i, tok in enumerate(tokens):
        if tok.type != tokenize.NAME:
            continue
        prev = tokens[i - 1] if i else None
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if prev is not None and prev.type == tokenize.OP and prev.string == ".":
            continue
        if nxt is not None and nxt.type == tokenize.OP and nxt.string == "=":
            continue
        found.append((tok.string, tok.start[0], tok.start[1], tok.end[1]))
    return tuple(found)


def rename_def(text: str, old: str, new: str) -> str:
    """Rename the function or class a copied definition defines (its first `def`/`class` line)."""
    if old == new:
        return text
    lines = text.splitlines(True)
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        for keyword in ("def ", "class ", "async def "):
            if stripped.startswith(keyword + old) and stripped[len(keyword + old)] in "(:":
                lines[i] = line.replace(keyword + old, keyword + new, 1)
                return "".join(lines)
    raise ValueError(f"no definition of {old} in the copied text")


PLAIN = (bool, int, float, complex, str, bytes, type(None))


def plain_literal(value) -> str | None:
    """An exact Python expression for a number, string, None, or nested tuple/list/dict of them;
    None when value is something else."""
    if isinstance(value, PLAIN) and type(value) in PLAIN:
        if isinstance(value, float) and not np.isfinite(value):
            return f"float({str(value)!r})"
        return repr(value)
    if type(value) in (tuple, list):
        parts = [plain_literal(v) for v in value]
        if any(p is None for p in parts):
            return None
        if type(value) is tuple:
            return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
        return "[" + ", ".join(parts) + "]"
    if type(value) is dict:
        items = [(plain_literal(k), plain_literal(v)) for k, v in value.items()]
        if any(k is None or v is None for k, v in items):
            return None
        return "{" + ", ".join(f"{k}: {v}" for k, v in items) + "}"
    return None


def array_literal(value: np.ndarray, np_name: str) -> str | None:
    """`np.array([...], dtype="float64")`, exact for numeric and bool arrays."""
    if value.dtype.kind not in "biufc":
        return None
    dtype = repr(str(value.dtype))
    if value.size == 0:
        return f"{np_name}.zeros({value.shape!r}, dtype={dtype})"
    body = plain_literal(value.tolist())
    if body is None:
        return None
    return f"{np_name}.array({body}, dtype={dtype})"


def numpy_scalar_literal(value, np_name: str) -> str | None:
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        return f"{np_name}.{value.dtype.name}({plain_literal(value.item())})"
    return None
