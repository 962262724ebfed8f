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


# -- grad, check, help: the command itself, one subprocess each --------------------------
CASES = TESTS / "cli" / "cases.py"


def test_help_shows_examples_for_every_subcommand():
    top = run("--help")
    assert top.returncode == 0
    for command in ("grad", "check", "ir", "source"):
        assert f"zygote-py {command} " in top.stdout
    grad_help = run("grad", "--help")
    assert "grad_FUNC" in grad_help.stdout and "--args" in grad_help.stdout


def test_pullback_module_to_stdout_matches_zp_pullback():
    import numpy as np

    import zygote_py as zp
    from cli import cases

    out = run("grad", f"{CASES}:vector_output", "--mode", "pullback")
    assert out.returncode == 0, out.stderr
    namespace: dict = {}
    exec(compile(out.stdout, "pullback_module", "exec"), namespace)
    x, W = np.linspace(-1.0, 1.0, 3), np.arange(6.0).reshape(2, 3) / 7
    y, back = namespace["pullback_vector_output"](x, W)
    want_y, want_back = zp.pullback(cases.vector_output, x, W)
    dy = np.array([0.3, -1.2])
    np.testing.assert_allclose(y, want_y, rtol=1e-12)
    for got, want in zip(back(dy), want_back(dy)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_grad_with_wrt_and_method_of_an_argument_object(tmp_path):
    import numpy as np

    import zygote_py as zp
    from cli import cases

    target = tmp_path / "grad_method.py"
    out = run("grad", f"{CASES}:method_on_argument", "--wrt", "x", "--args", "py:Scale(1.5),3", "-o", str(target))
    assert out.returncode == 0, out.stderr
    namespace: dict = {}
    exec(compile(target.read_text(), str(target), "exec"), namespace)
    layer, x = cases.Scale(0.7), np.array([0.1, -0.4, 0.9])
    got = namespace["grad_method_on_argument"](layer, x)
    assert got[0] is None  # not in --wrt
    np.testing.assert_allclose(got[1], zp.gradient(cases.method_on_argument, layer, x)[1], rtol=1e-10)


def _assert_error(out, where: str, message: str, status: int = 1):
    assert out.returncode == status, (out.returncode, out.stderr)
    assert "Traceback" not in out.stderr
    first = out.stderr.splitlines()[0]
    assert first.startswith(where) and ": error: " in first and message in first, out.stderr


def test_error_kinds_are_located_with_no_traceback():
    syntax = TESTS / "error_cases" / "syntax.py"
    _assert_error(run("grad", f"{syntax}:uses_with"), f"{syntax}:", "with blocks are not supported")
    out = run("grad", f"{CASES}:no_rule")
    _assert_error(out, f"{CASES}:14:19", "no derivative rule for numpy.i0")
    assert "    return np.sum(np.i0(x))" in out.stderr and "^^^" in out.stderr and "hint:" in out.stderr
    _assert_error(run("grad", "no_such_file.py:f"), "no_such_file.py", "no such file")
    _assert_error(run("grad", f"{CASES}:nope"), f"{CASES}:1:1", "has no function 'nope'")
    _assert_error(run("check", f"{CASES}:raises", "--args", "3"), f"{CASES}:18:", "IndexError")
    _assert_error(run("check", f"{CASES}:scalar_loss", "--args", "3,4"), f"{CASES}:33:1",
                  "--args gives 2 argument(s)")
    # a method of an argument is only known at run time: without example arguments, say so
    out = run("grad", f"{CASES}:method_on_argument")
    _assert_error(out, f"{CASES}:30:19", "the method call .apply(...) is resolved while running")
    assert "--args" in out.stderr
    bad = run("check", f"{CASES}:scalar_loss", "--args", "3x,[1")
    assert bad.returncode == 2 and "--args" in bad.stderr and "Traceback" not in bad.stderr
    assert run("grad", f"{CASES}:scalar_loss", "--mode", "sideways").returncode == 2


def test_check_reports_errors_and_exit_status():
    out = run("check", f"{CASES}:scalar_loss", "--args", "5", "--seed", "3")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[1].startswith("largest absolute error:") and lines[2].startswith("largest relative error:")
    assert float(lines[1].split(":")[1]) < 1e-8 and lines[-1].startswith("ok")
    strict = run("check", f"{CASES}:scalar_loss", "--args", "[0.1, 0.7, -0.3]", "--tol", "0")
    assert strict.returncode == 1 and strict.stdout.splitlines()[-1].startswith("FAILED")
    nonscalar = run("check", f"{CASES}:vector_output", "--args", "3,2x3")
    _assert_error(nonscalar, f"{CASES}:", "real scalar output")


def test_grad_module_carries_custom_rules(tmp_path):
    import numpy as np

    target = tmp_path / "grad_custom.py"
    out = run("grad", f"{CASES}:custom_rule_two_ways", "--args", "3", "-o", str(target))
    assert out.returncode == 0, out.stderr
    script = ("import sys; sys.modules['zygote_py'] = None; sys.path.insert(0, sys.argv[1]);"
              "import numpy as np, grad_custom;"
              "print(list(grad_custom.grad_custom_rule_two_ways(np.array([1.0, 2.0, 3.0]))[0]))")
    result = subprocess.run([sys.executable, "-I", "-c", script, str(tmp_path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    np.testing.assert_allclose(eval(result.stdout), 6 * np.array([1.0, 2.0, 3.0]) ** 2)


def test_user_exception_located_without_a_column(monkeypatch, tmp_path):
    # Python 3.10's FrameSummary has no colno (it was an AttributeError, a crash of `check`)
    import types

    from zygote_py.cli import main as cli_main

    model = tmp_path / "model.py"
    model.write_text("def f(x):\n    y = g(x)\n    return y\n")
    frames = [types.SimpleNamespace(filename=str(model), lineno=2, line="y = g(x)")]
    monkeypatch.setattr(cli_main.traceback, "extract_tb", lambda tb: frames)
    err = cli_main._user_exception(ValueError("bad"), "calling model.py:f raised")
    assert err.where == f"{model}:2:5"  # the statement's first column
