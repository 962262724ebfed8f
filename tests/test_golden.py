"""Golden files: the printed IR and the generated gradient code of representative
functions, so that every change to the compiler's output is seen in review.

Set ZP_UPDATE_GOLDEN=1 to rewrite the files after an intended change.
Each case's gradient is also checked against finite differences, so a golden
file can never freeze a wrong gradient.
"""

import os
from pathlib import Path

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient
from golden import cases

import zygote_py as zp
from zygote_py.compiler import COMPILER
from zygote_py.ir.printer import format_function
from zygote_py.ir.verify import verify

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("ZP_UPDATE_GOLDEN") == "1"


def _check(path: Path, text: str) -> None:
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(f"missing golden file {path.name}; run with ZP_UPDATE_GOLDEN=1 to create it")
        path.write_text(text)
        return
    assert text == path.read_text(), f"{path.name} changed; review and regenerate with ZP_UPDATE_GOLDEN=1"


@pytest.mark.parametrize("func,args", cases.CASES, ids=[f.__name__ for f, _ in cases.CASES])
def test_ir_golden(func, args):
    ir = COMPILER.lowered_ir(func)
    verify(ir)
    _check(GOLDEN / f"{func.__name__}.ir", format_function(ir))


@pytest.mark.parametrize("func,args", cases.CASES, ids=[f.__name__ for f, _ in cases.CASES])
def test_code_golden(func, args):
    active = [i for i, a in enumerate(args) if zp.api.is_active(a)]
    _check(GOLDEN / f"{func.__name__}.grad.py", zp.grad_source(func, wrt=active))
    grads = zp.gradient(func, *args)
    fd = numerical_gradient(func, args)
    for i, (g, f, a) in enumerate(zip(grads, fd, args)):
        assert_gradient_matches(g, f, a, f"arg{i}")
    assert np.isfinite(func(*args))
