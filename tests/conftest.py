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
    """In the tests, the IR verifier runs after lowering, after simplification and on
    the forward program after the reverse transform (it is off for users: it costs time)."""
    from zygote_py.compiler import COMPILER

    COMPILER.verify = True
    yield
    COMPILER.verify = False
