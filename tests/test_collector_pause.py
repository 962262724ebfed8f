"""The cyclic collector is off while a gradient compiles, and as it was afterwards
(zygote_py/collector_pause.py)."""

import gc

import numpy as np
import pytest

import zygote_py as zp
from zygote_py import compiler as compiler_module
from zygote_py import forward_compiler
from zygote_py.collector_pause import collector_paused

from derivative_checks import fd_gradient


@pytest.fixture
def collector_restored():
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_paused_inside_and_restored(collector_restored):
    gc.enable()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():  # a callee's build inside its caller's
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_left_off_when_the_user_turned_it_off(collector_restored):
    gc.disable()
    with collector_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_restored_when_the_build_fails(collector_restored):
    gc.enable()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("a build that fails")
    assert gc.isenabled()


def _record_collector_state(monkeypatch, cls, name):
    seen = []
    original = getattr(cls, name)

    def recording(self, *args, **kwargs):
        seen.append(gc.isenabled())
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, recording)
    return seen


def test_reverse_build_runs_with_the_collector_off(monkeypatch, collector_restored):
    gc.enable()
    seen = _record_collector_state(monkeypatch, compiler_module.Compiler, "_build")

    def helper(v):
        return np.sin(v) * v

    def f(x):
        return np.sum(helper(x) ** 2)

    x = np.linspace(0.1, 1.0, 4)
    g = zp.gradient(f, x)[0]
    assert seen and not any(seen)  # f's build and helper's, each with the collector off
    assert gc.isenabled()
    np.testing.assert_allclose(g, fd_gradient(f, x), rtol=1e-6)


def test_forward_build_runs_with_the_collector_off(monkeypatch, collector_restored):
    gc.enable()
    seen = _record_collector_state(monkeypatch, forward_compiler.ForwardCompiler,
                                   "_build_forward")

    def f(x):
        return np.tanh(x) * x

    x = np.array([0.3, -0.7])
    y, t = zp.jvp(f, (x,), (np.ones(2),))
    assert seen and not any(seen)
    assert gc.isenabled()
    np.testing.assert_allclose(t, np.tanh(x) + x * (1 - np.tanh(x) ** 2), rtol=1e-12)
