"""The package's layers import one way, and no module imports itself in a circle.

Every `import` in zygote_py — at module level or inside a function, since a
lazy import is still a dependency — is read with `ast` (only imports under
`if TYPE_CHECKING:`, which never run, are left out).  Each module belongs to
a layer (LAYERS, bottom first); a module may import only from its own layer or
the layers below.  Within a layer, the import graph must have no cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "zygote_py"

# Bottom first.  A module's layer is the longest prefix listed here.
LAYERS = [
    ["errors", "tree", "context", "allocator", "collector_pause", "qualnames"],
    ["runtime.helpers", "runtime", "kinds"],
    ["rules"],
    ["resolve", "calls"],
    ["ir"],
    ["frontend"],
    ["analysis"],
    ["transforms"],
    ["ad"],
    ["codegen"],
    ["compiler"],
    ["forward_compiler"],
    ["params"],
    ["api", "callables", "hooks"],
    ["forward_api", "nested"],
    ["nn", "aot"],
    ["cli", "__init__", "__main__"],
]


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def layer_of(name: str) -> int:
    best, rank = -1, None
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), index
    if rank is None:
        raise AssertionError(f"zygote_py.{name} belongs to no layer: add it to LAYERS")
    return rank


def imported_modules(path: Path, name: str) -> set[str]:
    """The zygote_py modules `name` imports (names relative to the package)."""
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    package = name.split(".") if is_package and name != "__init__" else name.split(".")[:-1]
    if name == "__init__":
        package = []
    found = set()
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("zygote_py."):
                    found.add(alias.name[len("zygote_py."):])
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.startswith("zygote_py"):
                target = node.module[len("zygote_py."):] if node.module != "zygote_py" else ""
            else:
                continue
            for alias in node.names:
                full = f"{target}.{alias.name}" if target else alias.name
                # `from pkg import module` depends on the module; `from module import name` on the module.
                found.add(full if (PACKAGE / Path(*full.split("."))).with_suffix(".py").exists()
                          or (PACKAGE / Path(*full.split(".")) / "__init__.py").exists() else target)
    found.discard("")
    return found


def _runtime_nodes(tree: ast.AST):
    """Every node, except those under `if TYPE_CHECKING:` (imports for annotations only)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                stack.extend(child.orelse)
                continue
            stack.append(child)


def import_graph() -> dict[str, set[str]]:
    graph = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        graph[name] = imported_modules(path, name)
    return graph


def test_no_upward_imports():
    upward = []
    for name, targets in import_graph().items():
        for target in sorted(targets):
            if layer_of(target) > layer_of(name):
                upward.append(f"zygote_py.{name} imports zygote_py.{target}")
    assert not upward, "imports that run up the layers:\n" + "\n".join(upward)


def test_no_import_cycles():
    graph = import_graph()
    # a package __init__ that only re-exports its submodules is not part of a cycle
    state, stack, cycles = {}, [], []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt == node or nxt not in graph:
                continue
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


@pytest.mark.parametrize("name", ["ir.core", "rules.registry", "runtime.helpers"])
def test_layer_lookup_is_total(name):
    assert layer_of(name) >= 0
