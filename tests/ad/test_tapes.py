"""Tape placement, a step of its own: the adjoint asks for values from inside loops,
and `Tapes.place` / `saves_at` / `entry_tapes` put the pops, openings, pushes and
tape creations where they belong once the backward is complete."""

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp
from zygote_py.ad.reverse.tapes import Tapes
from zygote_py.ir.core import Block, Op


def _region_with_two_values():
    region = Block(["h"])
    a = region.append(Op("const", (), 1, {"value": 1.0}, hints=["a"])).result
    b = region.append(Op("const", (), 1, {"value": 2.0}, hints=["b"])).result
    region.append(Op("yield", [b], 0))
    return region, region.args[0], a, b


def test_asking_records_the_need_and_returns_the_popped_value_at_once():
    region, h, a, b = _region_with_two_values()
    tapes = Tapes()
    popped_a = tapes.pop(a, region)
    popped_h = tapes.pop(h, region)
    popped_b = tapes.pop(b, region)
    assert [v.hint for v in (popped_a, popped_h, popped_b)] == ["a", "h", "b"]
    assert popped_a.owner is popped_b.owner is not popped_h.owner  # one pop per end of the region
    start, end = tapes.saves_at(region)
    assert start[1] == [h] and end[1] == [a, b]
    assert start[0] is end[0]  # one tape per region: last in, first out serves both ends
    assert tapes.saves_at(Block()) == (None, None)


def test_placing_puts_pops_atop_the_mirror_and_openings_atop_the_backward():
    region, h, a, _ = _region_with_two_values()
    tapes = Tapes()
    tapes.pop(a, region)  # the "end" tape is asked for first
    tapes.pop(h, region)
    mirror = Block()
    mirror.append(Op("yield", [], 0))
    backward = Block(["dy"])
    backward.append(Op("return", [], 0))
    tapes.place(backward, {id(region): mirror})
    assert [op.opcode for op in mirror.ops] == ["tape_pop", "tape_pop", "yield"]
    assert [op.opcode for op in backward.ops] == ["tape_open", "return"]
    # what the region pushed last (its end) comes off first; that pop refills a spilled tape
    assert [r.hint for r in mirror.ops[0].results] == ["a"] and mirror.ops[0].attrs == {"first": True}
    assert [r.hint for r in mirror.ops[1].results] == ["h"] and mirror.ops[1].attrs == {}
    assert mirror.ops[0].operands[0] is mirror.ops[1].operands[0] is backward.ops[0].result
    made = tapes.entry_tapes()
    assert [op.operands[0] for op in backward.ops[:1]] == made
    assert made[0] is tapes.saves_at(region)[0][0]


def test_nested_loops_tape_values_of_both_levels_and_the_gradient_is_right():
    def nested(x, w):
        s = 0.0
        for i in range(3):
            t = np.sin(x * (i + 1))
            for k in range(2):
                s = s + t * np.cos(w * k + s)
        return s

    source = zp.grad_source(nested)
    assert source.count(".append(") >= 2 and source.count(".pop()") >= 2
    args = (0.4, 0.7)
    grads = zp.gradient(nested, *args)
    fd = numerical_gradient(nested, args)
    for i, (g, f, a) in enumerate(zip(grads, fd, args)):
        assert_gradient_matches(g, f, a, f"arg{i}")


@pytest.mark.parametrize("n", [0, 1, 4])
def test_a_while_loop_run_any_number_of_times_reverses_exactly(n):
    def grow(x, n):
        k = 0
        y = x
        while k < n:
            y = np.tanh(y) * x
            k += 1
        return y

    x = 0.8
    (g, _) = zp.gradient(grow, x, n)
    assert_gradient_matches(g, numerical_gradient(grow, (x, n))[0], x, "x")
