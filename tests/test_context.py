"""The Context (zygote_py/context.py): installing and restoring it, its observers, and
how the compiler and run-time dispatch reach what it holds."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import zygote_py as zp
from zygote_py import context
from zygote_py.compiler import COMPILER, Compiler


def fd_gradient(f, x, h=1e-6):
    """Central differences of the scalar f at the float array x."""
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = h
        out[i] = (f(x + step) - f(x - step)) / (2 * h)
    return out


def test_using_installs_a_changed_copy_and_restores_the_outer_one():
    outer = context.current()
    marker = object()
    with context.using(compiler=marker) as inner:
        assert context.current() is inner
        assert inner.compiler is marker
        assert inner.collector is outer.collector and inner.observers == outer.observers
        with context.using(collector=marker) as innermost:
            assert innermost.compiler is marker and innermost.collector is marker
            assert innermost.implicit
        assert context.current() is inner
    assert context.current() is outer


def test_using_restores_the_context_when_the_block_raises():
    outer = context.current()
    with pytest.raises(KeyError), context.using(compiler=object()):
        raise KeyError("x")
    assert context.current() is outer


def test_using_with_nothing_changed_keeps_the_same_context():
    outer = context.current()
    with context.using(compiler=outer.compiler, collector=outer.collector) as same:
        assert same is outer


def test_an_unknown_field_is_a_type_error():
    with pytest.raises(TypeError, match="'verify'"), context.using(verify=True):
        pass


def test_a_new_thread_starts_from_an_empty_context():
    seen = []
    with context.using(compiler=object(), collector=object()):
        thread = threading.Thread(target=lambda: seen.append(context.current()))
        thread.start()
        thread.join()
    (ctx,) = seen
    assert ctx.compiler is None and ctx.collector is None and not ctx.implicit
    assert ctx.observers == ()


class Stages(context.Observer):
    def __init__(self):
        self.stages: list[tuple[str, str]] = []

    def ir_ready(self, stage, ir):
        self.stages.append((stage, ir.name))


def cubic(x):
    return np.sum(x * x * x)


def test_observers_see_the_ir_after_each_stage_of_a_build():
    stages = Stages()
    x = np.array([0.5, -2.0])
    with context.using(compiler=Compiler()), context.observing(stages):
        (g,) = zp.gradient(cubic, x)
    np.testing.assert_allclose(g, fd_gradient(cubic, x), rtol=1e-6)
    passes = [stage for stage in stages.stages if stage[0] == "pass"]
    assert passes and all(name == "cubic" for _, name in passes)  # after every cleanup pass
    assert [stage for stage in stages.stages if stage[0] != "pass"] == [
        ("lowered", "cubic"), ("simplified", "cubic"), ("forward", "cubic"), ("backward", "back")]


class FailOnForward(context.Observer):
    def ir_ready(self, stage, ir):
        if stage == "forward":
            raise RuntimeError("observer refused " + ir.name)


def test_a_build_an_observer_stops_leaves_nothing_cached():
    fresh = Compiler()
    x = np.array([1.5])
    with context.using(compiler=fresh):
        with pytest.raises(RuntimeError, match="observer refused cubic"), context.observing(FailOnForward()):
            zp.gradient(cubic, x)
        assert not fresh.cache
        (g,) = zp.gradient(cubic, x)
    np.testing.assert_allclose(g, fd_gradient(cubic, x), rtol=1e-6)


def test_the_tests_run_the_verifier_as_an_observer():
    # conftest.py installs it for the whole session: a verifier that is not running
    # would let every golden and corpus test pass over broken IR
    observers = context.current().observers
    assert any(type(o).ir_ready is not context.Observer.ir_ready for o in observers)


def test_the_api_uses_the_compiler_of_the_context():
    fresh = Compiler()
    x = np.array([0.25, 0.75])
    with context.using(compiler=fresh):
        (g,) = zp.gradient(cubic, x)
    assert cubic in fresh.cache
    np.testing.assert_allclose(g, 3 * x * x, rtol=1e-12)


def apply(f, v):
    return f(v)


def sine(v):
    return np.sin(v)


def passed_as_value(x):
    return np.sum(apply(sine, x))  # sine's pullback is built when the call runs


def test_compiled_code_run_outside_a_gradient_call_says_it_has_no_compiler():
    x = np.array([0.1, 0.2])
    entry = COMPILER.entry(passed_as_value, (True,), "grad", (), (False,))
    with pytest.raises(zp.ZygoteError, match="outside a gradient call"):
        entry.fn(x)
    with context.using(compiler=COMPILER):
        _, (g,) = entry.fn(x)
    np.testing.assert_allclose(g, fd_gradient(passed_as_value, x), rtol=1e-6)


def test_the_compiler_keeps_no_per_build_state_or_switches():
    for name in ("verify", "in_progress", "_guards_stack"):
        assert not hasattr(COMPILER, name)
