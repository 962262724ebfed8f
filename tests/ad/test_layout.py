"""The reverse transform's package: handlers are functions of (builder, op) over one
explicit state object, its modules import one way, at module level only."""

import ast
import inspect
import operator
from pathlib import Path

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.ad import reverse
from zygote_py.ad.reverse.adjoint import AdjointBuilder
from zygote_py.compiler import COMPILER
from zygote_py.runtime import helpers as runtime

PACKAGE = Path(reverse.__file__).parent
MODULES = sorted(PACKAGE.glob("*.py"))


def _imports(path: Path):
    tree = ast.parse(path.read_text())
    top, nested = set(), []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            nested += [n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))]
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                top.add(node.module)
            else:
                top.update(alias.name for alias in node.names)
    return top, nested


def test_the_package_has_the_steps_as_modules():
    names = {p.stem for p in MODULES}
    assert {"augment", "adjoint", "tapes", "calls", "control", "containers", "callees",
            "transform"} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_module_imports_inside_a_function(path):
    _, nested = _imports(path)
    assert nested == [], f"{path.name} imports inside a function (line {nested[0].lineno})"


def test_sibling_imports_form_no_cycle():
    graph = {p.stem: _imports(p)[0] for p in MODULES}
    state = {}

    def visit(name, trail):
        if state.get(name) == "open":
            pytest.fail("import cycle: " + " -> ".join(trail + [name]))
        if state.get(name) == "done":
            return
        state[name] = "open"
        for dep in graph.get(name, ()):
            visit(dep, trail + [name])
        state[name] = "done"

    for name in graph:
        visit(name, [])
    assert "calls" not in graph["adjoint"] and "control" not in graph["adjoint"]


def test_handlers_are_module_functions_of_builder_and_op():
    for opcode, handler in reverse.ADJOINT_HANDLERS.items():
        params = list(inspect.signature(handler).parameters)
        assert params == ["builder", "op"], (opcode, params)
        assert handler.__module__.startswith("zygote_py.ad"), (opcode, handler.__module__)


def _builder_for(func, active):
    ir = COMPILER.lowered_ir(func)
    transform = reverse.ReverseTransform(ir, active)
    return ir, transform.builder


def test_the_builder_adds_numbers_plainly_and_maybe_none_values_with_accum():
    def f(x):
        return np.sin(x) * x

    ir, builder = _builder_for(f, [True])
    assert isinstance(builder, AdjointBuilder)
    x = ir.params[0]
    a = builder.call(operator.mul, builder.const(2.0), builder.const(3.0))
    b = builder.call(operator.mul, builder.const(4.0), builder.const(5.0))
    builder.accumulate(x, a)
    builder.accumulate(x, b)
    total = builder.bar(x)
    assert total.defining_op.attrs["fn"] is operator.add
    maybe = builder.call(runtime.item_cotangent, builder.const(None), builder.const(0))
    builder.maybe_none.add(maybe.id)
    builder.accumulate(x, maybe)
    assert builder.bar(x).defining_op.attrs["fn"] is runtime.accum
    assert builder.bar(x).defining_op.operands == [total, maybe]
    (g,) = zp.gradient(f, 0.7)
    assert g == pytest.approx(np.cos(0.7) * 0.7 + np.sin(0.7), rel=1e-12)
