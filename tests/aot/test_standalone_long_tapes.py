"""A standalone module (`zygote-py grad`) carries the tape helpers: a long loop's tape spills
and refills there exactly as in process (runtime/tapes.py)."""

import types

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.aot.module import standalone_module
from zygote_py.runtime import tapes


def long_loop(x, w):
    s = 0.0
    for i in range(37):
        x = np.tanh(w * x) + 0.01 * i
        s = s + x * x
    return s


@pytest.mark.parametrize("mode", ["grad", "pullback"])
def test_the_module_spills_and_gives_the_in_process_gradient(monkeypatch, mode):
    monkeypatch.setattr(tapes, "SPILL_AT", 4)
    text = standalone_module(long_loop, mode=mode)
    assert "_zp_spill_tape" in text and "_zp_refill_tape" in text
    module = types.ModuleType("long_loop_grad")
    exec(compile(text, "<long_loop_grad>", "exec"), module.__dict__)  # noqa: S102 -- the module under test
    expected = zp.gradient(long_loop, 0.3, 0.9)
    if mode == "grad":
        grads = module.grad_long_loop(0.3, 0.9)
    else:
        y, back = module.pullback_long_loop(0.3, 0.9)
        assert y == pytest.approx(long_loop(0.3, 0.9), rel=1e-15)
        grads = back(1.0)
        assert back(1.0) == grads  # a second run reads its own copy of the tape
    assert tuple(grads) == pytest.approx(expected, rel=1e-12)
