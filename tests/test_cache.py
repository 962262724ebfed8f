"""The compile cache: a repeated gradient compiles nothing; redefinition and
rebinding of a global callee take effect on the next call."""

import importlib
import math

import cache_cases
import numpy as np
import pytest

import zygote_py as zp


def count_calls(monkeypatch, module, name):
    calls = []
    original = getattr(module, name)

    def counting(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls


def test_repeated_gradient_parses_and_compiles_nothing(monkeypatch):
    importlib.reload(cache_cases)
    zp.gradient(cache_cases.uses_square, 0.5)
    from zygote_py import compiler

    lowered = count_calls(monkeypatch, compiler, "lower_function")
    compiled = count_calls(monkeypatch, compiler, "compile_generated")
    for _ in range(3):
        (g,) = zp.gradient(cache_cases.uses_square, 0.5)
    assert lowered == [] and compiled == []
    assert math.isclose(g, 2 * 0.5 + math.cos(0.5))


def test_rebinding_a_global_callee_takes_effect():
    importlib.reload(cache_cases)
    assert math.isclose(zp.gradient(cache_cases.uses_square, 0.5)[0], 1.0 + math.cos(0.5))
    original = cache_cases.square
    try:
        cache_cases.square = lambda x: 3.0 * x  # a new callee object under the same name
        assert math.isclose(zp.gradient(cache_cases.uses_square, 0.5)[0], 3.0 + math.cos(0.5))
    finally:
        cache_cases.square = original
    assert math.isclose(zp.gradient(cache_cases.uses_square, 0.5)[0], 1.0 + math.cos(0.5))


def test_redefining_a_function_takes_effect(tmp_path, monkeypatch):
    path = tmp_path / "redefined_mod.py"
    path.write_text("def f(x):\n    return x * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import redefined_mod

    assert zp.gradient(redefined_mod.f, 2.0) == (4.0,)
    path.write_text("def f(x):\n    return x * x * x\n")
    importlib.reload(redefined_mod)
    assert zp.gradient(redefined_mod.f, 2.0) == (12.0,)


def test_specialisations_are_kept_apart():
    f = cache_cases.uses_square
    (gs,) = zp.gradient(f, 0.5)
    (ga,) = zp.pullback(f, np.array([0.5, 1.0]))[1](np.ones(2))
    assert isinstance(gs, float) and ga.shape == (2,)
    assert np.allclose(ga, 2 * np.array([0.5, 1.0]) + np.cos([0.5, 1.0]))


def test_a_lambda_made_again_reuses_the_compiled_code_with_its_own_cells(monkeypatch):
    from zygote_py import compiler

    compiled = count_calls(monkeypatch, compiler, "compile_generated")
    w = np.array([1.0, 2.0])
    results = []
    for scale in (1.0, 2.0, 3.0):
        x = np.array([scale, -scale])
        results.append(zp.gradient(lambda v: np.sum(v * x * w), np.ones(2))[0])
    assert len(compiled) == 1
    for scale, g in zip((1.0, 2.0, 3.0), results):
        np.testing.assert_allclose(g, np.array([scale, -scale]) * w)


def test_a_lambda_made_again_with_a_different_static_cell_recompiles():
    results = []
    for fn in (np.sin, np.cos):
        results.append(zp.gradient(lambda v: fn(v), 0.5)[0])
    assert results == [pytest.approx(np.cos(0.5)), pytest.approx(-np.sin(0.5))]
