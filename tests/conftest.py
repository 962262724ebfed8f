"""Make the test helper packages (`corpus`, `error_cases`) importable by their
short names, however pytest was started and whether or not `tests` is a package;
verify the IR at every stage; keep the collector's full passes to what a test file made."""

import gc
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


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After the last test of a file (its module fixtures torn down), collect what it left
    and freeze the rest: the collector's later full passes then walk only what later files
    make.  The suite keeps every file's module, functions and compiled code alive, so the
    heap grows to about a million objects, and without this the collector's full passes
    took 130 of the suite's 523 s.  Frozen objects are still freed when their last
    reference goes; only a cycle among them that becomes garbage later is not collected."""
    yield
    if nextitem is None or getattr(nextitem, "path", None) != getattr(item, "path", None):
        gc.collect()
        gc.freeze()
