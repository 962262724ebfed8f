"""The rule registry: coverage by the numeric table, the listings, and the shape
of rule bodies (the compiler inlines them, so they must be straight-line code)."""

from __future__ import annotations

import ast
import builtins
import inspect
import operator
import os
import sys
import textwrap

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))

from rule_specs import SPECS

from zygote_py import rules
from zygote_py.rules import registry


def test_every_rule_has_a_numeric_spec():
    covered = {spec.qualname for spec in SPECS}
    missing = sorted({rule.qualname for rule in registry.all_rules()} - covered)
    assert not missing, f"rules without a spec in tests/rules/rule_specs.py: {missing}"


def test_every_spec_names_a_registered_rule():
    assert all(spec.rule is not None for spec in SPECS)


def test_supported_lists_rules():
    names = rules.supported()
    for name in ("numpy.sin", "numpy.ndarray.sum", "math.exp", "operator.add", "operator.getitem",
                 "numpy.matmul", "numpy.ndarray.T", "builtins.sum", "numpy.einsum"):
        assert name in names
    assert names == sorted(names)


def test_nondifferentiable_lists_constants():
    names = rules.nondifferentiable()
    for name in ("numpy.argmax", "numpy.floor", "numpy.zeros_like", "operator.lt", "math.floor",
                 "builtins.len", "numpy.ndarray.shape", "numpy.ndarray.argmax"):
        assert name in names
    assert "numpy.sin" not in names


def test_registration_function_stays_importable():
    from zygote_py.rules.registry import nondifferentiable as register

    assert callable(register) and register is not rules.nondifferentiable


def test_lookups():
    assert registry.function_rule(np.sin).qualname == "numpy.sin"
    assert registry.function_rule(operator.mul) is not None
    assert registry.method_rule(np.ndarray, "sum").qualname == "numpy.ndarray.sum"
    assert registry.attr_rule(np.ndarray, "T") is not None
    assert registry.is_nondifferentiable(np.argmax)
    assert registry.is_nondifferentiable(np.random.randn)
    assert registry.method_is_nondifferentiable(np.ndarray, "argmax")
    assert registry.method_is_nondifferentiable(np.random.Generator, "standard_normal")
    assert not registry.method_is_nondifferentiable(np.random.Generator, "normal")  # moves with mu
    assert registry.attr_is_nondifferentiable(np.ndarray, "shape")
    assert registry.function_rule([1]) is None  # unhashable


def test_nothing_is_both_a_rule_and_nondifferentiable():
    both = set(registry._FUNCTION_RULES) & set(registry._NONDIFF_FUNCTIONS)
    assert not both
    assert not set(registry._METHOD_RULES) & set(registry._NONDIFF_METHODS)
    assert not set(registry._ATTR_RULES) & set(registry._NONDIFF_ATTRS)


def test_diff_names_are_parameters():
    for rule in registry.all_rules():
        names = {p.name for p in rule.params}
        assert set(rule.diff) <= names, rule.qualname
        assert rule.diff, f"{rule.qualname} has no differentiable parameter"


# ---------------------------------------------------------------------------
# rule bodies


_FORBIDDEN = (
    ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
    ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Try, ast.With,
    ast.AsyncWith, ast.Raise, ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await,
    ast.Delete, ast.AugAssign, ast.Import, ast.ImportFrom, ast.NamedExpr, ast.Assert,
) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())


def _rule_functions():
    seen = {}
    for rule in registry.all_rules():
        seen.setdefault(rule.vjp, rule.qualname)
    return sorted(seen.items(), key=lambda item: item[1])


@pytest.mark.parametrize("fn", [fn for fn, _ in _rule_functions()],
                         ids=[f"{fn.__module__.split('.')[-1]}.{fn.__name__}" for fn, _ in _rule_functions()])
def test_rule_body_is_straight_line(fn):
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    (defn,) = tree.body
    assert isinstance(defn, ast.FunctionDef)
    params = {a.arg for a in defn.args.posonlyargs + defn.args.args + defn.args.kwonlyargs}
    params |= {a.arg for a in (defn.args.vararg, defn.args.kwarg) if a is not None}
    assigned = set()
    loaded = set()
    for stmt in defn.body:
        for node in ast.walk(stmt):
            assert not isinstance(node, _FORBIDDEN), (
                f"{fn.__name__}: {type(node).__name__} at line {node.lineno} is not allowed in a rule body"
            )
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    for t in ast.walk(target):
                        assert isinstance(t, (ast.Name, ast.Tuple, ast.Store)), (
                            f"{fn.__name__}: assignment to {type(t).__name__} mutates a value"
                        )
            if isinstance(node, ast.Name):
                (assigned if isinstance(node.ctx, ast.Store) else loaded).add(node.id)
    # the last statement returns
    assert isinstance(defn.body[-1], (ast.Return, ast.If)) or (
        isinstance(defn.body[-1], ast.Expr) and isinstance(defn.body[-1].value, ast.Constant)
    )
    free = loaded - params - assigned
    unresolved = {n for n in free if n not in fn.__globals__ and not hasattr(builtins, n)}
    assert not unresolved, f"{fn.__name__}: free names not in its module: {unresolved}"
    assert not (assigned & params), f"{fn.__name__}: reassigns parameters {assigned & params}"


def test_supported_count_meets_the_library_target():
    assert len(rules.supported()) >= 250
    for name in ("numpy.linalg.svd", "numpy.linalg.eigh", "numpy.linalg.qr", "numpy.linalg.cholesky",
                 "numpy.cumprod", "numpy.median", "numpy.take_along_axis", "numpy.kron", "math.gamma",
                 "numpy.ndarray.cumprod", "numpy.nanmean", "numpy.average"):
        assert name in rules.supported(), name
    for name in ("numpy.imag", "numpy.ndarray.imag", "numpy.angle"):  # complex arguments vary them
        assert name in rules.supported(), name
    for name in ("numpy.isin", "math.ulp", "numpy.random.Generator.standard_normal"):
        assert name in rules.nondifferentiable(), name
    # their values move with an argument: a rule, or none (refused when it is active)
    assert "numpy.unique" in rules.supported() and "numpy.arange" in rules.supported()
    for name in ("numpy.nextafter", "math.nextafter", "numpy.logspace", "numpy.histogram",
                 "numpy.random.normal", "numpy.random.shuffle"):
        assert name not in rules.nondifferentiable() and name not in rules.supported(), name


def test_every_rule_keeps_a_jvp_slot_and_registration_accepts_one():
    assert all(hasattr(rule, "jvp") for rule in registry.all_rules())

    class Thing:
        def twice(self):
            return 2 * self

    def primal(x):
        return 3.0 * x

    def forward(dx, y, x):
        return 3.0 * dx

    try:
        @registry.vjp(primal, jvp=forward)
        def rule(g, y, x):
            return 3.0 * g

        @registry.vjp_method(Thing, "twice")
        def method_rule(g, y, self):
            return 2 * g

        registry.jvp((Thing, "twice"))(forward)
        assert registry.function_rule(primal).jvp is forward
        assert registry.method_rule(Thing, "twice").jvp is forward
    finally:
        registry._FUNCTION_RULES.pop(primal, None)
        registry._METHOD_RULES.pop((Thing, "twice"), None)
