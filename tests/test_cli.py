"""The zygote-py command, run as a subprocess: ir, source, errors, version."""

import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).parent


def run(*args):
    return subprocess.run([sys.executable, "-m", "zygote_py", *args], capture_output=True, text=True)


def test_ir_matches_the_golden_file():
    out = run("ir", str(TESTS / "golden" / "cases.py") + ":scalar_loop")
    assert out.returncode == 0, out.stderr
    assert out.stdout == (TESTS / "golden" / "scalar_loop.ir").read_text()


def test_source_prints_the_gradient_code():
    out = run("source", str(TESTS / "golden" / "cases.py") + ":helper", "--wrt", "a")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("def helper_grad(a, b):")
    compile(out.stdout, "<cli>", "exec")


def test_errors_are_one_line_plus_caret_and_exit_1():
    out = run("ir", str(TESTS / "error_cases" / "syntax.py") + ":uses_with")
    assert out.returncode == 1
    first = out.stderr.splitlines()[0]
    assert "syntax.py:" in first and ": error: with blocks are not supported" in first
    assert "^" in out.stderr and "Traceback" not in out.stderr
    missing = run("ir", "no_such_file.py:f")
    assert missing.returncode == 1 and "no such file" in missing.stderr


def test_usage_errors_exit_2_and_version():
    assert run("frobnicate").returncode == 2
    version = run("--version")
    assert version.returncode == 0 and version.stdout.startswith("zygote-py ")
