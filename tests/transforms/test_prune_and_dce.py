"""Loop slots that never change are pruned; dead ops and dead slots are swept."""

import math

import numpy as np
import pytest
from irtools import central_difference, count, lowered

import zygote_py as zp
from zygote_py.ir.ops import loop_layout
from zygote_py.ir.verify import verify
from zygote_py.transforms.dce import dce
from zygote_py.transforms.prune import prune_pass, remove_loop_slots


def invariant_factor(x):
    c = 3.0
    for i in range(4):
        x = x * c
    return x


def dead_counter(x):
    a = 0
    for i in range(3):
        a = a + 1
        x = np.sin(x) * 2.0
    return x


def dead_call(x):
    y = np.cos(x)  # noqa: F841 - dead on purpose
    return x * 2.0


def while_with_invariant(x):
    c = 1.5
    while x < 10.0:
        x = x * c + 1.0
    return x


def _loop(ir):
    return next(op for op in ir.walk() if op.opcode in ("for", "while"))


def test_a_slot_the_body_yields_back_unchanged_is_pruned():
    ir = lowered(invariant_factor)
    loop = _loop(ir)
    before = len(loop.results)
    assert prune_pass(ir)
    verify(ir)
    assert len(loop.results) == before - 1
    layout = loop_layout(loop)
    mul = next(op for op in layout.carried[0].owner.ops if op.opcode == "call")
    assert mul.operands[1].defining_op.attrs["value"] == 3.0  # the body reads c's initial value


def test_while_slots_are_pruned_in_both_regions():
    ir = lowered(while_with_invariant)
    loop = _loop(ir)
    prune_pass(ir)
    verify(ir)
    assert len(loop.regions[0].args) == len(loop.regions[1].args) == len(loop.results) == 1


def test_remove_loop_slots_keeps_targets_and_renumbers_exit_slots():
    def with_break(xs):
        total = 0.0
        unused = 1.0  # noqa: F841 - a slot nobody reads
        for x in xs:
            if x > 2.0:
                break
            total = total + x
        return total

    ir = lowered(with_break)
    loop = _loop(ir)
    layout = loop_layout(loop)
    exit_slot = loop.attrs["exit"][0]
    assert exit_slot > 0  # the break flag is carried last
    keep = list(range(1, len(loop.results)))  # drop slot 0
    exit_value = layout.carried[exit_slot]
    remove_loop_slots(loop, keep)
    after = loop_layout(loop)
    assert loop.attrs["exit"] == (exit_slot - 1,)
    assert after.targets == layout.targets
    assert after.inits == layout.inits[1:] and after.iterables == layout.iterables
    assert after.carried[loop.attrs["exit"][0]] is exit_value
    assert len(after.inits) == len(after.carried) == len(after.yields) == len(keep)


def test_dead_calls_are_removed_and_effects_kept():
    ir = lowered(dead_call)
    assert count(ir, "call", np.cos) == 1
    assert dce(ir)
    verify(ir)
    assert count(ir, "call", np.cos) == 0

    def prints(x):
        print(x)
        return x * 2.0

    ir = lowered(prints)
    dce(ir)
    assert count(ir, "call", print) == 1


def test_a_dead_loop_slot_is_removed():
    ir = lowered(dead_counter)
    loop = _loop(ir)
    hints = [r.hint for r in loop.results]
    assert "a" in hints
    dce(ir)
    verify(ir)
    assert "a" not in [r.hint for r in loop.results]
    assert "x" in [r.hint for r in loop.results]


@pytest.mark.parametrize("fn", [invariant_factor, dead_counter, dead_call, while_with_invariant],
                         ids=lambda f: f.__name__)
def test_gradients_match_finite_differences(fn):
    for x in (0.4, 1.7):
        (g,) = zp.gradient(fn, x)
        assert g == pytest.approx(float(central_difference(fn, np.float64(x))), rel=1e-6)
        assert math.isfinite(g)
