"""The report's counts and ranking, from a work folder written by hand."""

import json

from peers.autograd import report

RULE_ERROR = {"type": "NoDerivativeRule", "message": "no derivative rule for numpy.foo",
              "frames": [], "zygote_error": True, "check_failure": False}
WRONG = {"type": "VJPCheckFailure", "message": "(VJP) check failed", "frames": [],
         "zygote_error": False, "check_failure": True}


def write_jsonl(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_counts_pass_rate_and_causes(tmp_path):
    write_jsonl(tmp_path / "checks" / "test_a.jsonl", [
        {"test": "test_a.py::t1", "outcome": "pass", "skipped_parts": ["fwd", "rev order 2"]},
        {"test": "test_a.py::t2", "outcome": "error", "exception": RULE_ERROR, "skipped_parts": ["fwd"]},
        {"test": "test_a.py::t2", "outcome": "error", "exception": RULE_ERROR, "skipped_parts": []},
        {"test": "test_a.py::t3", "outcome": "fail", "exception": WRONG, "complex": True,
         "skipped_parts": []},
        {"test": "test_a.py::t4", "outcome": "skipped", "skipped_parts": ["fwd"]},
    ])
    write_jsonl(tmp_path / "results" / "test_a.jsonl", [
        {"test": "test_a.py::t1", "when": "call", "outcome": "passed"},
        {"test": "test_a.py::t2", "when": "call", "outcome": "failed"},
        {"test": "test_a.py::t2", "when": "call", "outcome": "exception", "exception": RULE_ERROR},
        {"test": "test_a.py::t3", "when": "call", "outcome": "failed"},
        {"test": "test_a.py::t3", "when": "call", "outcome": "exception", "exception": WRONG},
        {"test": "test_a.py::t4", "when": "call", "outcome": "skipped"},
        {"test": "test_a.py::t5", "when": "call", "outcome": "failed"},
        {"test": "test_a.py::t5", "when": "call", "outcome": "exception", "exception": RULE_ERROR},
    ])
    summary = report.build(tmp_path, [{"file": "test_a.py", "status": 1, "seconds": 1.0}])
    assert summary["tests"] == {"passed": 1, "failed": 3, "skipped": 1, "error": 0}
    checks = summary["checks"]
    assert (checks["run"], checks["passed"], checks["wrong"], checks["raised"]) == (4, 1, 1, 2)
    assert checks["pass_rate"] == 0.25
    assert (checks["complex_run"], checks["complex_passed"]) == (1, 0)
    assert checks["skipped part: fwd"] == 3 and checks["skipped part: rev order>1"] == 1
    assert [(c["cause"], c["tests"], c["checks"]) for c in summary["causes"]] == [
        ("no rule for numpy.foo", 2, 2),
        ("wrong gradient (complex input): test_a.py::t3", 1, 1),
    ]
    text = report.to_markdown(summary)
    assert "1 of 4 pass (25.0%)" in text and "| test_a.py | 1 | 3 | 1 | 0 | 1 / 4 |" in text


def test_default_checks_count_a_check_passing_every_part(tmp_path):
    parts_all = {"fwd": "pass", "rev": "pass", "fwd/fwd": "pass", "fwd/rev": "pass",
                 "rev/fwd": "pass", "rev/rev": "pass"}
    write_jsonl(tmp_path / "checks" / "test_b.jsonl", [
        {"test": "test_b.py::t1", "outcome": "pass", "parts": parts_all},
        {"test": "test_b.py::t2", "outcome": "pass", "parts": {**parts_all, "rev/fwd": "error"},
         "part_exceptions": {"rev/fwd": RULE_ERROR}},
        {"test": "test_b.py::t3", "outcome": "skipped", "parts": {"fwd": "pass", "fwd/fwd": "pass"}},
    ])
    write_jsonl(tmp_path / "results" / "test_b.jsonl", [
        {"test": "test_b.py::t1", "when": "call", "outcome": "passed"},
        {"test": "test_b.py::t2", "when": "call", "outcome": "failed"},
        {"test": "test_b.py::t2", "when": "call", "outcome": "exception", "exception": RULE_ERROR},
        {"test": "test_b.py::t3", "when": "call", "outcome": "passed"},
    ])
    summary = report.build(tmp_path, [{"file": "test_b.py", "status": 1, "seconds": 1.0}])
    default = summary["default_checks"]
    assert (default["run"], default["passed"]) == (3, 2)
    assert (default["real_run"], default["real_passed"]) == (3, 2)  # no complex argument here
    assert default["parts"]["rev/fwd"] == {"passed": 1, "run": 2}
    assert default["parts"]["fwd"] == {"passed": 3, "run": 3}
    assert summary["checks"]["run"] == 2  # the first-order reverse count: t3 has no rev part
    assert [c["cause"] for c in summary["causes"]] == ["[rev/fwd] no rule for numpy.foo"]
    text = report.to_markdown(summary)
    assert "Default checks (fwd+rev, order 2): 2 of 3 (66.7%)" in text
    assert "| test_b.py | 2 | 1 | 0 | 0 | 2 / 2 | 2 / 3 |" in text
