"""Shape keys (analysis/shapes.py): which arrays certainly share a shape, from the arguments'
array kinds, and the unbroadcast calls the adjoint drops between them (checked against
central differences)."""

import numpy as np
import pytest
from write_checks import check_writes

import zygote_py as zp
from zygote_py.analysis.shapes import shape_keys
from zygote_py.compiler import COMPILER

U0 = np.sin(np.linspace(0.0, 3.0, 9))


def stencil(u):
    a, b, c, d, e, f = u[1:-1], u[2:], u[:-2], u[1:], u[:2], u[::2]
    return a, b, c, d, e, f, b - 2.0 * a + c, a * d[1:]


def _keys_of_results(fn, kinds):
    ir = COMPILER.lowered_ir(fn)
    keys = shape_keys(ir, kinds)
    returned = ir.body.ops[-1].operands[0].defining_op.operands
    return [keys.get(v.id) for v in returned]


def test_trimmed_slices_of_a_vector_share_a_key():
    a, b, c, d, e, f, combined, sliced_twice = _keys_of_results(stencil, (1,))
    assert a is not None and a == b == c == combined == sliced_twice  # two trimmed off each
    assert d is not None and d != a
    assert e is None and f is None  # a positive stop, a step: lengths not relative to n


def test_no_keys_without_array_kinds_or_for_matrices():
    assert set(_keys_of_results(stencil, ())) == {None}
    assert _keys_of_results(stencil, (2,))[:6] == [None] * 6


def heat(u0, c):
    u = u0.copy()
    for _ in range(5):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return (u * u).sum()


def mixed(u0, c):
    u = u0.copy()
    for _ in range(3):
        u[1:] = u[1:] * c + u[:1] * u[2:-1].sum()  # u[:1] broadcasts: its unbroadcast stays
    return (u * u).sum()


def test_the_heat_equation_keeps_only_cs_unbroadcast():
    text = zp.grad_source(heat, args=(U0, 0.2))
    # c's, joined with the strong zero of its product (codegen/fuse.py: summed_strong_times)
    assert "_zp_unbroadcast(" not in text and text.count("_zp_summed_strong_times(") == 1
    assert "_zp_summed_strong_times(t_7, t_6, c)" in text, text
    assert "_zp_tape.append(u)" not in text  # the array the loop entered with is read
    check_writes(heat, U0, 0.2)


@pytest.mark.parametrize("u0", [U0, U0[:1], U0[:2], U0.reshape(3, 3)], ids=["9", "1", "2", "3x3"])
def test_numbers_for_every_length_and_kind(u0):
    check_writes(heat, u0, 0.2)


def test_a_broadcast_operand_keeps_its_unbroadcast():
    assert "_zp_unbroadcast" in zp.grad_source(mixed, args=(U0, 0.7))
    check_writes(mixed, U0, 0.7)
