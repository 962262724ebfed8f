"""Shrunk programs found by the fuzzer (`python -m fuzz`, docs/fuzzing.md).

Each `test_fuzz_*.py` here holds one small program and a test that checks it
against plain Python and central finite differences.  While zygote_py still
gets it wrong the test is marked `xfail(strict=True)`; a fix makes it pass,
strict turns that into a failure, and the marker is removed.  This file puts
the repository root on sys.path so the tests can import `fuzz`."""

import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)
