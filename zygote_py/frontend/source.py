"""Finding a function's source: the exact def or lambda node in its real file.

The whole file is parsed once (cached by file name and text) with the standard
`ast` module, and the node whose code object this is gets located by line;
lambdas sharing a line are told apart by their parameter names and by the
column positions Python records for each instruction (3.11+).  Only the
located subtree is converted to gast (by frontend/to_gast.py), which keeps a first
gradient cheap.
Working from the whole file means line and column numbers are the real ones.

Two process-wide caches keep this cheap; neither can change a result.
`_FILE_CACHE` maps a file name to (text, tree) and is used only when the
text linecache gives now is the text that was parsed, so an edited file is
parsed again.  `_LINE_INDEX` holds the line index of the last tree indexed,
with the tree itself, and is used only for that very tree object.  Both are
plain dicts whose entries are replaced whole (atomic in CPython), so threads
may share them: at worst two threads parse or index the same file twice.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import types

import gast

from ..errors import SourceLoc, SourceUnavailable
from .to_gast import to_gast

_FILE_CACHE: dict[str, tuple[str, ast.Module]] = {}


def _file_tree(filename: str, module_globals: dict | None) -> ast.Module | None:
    lines = linecache.getlines(filename, module_globals)
    if not lines:
        return None
    text = "".join(lines)
    cached = _FILE_CACHE.get(filename)
    if cached is not None and cached[0] == text:
        return cached[1]
    try:
        tree = ast.parse(text, filename)
    except SyntaxError:
        return None
    _FILE_CACHE[filename] = (text, tree)
    return tree


_LINE_INDEX: dict[int, tuple[ast.Module, dict[int, list]]] = {}


def _functions_by_line(filename: str, tree: ast.Module) -> dict[int, list]:
    """Defs (by their first line, decorators included) and lambdas of a file, indexed once."""
    cached = _LINE_INDEX.get(id(tree))
    # the tree is kept with its index: an id is reused once its object is freed
    index = cached[1] if cached is not None and cached[0] is tree else None
    if index is None:
        index = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Lambda):
                index.setdefault(node.lineno, []).append(node)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                index.setdefault(start, []).append(node)
                if start != node.lineno:
                    index.setdefault(node.lineno, []).append(node)
        _LINE_INDEX.clear()  # one file's index at a time is plenty
        _LINE_INDEX[id(tree)] = (tree, index)
    return index


def _arg_names(node: ast.Lambda | ast.FunctionDef) -> tuple[str, ...]:
    a = node.args
    names = [x.arg for x in (*a.posonlyargs, *a.args)]
    if a.vararg:
        names.append(a.vararg.arg)
    names += [x.arg for x in a.kwonlyargs]
    if a.kwarg:
        names.append(a.kwarg.arg)
    return tuple(names)


def _code_arg_names(code: types.CodeType) -> tuple[str, ...]:
    n = code.co_argcount + code.co_kwonlyargcount
    n += bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return tuple(code.co_varnames[:n])


def _positions(code: types.CodeType) -> list[tuple[int, int]]:
    if not hasattr(code, "co_positions"):
        return []
    return [(line, col) for line, _, col, _ in code.co_positions() if line is not None and col is not None]


def share_inside(code: types.CodeType, node) -> float:
    """The fraction of code's instruction positions inside node's span (0 where CPython
    records no positions, before 3.11)."""
    positions = _positions(code)
    return sum(_contains(node, ln, col) for ln, col in positions) / len(positions) if positions else 0.0


def _contains(node, line: int, col: int) -> bool:
    start = (node.lineno, node.col_offset)
    end = (node.end_lineno, node.end_col_offset)
    return start <= (line, col) <= end


def _byte_to_char_col(filename: str, line: int, byte_col: int) -> int:
    text = linecache.getline(filename, line)
    if text.isascii():  # one byte per character: nothing to convert (almost every line)
        return min(byte_col, len(text))
    return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


def loc_of(filename: str, node) -> SourceLoc:
    """The user-facing location of an AST node (character columns, 0-based)."""
    line = getattr(node, "lineno", 1)
    col = _byte_to_char_col(filename, line, getattr(node, "col_offset", 0))
    end_col = None
    if getattr(node, "end_lineno", None) == line and getattr(node, "end_col_offset", None) is not None:
        end_col = _byte_to_char_col(filename, line, node.end_col_offset)
    return SourceLoc(filename, line, col, end_col)


def _function_loc(fn) -> SourceLoc | None:
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    return SourceLoc(code.co_filename, code.co_firstlineno, 0)


def _last_code_line(code: types.CodeType) -> int | None:
    """The last line any instruction of code (or of a function, lambda or class defined in
    it) comes from, from the positions Python records for each (3.11+); None before."""
    positions = getattr(code, "co_positions", None)
    if positions is None:
        return None
    last = code.co_firstlineno
    for _, end, _, _ in positions():
        if end is not None and end > last:
            last = end
    for const in code.co_consts:
        if type(const) is types.CodeType:
            inner = _last_code_line(const)
            if inner is not None and inner > last:
                last = inner
    return last


def _fast_block(code: types.CodeType, lines: list[str]) -> list[str] | None:
    """The lines of the def at code.co_firstlineno (decorators first), up to the last line
    of its instructions, where the next line that holds code is indented no deeper than
    the def (so no more of the body follows: a trailing `pass` or string makes no
    instruction); None where that cannot be told (then `inspect.getblock` decides, which
    tokenizes every line of the function: about half a millisecond for a rule of a dozen
    lines, paid by every rule a gradient uses)."""
    first = code.co_firstlineno
    last = _last_code_line(code)
    if last is None or last > len(lines):
        return None
    head = lines[first - 1]
    indent = len(head) - len(head.lstrip())
    for line in lines[last:]:
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        return lines[first - 1:last] if len(line) - len(line.lstrip()) <= indent else None
    return lines[first - 1:last]  # the file ends with the function


def _getblock(code: types.CodeType, lines: list[str]) -> list[str] | None:
    try:
        return inspect.getblock(lines[code.co_firstlineno - 1:])
    except (IndentationError, SyntaxError, Exception):  # tokenize errors vary by version
        return None


def _def_from_block(code: types.CodeType, filename: str, module_globals) -> ast.AST | None:
    """The def at code.co_firstlineno, parsed from its own lines only (cheap).

    Line and column numbers are the file's (the text parsed starts with as many empty
    lines as come before the def, which costs the parser less than shifting every node
    afterwards).  None if the block does not parse on its own (then the whole file is
    parsed instead)."""
    lines = linecache.getlines(filename, module_globals)
    first = code.co_firstlineno
    if not lines or first > len(lines):
        return None
    fast = _fast_block(code, lines)
    node = _parse_def(code, filename, fast) if fast else None
    if node is None:  # (a decorated def whose body makes no instruction past its first line)
        node = _parse_def(code, filename, _getblock(code, lines))
    return node


def _parse_def(code: types.CodeType, filename: str, block: list[str] | None) -> ast.AST | None:
    """The def parsed from its block of lines (see _def_from_block), or None."""
    if not block:
        return None
    first = code.co_firstlineno
    indent = len(block[0]) - len(block[0].lstrip())
    prefix = block[0][:indent]
    if any(line.strip() and not line.startswith(prefix) for line in block):
        return None
    text = "\n" * (first - 1) + "".join(line[indent:] if line.startswith(prefix) else line
                                         for line in block)
    try:
        tree = ast.parse(text, filename)
    except SyntaxError:
        return None
    if not tree.body or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    node = tree.body[0]
    if node.name != code.co_name:
        return None
    if indent:
        for child in ast.walk(node):
            if hasattr(child, "col_offset"):
                child.col_offset += indent
                if getattr(child, "end_col_offset", None) is not None:
                    child.end_col_offset += indent
    return node


def find_function_node(fn) -> tuple[gast.AST, str]:
    """The gast FunctionDef or Lambda of a Python function, and its file name."""
    code = getattr(fn, "__code__", None)
    if code is None:
        raise SourceUnavailable(
            f"{getattr(fn, '__qualname__', fn)!r} is not a Python function, so it has no source",
            hint="differentiate a Python function that calls it, or register a rule with @zp.adjoint",
        )
    filename = code.co_filename
    linecache.checkcache(filename)  # the file may have been edited since it was read
    if code.co_name != "<lambda>":
        node = _def_from_block(code, filename, getattr(fn, "__globals__", None))
        if node is not None:
            return to_gast(node), filename
    tree = _file_tree(filename, getattr(fn, "__globals__", None))
    if tree is None:
        raise SourceUnavailable(
            f"cannot read the source of {fn.__qualname__} (defined in {filename!r})",
            _function_loc(fn),
            hint="define the function in a .py file (functions made by exec or typed at a bare "
            "interpreter prompt have no source file)",
        )
    first = code.co_firstlineno
    is_lambda = code.co_name == "<lambda>"
    candidates = []
    for node in _functions_by_line(filename, tree).get(first, ()):
        if is_lambda:
            if isinstance(node, ast.Lambda):
                candidates.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
            candidates.append(node)
    if len(candidates) > 1:
        names = _code_arg_names(code)
        candidates = [c for c in candidates if _arg_names(c) == names]
    if len(candidates) > 1:
        positions = _positions(code)
        if positions:
            # the lambda containing most of the code's instruction positions; of equals,
            # the innermost (an outer lambda's span contains an inner one's)
            def score(c):
                return (sum(_contains(c, ln, col) for ln, col in positions), c.lineno, c.col_offset)

            ranked = sorted(candidates, key=score, reverse=True)
            best = score(ranked[0])[0]
            if best > 0 and (len(ranked) == 1 or score(ranked[1])[0] < best or
                             ranked[1].col_offset != ranked[0].col_offset):
                candidates = ranked[:1]
    if len(candidates) != 1:
        raise SourceUnavailable(
            f"cannot tell which {'lambda' if is_lambda else 'definition'} on line {first} is "
            f"{fn.__qualname__}",
            _function_loc(fn),
            hint="put each lambda on its own line, or use a def",
        )
    node = candidates[0]
    return to_gast(node), filename
