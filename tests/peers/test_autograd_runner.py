"""The runner end to end, on a stand-in sdist folder (no network): the shim is what
`import autograd` finds, and every outcome reaches the report."""

import json
import textwrap

import pytest

from peers.autograd import runner

TINY_TESTS = '''
import numpy
import autograd.numpy as np
import autograd.numpy.random as npr
from autograd import hessian
from autograd.extend import defvjp, primitive
from autograd.test_util import check_grads


def test_numpy_is_plain_numpy():
    assert np is numpy and npr is numpy.random


def test_sin():
    check_grads(np.sin)(npr.randn(3))


@primitive
def doubled(x):
    return 2.0 * x


defvjp(doubled, lambda ans, x: lambda g: 3.0 * g)  # wrong on purpose


def test_wrong_rule():
    check_grads(doubled, modes=["rev"])(1.0)


def test_hessian():
    hessian(np.sin)(1.0)
'''


def test_run_and_report(tmp_path, capsys):
    tests = tmp_path / "autograd-0.0" / "tests"
    tests.mkdir(parents=True)
    (tests / "test_tiny.py").write_text(textwrap.dedent(TINY_TESTS))
    (tests / "test_broken.py").write_text("from autograd import no_such_operator\n")
    out = tmp_path / "out"
    status = runner.main(["--sdist", str(tmp_path / "autograd-0.0"), "--out", str(out),
                          "--files", "test_tiny.py", "test_broken.py", "test_absent.py"])
    assert status == 0
    summary = json.loads((out / "report.json").read_text())
    assert summary["tests"] == {"passed": 3, "failed": 1, "skipped": 0, "error": 1}
    assert (summary["checks"]["run"], summary["checks"]["passed"]) == (2, 1)
    default = summary["default_checks"]
    assert (default["run"], default["passed"]) == (2, 1)  # test_sin's passes every part
    assert default["parts"]["rev/rev"] == {"passed": 1, "run": 2}
    (wrong, broken) = [(c["cause"], c["tests"]) for c in summary["causes"]]
    assert wrong == ("wrong gradient: test_tiny.py::test_wrong_rule", 1)
    assert broken[0].startswith("collection error: ImportError: cannot import name 'no_such_operator'")
    assert broken[1] == 1
    assert "1 of 2 pass (50.0%)" in (out / "report.md").read_text()
    assert "test_absent.py: not in" in capsys.readouterr().err


def test_a_missing_sdist_is_a_clear_message(tmp_path):
    missing = tmp_path / "autograd-9.9.tar.gz"
    with pytest.raises(SystemExit) as stopped:
        runner.main(["--sdist", str(missing), "--out", str(tmp_path / "out")])
    assert str(stopped.value) == f"{missing}: no such file or folder"
