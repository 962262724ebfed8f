"""Standalone modules (zygote-py grad) refuse zp.hook, zp.retain, zp.checkpointed and
zp.no_grad by name: checkpointing compiles a pullback while the backward pass runs, and
the others are zygote_py's own objects, which a module importing only NumPy cannot hold."""

from __future__ import annotations

import numpy as np
import pytest

from tests.aot import utility_cases as cases
from zygote_py.aot.builder import NotStandalone
from zygote_py.aot.module import standalone_module

ARGS = (np.eye(2) * 0.5, np.array([1.0, -1.0]))


@pytest.mark.parametrize("fn, name", [
    (cases.uses_checkpointed, "zp.checkpointed"), (cases.uses_hook, "zp.hook"),
    (cases.uses_retain, "zp.retain"), (cases.uses_no_grad_block, "zp.no_grad"),
    (cases.uses_no_grad_function, "decorated with zp.no_grad"),
])
@pytest.mark.parametrize("args", [None, ARGS], ids=["no-args", "example-args"])
def test_a_utility_is_refused_by_name(fn, name, args):
    with pytest.raises(NotStandalone, match=name + r".* cannot be written into a standalone module"):
        standalone_module(fn, args=args)


def test_the_module_zygote_py_itself_is_refused_with_the_reason():
    with pytest.raises(NotStandalone, match=r"reads module zygote_py \(zp.stop_gradient, zp.hook"):
        standalone_module(cases.reads_zp, args=(np.ones(2),))
