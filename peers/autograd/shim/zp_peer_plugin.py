"""A pytest plugin (loaded with -p) that records each autograd test's outcome for the report.

Writes one JSON line per test phase that failed, was skipped, or passed (the
call phase) into the file named by ZP_PEER_RESULTS, with the facts about the
exception that failed it.  A check whose first-order reverse part passed but
another part failed fails its test when the test ends (test_util.DEFERRED).  It also refuses to run if `autograd` is not the
shim: a real autograd installed earlier on sys.path would make every number
in the report meaningless.
"""

from __future__ import annotations

import json
import os

import pytest

import autograd
from autograd import test_util
from autograd._record import describe_exception

RESULTS_ENV = "ZP_PEER_RESULTS"

if not hasattr(autograd, "_aliases"):
    raise ImportError(f"'autograd' resolves to {autograd.__file__}, not the zygote_py shim")


def _write(entry: dict) -> None:
    path = os.environ.get(RESULTS_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(entry, default=str) + "\n")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    test_util.DEFERRED = []


@pytest.hookimpl(trylast=True)
def pytest_runtest_call(item):
    """Fail the test with its first deferred check failure (see test_util.DEFERRED)."""
    deferred, test_util.DEFERRED = test_util.DEFERRED or [], []
    if deferred:
        raise deferred[0]


def pytest_runtest_logreport(report):
    if report.when != "call" and report.outcome == "passed":
        return
    entry = {"test": report.nodeid, "when": report.when, "outcome": report.outcome}
    if report.outcome == "skipped" and isinstance(report.longrepr, tuple):
        entry["reason"] = report.longrepr[2]
    _write(entry)


def pytest_exception_interact(node, call, report):
    """Failed tests: the exception's facts, which the log report alone does not keep."""
    if call.excinfo is not None and report.failed:
        _write({"test": report.nodeid, "when": report.when, "outcome": "exception",
                "exception": describe_exception(call.excinfo.value)})


def pytest_collectreport(report):
    if report.failed:
        _write({"test": report.nodeid, "when": "collect", "outcome": "error",
                "message": str(report.longrepr)[-1500:]})
