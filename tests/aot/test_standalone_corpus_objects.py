"""Corpus cases that build objects, written as standalone modules (zygote-py grad) at their
own arguments: the module's gradient is zp.gradient's, which tests/test_corpus.py checks
against central differences.  These are the forms the module's copy of the object ledger
and its dispatcher must get right beyond tests/aot/test_standalone_objects.py: super() and
inheritance, class methods that build, dataclasses with bases and a dataclass __init__
called directly, NamedTuples built by their operators, NotImplemented."""

from __future__ import annotations

import copy
import types

import numpy as np
import pytest
from corpus import as_case, built_objects, operator_overloading

import zygote_py as zp
from zygote_py.aot.module import standalone_module

NAMES = [(built_objects, "inheritance_and_super"), (built_objects, "class_method_builds"),
         (built_objects, "super_property_and_bound_method"), (built_objects, "dataclass_bases"),
         (built_objects, "dataclass_init_called_directly"),
         (built_objects, "cooperative_super_and_class_methods"),
         (operator_overloading, "dual_polynomial"), (operator_overloading, "not_implemented_turn")]


def _case(module, name):
    return next(as_case(e) for e in module.CASES if as_case(e).func.__name__ == name)


def _assert_same(got, want, path="grad"):
    if isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), path
        for key in want:
            _assert_same(got[key], want[key], f"{path}[{key!r}]")
    elif isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            _assert_same(g, w, f"{path}[{i}]")
    elif want is None or got is None:
        assert got is None and want is None, path
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=path)


@pytest.mark.parametrize("module, name", NAMES, ids=[n for _, n in NAMES])
def test_the_module_gives_zygote_pys_gradient(module, name):
    case = _case(module, name)
    text = standalone_module(case.func, args=copy.deepcopy(case.args))
    dumped = types.ModuleType(name)
    exec(compile(text, f"<{name}>", "exec", dont_inherit=True), dumped.__dict__)
    got = getattr(dumped, f"grad_{name}")(*copy.deepcopy(case.args))
    _assert_same(got, zp.gradient(case.func, *copy.deepcopy(case.args)))
