"""Make the test helper packages (`corpus`, `error_cases`) importable by their
short names, however pytest was started and whether or not `tests` is a package."""

import sys
from pathlib import Path

import pytest

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

pytest.register_assert_rewrite("corpus.finite_diff")
