"""Rules of functions that only some Python or NumPy versions have: registered only where
the function exists, and listed in docs/rules.md, with the version they need, on every one."""

from __future__ import annotations

import math
import types

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.rules import registry, table

NUMPY_2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"


def _scratch_module():
    module = types.ModuleType("scratch_versions")
    module.present = lambda x: 2.0 * x
    module.present.__module__ = "scratch_versions"
    return module


def test_since_returns_the_function_or_an_absent_marker(monkeypatch):
    monkeypatch.setattr(registry, "_REQUIREMENTS", {})
    module = _scratch_module()
    assert registry.since(module, "present", "Python 9.9") is module.present
    missing = registry.since(module, "missing", "NumPy 9.0")
    assert isinstance(missing, registry.Absent) and missing.qualname == "scratch_versions.missing"
    assert registry.requirement("scratch_versions.missing") == "NumPy 9.0"
    assert registry.requirement("numpy.sin") is None


def test_a_rule_of_an_absent_function_is_listed_but_not_registered(monkeypatch):
    monkeypatch.setattr(registry, "_REQUIREMENTS", dict(registry._REQUIREMENTS))
    monkeypatch.setattr(registry, "_ABSENT_RULES", dict(registry._ABSENT_RULES))
    monkeypatch.setattr(registry, "_ABSENT_NONDIFF", set(registry._ABSENT_NONDIFF))
    absent = registry.since(np, "no_such_function_in_any_numpy", "NumPy 99.0")

    @registry.vjp(absent)
    def no_such_rule(g, y, x):
        """Doubles the cotangent."""
        return 2.0 * g

    registry.nondifferentiable(registry.since(np, "no_such_constant_function", "NumPy 99.0"))
    assert all(rule.vjp is not no_such_rule for rule in registry.all_rules())
    section = table.render()
    assert ("| `numpy.no_such_function_in_any_numpy` | `test_versions.no_such_rule` | "
            "(NumPy 99.0+) Doubles the cotangent. |") in section
    assert "`numpy.no_such_constant_function` (NumPy 99.0+)" in section


def test_version_specific_rules_are_registered_exactly_where_their_function_exists():
    for module, name in ((math, "exp2"), (math, "sumprod"), (np, "cumulative_sum"), (np, "matvec"),
                         (np.linalg, "matrix_norm")):
        fn = getattr(module, name, None)
        qualname = f"{module.__name__}.{name}"
        assert registry.requirement(qualname) is not None, qualname
        if fn is None:
            assert qualname in registry.absent_rules()
        else:
            assert registry.function_rule(fn) is not None and qualname not in registry.absent_rules()


def test_names_are_the_public_ones_on_every_numpy():
    # NumPy 1.x's np.random.beta is a bound method of a C object with no __module__;
    # NumPy 2 reports numpy.random.  Both get the same public name.
    bound = types.SimpleNamespace(__module__=None, __qualname__="RandomState.beta", __name__="beta",
                                  __self__=np.random.RandomState(0))
    assert registry.qualified_name(bound) == "numpy.random.RandomState.beta"
    assert registry.qualified_name(np.random.RandomState) == "numpy.random.RandomState"
    assert registry.qualified_name(np.random.beta) == "numpy.random.RandomState.beta"


def test_an_attribute_only_newer_numpy_has_is_registered_exactly_where_it_exists():
    present = hasattr(np.ndarray, "mT")
    assert registry.requirement("numpy.ndarray.mT") == "NumPy 2.0"
    assert (registry.attr_rule(np.ndarray, "mT") is not None) == present
    assert ("numpy.ndarray.mT" in registry.absent_rules()) == (not present)
    assert "| `numpy.ndarray.mT` | `shapes.ndarray_mT` | (NumPy 2.0+)" in table.render()


@pytest.mark.skipif(NUMPY_2, reason="NumPy 1.x only: NumPy 2 has these arguments")
@pytest.mark.parametrize("f", [
    lambda x: np.var(x, correction=1),
    lambda x: np.std(x, mean=0.5),
    lambda x: np.sum(np.linalg.cholesky(np.outer(x, x) + np.eye(3), upper=True)),
])
def test_numpy_2_arguments_on_numpy_1_are_numpys_own_error(f):
    # the rules accept NumPy 2's arguments, but the primal is NumPy's: NumPy 1.x refuses them
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        zp.gradient(f, np.array([0.3, -1.2, 0.7]))
