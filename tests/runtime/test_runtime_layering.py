"""The code generated code calls while it runs -- the helpers (zygote_py/runtime/) and
run-time dispatch (zygote_py/calls/) -- does not reach up to the driver: run-time dispatch
gets its compiler from the Context (zygote_py/context.py), not by importing
zygote_py.compiler lazily.

Every import statement is read, those inside functions included, since a lazy import
is exactly how such a cycle hides."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import zygote_py

PACKAGE = Path(zygote_py.__file__).resolve().parent
# modules above the run-time layer (the driver, the public API and what sits on them)
ABOVE = ("zygote_py.compiler", "zygote_py.api", "zygote_py.params", "zygote_py.codegen",
         "zygote_py.aot", "zygote_py.cli")


def imported_modules(path: Path) -> set[str]:
    package = "zygote_py." + ".".join(path.relative_to(PACKAGE).parent.parts)
    package = package.rstrip(".")
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            out.add(module)
            out.update(f"{module}.{alias.name}" for alias in node.names)
    return out


def reaches_above(path: Path) -> list[str]:
    return sorted(m for m in imported_modules(path)
                  if any(m == above or m.startswith(above + ".") for above in ABOVE))


def test_the_reader_resolves_relative_imports():
    found = imported_modules(PACKAGE / "calls" / "dispatch.py")
    assert "zygote_py.context" in found and "zygote_py.rules.registry" in found
    assert "zygote_py.runtime.built_objects" in found  # `from ..runtime.built_objects import`
    assert reaches_above(PACKAGE / "api.py") != []  # api imports zygote_py.compiler


@pytest.mark.parametrize("folder", ["runtime", "calls"])
def test_runtime_modules_import_nothing_above_them(folder):
    paths = sorted((PACKAGE / folder).glob("*.py"))
    assert len(paths) > 1, f"zygote_py/{folder} holds no modules"
    for path in paths:
        assert reaches_above(path) == [], f"{folder}/{path.name}"


def test_the_context_imports_nothing_of_zygote_py():
    assert not [m for m in imported_modules(PACKAGE / "context.py") if m.startswith("zygote_py")]
