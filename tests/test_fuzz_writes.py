"""The write-program fuzzer (fuzz/writes.py): a fixed seed's programs get right
gradients and jvps or a refusal, never a wrong number or an internal error, and the
checker does catch a wrong one."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from fuzz import writes


def test_fixed_seed_is_right_or_refused():
    failures = []
    outcomes = writes.run(seed=20261126, count=40, report=failures.append)
    assert not failures, "\n".join(failures)
    assert outcomes["ok"] >= 20  # most of them are differentiated, not refused


def test_the_generator_is_deterministic_and_covers_both_families():
    assert writes.program(3, 10) == writes.program(3, 10)
    assert "v1 = buf" in writes.program(3, 10)
    assert "acc = 0.0" in writes.program(3, 11)


def test_a_wrong_gradient_is_caught(tmp_path):
    # a custom rule with the wrong sign after a write: the checker must call it wrong
    source = writes.HEADER + (
        "import zygote_py as zp\n\n\n"
        "def twice(a):\n"
        "    return 2.0 * a\n\n\n"
        "@zp.adjoint(twice)\n"
        "def _twice_rule(a):\n"
        "    return 2.0 * a, lambda g: (-2.0 * g,)\n\n\n"
        "def f(x, c):\n"
        "    buf = x * 1.0\n"
        "    buf *= c\n"
        "    return np.sum(twice(buf) ** 2)\n")
    sys.path.insert(0, str(tmp_path))
    try:
        kind, detail = writes.check(source, str(tmp_path), 1)
    finally:
        sys.path.remove(str(tmp_path))
    assert kind == "wrong" and detail.startswith("gradient")
