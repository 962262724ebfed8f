"""Errors a user's mistake must produce, and where they must point.

Every unsupported construct, in-place array write, missing derivative rule,
non-scalar output and missing source raises its `zp.ZygoteError` subclass when
the gradient is first requested -- before any of the user's code runs.  The
functions live in tests/error_cases/; the offending line of each carries a
trailing `# ERR` comment, and the expected line is found by reading the file.
Each error must carry `.loc` (filename, 1-based line, 0-based column) and
render as "FILE:LINE:COL: message", the source line, a caret line, "hint: ...".
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import error_cases
import numpy as np
import pytest
from error_cases import RAN, mutation, semantic, syntax

import zygote_py as zp

MARKER = re.compile(r"#\s*ERR\b")


# --------------------------------------------------------------------------- helpers


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _function_lines(func) -> tuple[Path, list[str], int, int]:
    """(file, its lines, first and last 1-based line of func's definition)."""
    path = Path(func.__code__.co_filename)
    lines = path.read_text().splitlines()
    first = func.__code__.co_firstlineno
    base = _indent(lines[first - 1])
    last = first
    for no in range(first + 1, len(lines) + 1):
        text = lines[no - 1]
        if not text.strip():
            continue
        if _indent(text) <= base and not text.lstrip().startswith(("#", ")")):
            break
        last = no
    return path, lines, first, last


def _marked_line(path: Path, lines: list[str], first: int, last: int) -> int:
    hits = [no for no in range(first, last + 1) if MARKER.search(lines[no - 1])]
    assert len(hits) == 1, f"expected one '# ERR' in {path}:{first}-{last}, found {hits}"
    return hits[0]


def marked_location(func) -> tuple[Path, int, str]:
    """(file, line, source text) of the `# ERR` line inside func."""
    path, lines, first, last = _function_lines(func)
    line = _marked_line(path, lines, first, last)
    return path, line, lines[line - 1]


def assert_points_at(
    err: zp.ZygoteError, path: Path, line: int, text: str, check_col: bool = True
) -> None:
    """err.loc is that line of that file, and str(err) shows it with a caret and a hint."""
    loc = err.loc
    assert loc is not None, "the error carries no location"
    assert loc.filename.endswith(f"{path.parent.name}/{path.name}"), loc.filename
    assert loc.line == line, f"points at line {loc.line}, the offending line is {line}"
    if check_col:  # a statement starts at its indentation (0-based)
        assert loc.col == _indent(text), f"column {loc.col}, statement starts at {_indent(text)}"
    message = str(err)
    assert f"{loc.filename}:{loc.line}:" in message, message
    code = MARKER.split(text)[0].strip()
    assert code in message, f"source line {code!r} not shown in:\n{message}"
    assert any(ln.strip() and set(ln.strip()) == {"^"} for ln in message.splitlines()), (
        f"no caret line in:\n{message}"
    )
    assert "hint:" in message, message


@pytest.fixture(autouse=True)
def _clear_side_effects():
    RAN.clear()
    yield
    RAN.clear()


# --------------------------------------------------------------------------- the classes


@pytest.mark.parametrize(
    "cls, bases",
    [
        (zp.UnsupportedSyntax, (zp.ZygoteError, SyntaxError)),
        (zp.NoDerivativeRule, (zp.ZygoteError,)),
        (zp.NonScalarOutput, (zp.ZygoteError,)),
        (zp.SourceUnavailable, (zp.ZygoteError,)),
        (zp.MutationError, (zp.ZygoteError,)),
        (zp.ZygoteError, (Exception,)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_error_class_hierarchy(cls, bases):
    assert issubclass(cls, bases)


# --------------------------------------------------------------------------- unsupported syntax

SYNTAX_CASES = [
    # (function, args, function holding the `# ERR` line if not the same)
    (syntax.uses_try_except, (1.5,), None),
    (syntax.uses_try_finally, (1.5,), None),
    (syntax.uses_with, (1.5,), None),
    (syntax.uses_yield, (1.5,), None),
    (syntax.uses_async, (1.5,), None),
    (syntax.uses_global, (1.5,), None),
    (syntax.uses_nonlocal, (1.5,), None),
    (syntax.uses_del, (1.5,), None),
    (syntax.defines_class, (1.5,), None),
    (syntax.uses_match, (1.5, 2), None),
    (syntax.imports_inside, (1.5,), None),
    (syntax.calls_helper_with_try, (1.5,), syntax._helper_with_try),
]


@pytest.mark.parametrize(
    "func, args, marked_in", SYNTAX_CASES, ids=[c[0].__name__ for c in SYNTAX_CASES]
)
def test_unsupported_syntax(func, args, marked_in):
    path, line, text = marked_location(marked_in or func)
    with pytest.raises(zp.UnsupportedSyntax) as info:
        zp.gradient(func, *args)
    err = info.value
    assert isinstance(err, SyntaxError) and isinstance(err, zp.ZygoteError)
    assert_points_at(err, path, line, text)
    assert RAN == [], f"user code ran before the error: {RAN}"


@pytest.mark.parametrize("entry_name", ["gradient", "withgradient", "pullback"])
def test_every_entry_point_raises_and_keeps_raising(entry_name):
    entry = getattr(zp, entry_name)
    path, line, text = marked_location(syntax.uses_try_except)
    for _ in range(2):  # a failed compile is not cached as a success
        with pytest.raises(zp.UnsupportedSyntax) as info:
            entry(syntax.uses_try_except, 1.5)
        assert_points_at(info.value, path, line, text)
    assert RAN == []


def test_differentiable_decorator_rejects_bad_syntax_at_import():
    name = f"{error_cases.__name__}.decorated_bad"
    path = Path(error_cases.__file__).with_name("decorated_bad.py")
    lines = path.read_text().splitlines()
    line = _marked_line(path, lines, 1, len(lines))
    sys.modules.pop(name, None)
    try:
        with pytest.raises(zp.UnsupportedSyntax) as info:
            importlib.import_module(name)
    finally:
        sys.modules.pop(name, None)
    assert_points_at(info.value, path, line, lines[line - 1])
    assert RAN == []


# --------------------------------------------------------------------------- mutation

MUTATION_CASES = [
    # (item and slice writes into arguments are differentiated now: tests/ad/test_writes.py)
    # functions that write into an argument: the write was invisible, the gradient a silent zero
    # (np.put_along_axis and the others with a derivative: tests/ad/test_in_place_functions.py)
    (mutation.maximum_at, lambda: (np.array([0.5, -0.2, 0.3]),)),
]


@pytest.mark.parametrize(
    "func, make_args", MUTATION_CASES, ids=[c[0].__name__ for c in MUTATION_CASES]
)
def test_mutation(func, make_args):
    path, line, text = marked_location(func)
    args = make_args()
    originals = [np.copy(a) for a in args]
    with pytest.raises(zp.MutationError) as info:
        zp.gradient(func, *args)
    assert_points_at(info.value, path, line, text)
    assert RAN == []
    for before, after in zip(originals, args):
        np.testing.assert_array_equal(before, after)  # the arguments were not written to


# --------------------------------------------------------------------------- no derivative rule


def test_no_derivative_rule_names_the_callee():
    path, line, text = marked_location(semantic.frexp_on_active)
    with pytest.raises(zp.NoDerivativeRule) as info:
        zp.gradient(semantic.frexp_on_active, 1.5)
    err = info.value
    assert_points_at(err, path, line, text, check_col=False)
    message = str(err)
    assert "frexp" in message, message
    assert "adjoint" in message, f"the message should say how to add a rule:\n{message}"
    assert RAN == []


def test_callee_without_rule_is_fine_on_constants():
    (g,) = zp.gradient(semantic.frexp_on_constant, 1.5)
    assert isinstance(g, float)
    assert g == pytest.approx(float(np.frexp(3.0)[0]))  # 0.75


# --------------------------------------------------------------------------- non-scalar output


def _assert_inside(err: zp.ZygoteError, func) -> None:
    path, _, first, last = _function_lines(func)
    assert err.loc is not None, "the error carries no location"
    assert err.loc.filename.endswith(f"{path.parent.name}/{path.name}"), err.loc.filename
    assert first <= err.loc.line <= last, f"line {err.loc.line} outside {first}-{last}"


def test_non_scalar_output_suggests_jacobian():
    with pytest.raises(zp.NonScalarOutput) as info:
        zp.gradient(semantic.vector_output, np.array([0.1, 0.2, 0.3]))
    message = str(info.value)
    assert "jacobian" in message, message
    assert "hint:" in message, message
    _assert_inside(info.value, semantic.vector_output)


def test_complex_output_is_not_a_real_scalar():
    with pytest.raises(zp.NonScalarOutput) as info:
        zp.gradient(semantic.complex_output, 0.5)
    message = str(info.value)
    assert "complex" in message or "real" in message, message
    assert "hint:" in message, message
    _assert_inside(info.value, semantic.complex_output)


def test_non_scalar_output_is_fine_for_pullback():
    x = np.array([0.1, 0.2, 0.3])
    y, back = zp.pullback(semantic.vector_output, x)
    np.testing.assert_allclose(y, np.sin(x) * 2.0)
    (g,) = back(np.ones(3))
    np.testing.assert_allclose(g, np.cos(x) * 2.0, rtol=1e-12)


# --------------------------------------------------------------------------- source unavailable


def test_function_made_by_exec_has_no_source():
    func = semantic.make_function_from_string()
    with pytest.raises(zp.SourceUnavailable) as info:
        zp.gradient(func, 1.5)
    message = str(info.value)
    assert "from_string" in message, message
    assert "hint:" in message, message
    assert RAN == []
