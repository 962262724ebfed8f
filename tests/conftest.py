"""Make the test helper packages (`corpus`, `error_cases`) importable by their
short names, however pytest was started and whether or not `tests` is a package."""

import sys
from pathlib import Path

import pytest

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

pytest.register_assert_rewrite("corpus.finite_diff")


@pytest.fixture(autouse=True, scope="session")
def _verify_ir_after_every_pass():
    """In the tests, the IR verifier runs after lowering, after every cleanup pass, and
    on the forward and (op by op) the backward program after the reverse transform
    (it is off for users: it costs time).
    It watches the compiler as an observer of the main thread's Context; threads a test
    starts begin with an empty Context and are not verified."""
    from zygote_py import context
    from zygote_py.ir.verify import verify, verify_ops

    class VerifyEveryStage(context.Observer):
        def ir_ready(self, stage, ir):
            if stage == "backward":  # reads forward values: not a closed function
                verify_ops(ir.body)
            else:
                verify(ir)

    with context.observing(VerifyEveryStage()):
        yield
