"""Errors raised by the user's own code while generated code runs: their traceback
gets a frame at the user's file and line.

Generated code runs the user's statements itself (it does not call the user's
function), so a traceback would otherwise show only `<zygote_py:f_grad:3>`
frames.  Each generated group of lines is preceded by a comment naming the
user's line (`# model.py:12  y = np.log(x)`, `# grad of: ...  model.py:12`);
`with_user_frames` reads the comment above the line that failed and inserts,
after that generated frame, a frame whose code lies at the user's file and
line (made by running a one-statement `raise` compiled under the user's file
name), so `traceback`, pytest and debuggers show the user's line.  Nothing is
kept between calls: the text is read back from linecache, where codegen
registered it.
"""

from __future__ import annotations

import itertools
import linecache
import os
import re
import types

from ..runtime.library_code import is_library_file

_FORWARD = re.compile(r"^\s*# (\S+):(\d+)  ")
_ADJOINT = re.compile(r"^\s*# grad of: .*  (\S+):(\d+)$")
_SUFFIXES = ("_grad", "_pullback", "_back")


class _Marker(Exception):
    """Raised only to capture a frame at the user's line."""


def with_user_frames(err: BaseException) -> BaseException:
    """err, its traceback rebuilt with the user's frame after each generated one."""
    entries = []
    tb = err.__traceback__
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    rebuilt, changed = None, False
    for tb in reversed(entries):
        user = _user_line(tb)
        already = rebuilt is not None and "_zp_marker" in rebuilt.tb_frame.f_globals  # nested call
        if user is not None and not already:
            fake = _frame_at(*user)
            if fake is not None:
                rebuilt = types.TracebackType(rebuilt, fake.tb_frame, fake.tb_lasti, fake.tb_lineno)
                changed = True
        rebuilt = types.TracebackType(rebuilt, tb.tb_frame, tb.tb_lasti, tb.tb_lineno)
    return err.with_traceback(rebuilt) if changed else err


def _user_line(tb) -> tuple[str, int, str] | None:
    """(user's file, line, function name) for a frame of generated code, else None."""
    code = tb.tb_frame.f_code
    if not code.co_filename.startswith("<zygote_py:"):
        return None
    user_file = tb.tb_frame.f_globals.get("__file__")
    if not isinstance(user_file, str):
        return None
    lines = linecache.getlines(code.co_filename)
    # a value the first statement reads may be bound before that statement's comment (a
    # module attribute it reads twice): with no comment above, the next one names the line
    below = itertools.islice(lines[tb.tb_lineno:], 3)
    for text in itertools.chain(reversed(lines[:tb.tb_lineno]), below):
        match = _FORWARD.match(text) or _ADJOINT.match(text)
        if match is not None:
            if match.group(1) != os.path.basename(user_file):
                return None
            name = code.co_name
            for suffix in _SUFFIXES:
                name = name.removesuffix(suffix)
            return user_file, int(match.group(2)), name or code.co_name
    return None


def _raise_spanning(filename: str, line: int) -> str:
    """Source whose `raise` sits at line and spans the user's statement there, so the
    traceback underlines nothing (rather than the wrong columns)."""
    text = linecache.getline(filename, line).rstrip()
    stripped = text.lstrip()
    indent = len(text) - len(stripped)
    statement = "raise _zp_marker"
    if len(stripped) > len(statement) + 2:
        statement = "raise (_zp_marker" + " " * (len(stripped) - len(statement) - 3) + ")"
    if indent and line >= 2:
        return "\n" * (line - 2) + "if 1:\n" + " " * indent + statement
    return "\n" * (line - 1) + statement


def _frame_at(filename: str, line: int, name: str):
    """A traceback entry whose frame's code is at filename:line, named name."""
    code = compile(_raise_spanning(filename, line), filename, "exec")
    code = code.replace(co_name=name if name.isidentifier() else "<generated>")
    try:
        exec(code, {"_zp_marker": _Marker()})
    except _Marker as marker:
        return marker.__traceback__.tb_next
    return None


def refused_by_rule(err: BaseException):
    """A rule's refusal while the code runs (a NotImplementedError whose message starts
    "zygote_py: ", e.g. `np.pad(mode='edge')`, which only the call's arguments decide) as
    the NoDerivativeRule it is, placed at the innermost user line its traceback passes
    through; None for any other error."""
    if not isinstance(err, NotImplementedError) or not str(err).startswith("zygote_py: "):
        return None
    from ..errors import NoDerivativeRule

    return NoDerivativeRule(str(err).removeprefix("zygote_py: "), _innermost_user_loc(err),
                            "compute it another way here, or give the call a rule of your own "
                            "(@zp.adjoint, docs/rules.md)")


def placed_at_user_line(err):
    """A ZygoteError raised while compiled code runs, placed at the innermost line of the
    user's own code its traceback passes through: where it has no place of its own (a helper
    or a rule's backward refusing, `cannot send a derivative back through a Seq that was read
    item by item`), or where its place is inside a library the compiler descended into (a
    SciPy function's source: the user cannot change it, their call is what to look at; the
    library's line is kept in the message).  err itself when neither applies or no user
    line is found."""
    library_loc = err.loc is not None and is_library_file(err.loc.filename)
    if err.loc is not None and not library_loc:
        return err
    loc = _innermost_user_loc(err)
    if loc is None:
        return err
    message = f"{err.message} (in {err.loc})" if library_loc else err.message
    placed = type(err).__new__(type(err))
    try:
        type(err).__init__(placed, message, loc, err.hint)
    except TypeError:  # a subclass with a constructor of its own: keep the error as it is
        return err
    placed.__traceback__ = err.__traceback__
    return placed


def _innermost_user_loc(err):
    """The SourceLoc of the innermost line of the user's own code (not a library's) that
    err's traceback passes through (the whole line, from its first non-blank column), or
    None."""
    from ..errors import SourceLoc

    user = None
    tb = err.__traceback__
    while tb is not None:
        found = _user_line(tb)
        if found is not None and not is_library_file(found[0]):
            user = found
        tb = tb.tb_next
    if user is None:
        return None
    text = linecache.getline(user[0], user[1]).rstrip("\n")
    col = len(text) - len(text.lstrip())
    return SourceLoc(user[0], user[1], col, len(text) if text else None)
