"""The pass pipeline: declared order, fixed point, a check after every pass."""

import numpy as np
import pytest
from irtools import count, lowered

from zygote_py.ir.verify import verify
from zygote_py.transforms.pipeline import PASSES, Pass, PassFailed, run_passes
from zygote_py.transforms.simplify import simplify


def messy(x, flag):
    c = 2.0
    y = np.cos(x)  # noqa: F841 - dead on purpose
    if flag:
        t = (x * c, np.exp(x))
    else:
        t = (x, x)
    for i in range(3):
        x = x * c
    return t[0] + x


def test_the_declared_order():
    assert [p.name for p in PASSES] == ["split_tuples", "fold", "rebind_numbers", "prune_slots", "dce"]


def test_runs_to_a_fixed_point_with_the_verifier_after_every_pass():
    ir = lowered(messy)
    seen = []

    def check(fn):
        verify(fn)
        seen.append(1)

    rounds = run_passes(ir, check=check)
    assert rounds >= 2 and len(seen) == rounds * len(PASSES)
    assert count(ir, "call", np.cos) == count(ir, "call", np.exp) == 0
    assert run_passes(ir) == 1  # nothing left to do


def test_a_pass_that_breaks_the_ir_is_named():
    def drop_return(fn):
        fn.body.ops.pop()
        return True

    ir = lowered(messy)
    with pytest.raises(PassFailed, match="after pass 'breaker'"):
        run_passes(ir, passes=(Pass("breaker", drop_return),), check=verify)


def test_simplify_is_the_entry_point():
    ir = lowered(messy)
    simplify(ir, check=verify)
    verify(ir)
    assert count(ir, "call", np.exp) == 0
