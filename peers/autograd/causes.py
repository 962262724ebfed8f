"""Grouping failures by cause: an exception's recorded facts -> (category, cause).

The shim records an exception's type, message and frames (shim/autograd/
_record.py); this module decides what the failure says about zygote_py:

- no rule for X               NoDerivativeRule, keyed by the callee it names
- unsupported syntax          UnsupportedSyntax, keyed by its message
- zygote_py error             any other ZygoteError subclass (MutationError, NonScalarOutput, ...)
- third derivatives           zygote_py refused a nested derivative two deep (forward mode
                              over gradient code reached zp.gradient, zp.pullback, ...)
- nested differentiation      zygote_py differentiated code that calls an autograd operator
                              (grad, jacobian, ...): it transformed the shim's source, or a
                              pullback it was running called zygote_py again
- wrong gradient              the VJP check failed: keyed by test, complex inputs apart
                              (zygote_py's rules are for real arrays)
- internal error              any other exception raised inside zygote_py or its generated
                              code, keyed by the innermost zygote_py frame and exception type
- test code error             the test's function raised its own exception while zygote_py ran
                              it (the innermost frame is the test file's)
- test assertion              the test's own assert on a value zygote_py computed
- shim / test error           raised outside zygote_py altogether (an autograd API the shim
                              does not provide, or the test's own code)
"""

from __future__ import annotations

import re

_RULE = re.compile(r"no derivative rule for ([\w.<>]+)")
_SPACES = re.compile(r"\s+")
_QUOTED_NUMBERS = re.compile(r"\b\d+(\.\d+)?\b")


def _first_line(message: str, width: int = 110) -> str:
    line = message.strip().splitlines()[0] if message.strip() else ""
    line = _SPACES.sub(" ", line)
    return line if len(line) <= width else line[: width - 3] + "..."


def _in_zygote_py(frame) -> bool:
    filename = frame[0]
    return filename.startswith(("zygote_py/", "<zygote_py"))


def _nested(exception: dict) -> bool:
    """Whether zygote_py met the shim inside code it was differentiating."""
    if (exception.get("loc") or "").startswith("shim:"):
        return True
    frames = exception.get("frames", [])
    generated = [i for i, f in enumerate(frames) if f[0].startswith("<zygote_py")]
    return bool(generated) and any(f[0].startswith("shim:") for f in frames[generated[0]:])


def _test_name(test_id: str) -> str:
    """'test_numpy.py::test_sum[x]' -> 'test_numpy.py::test_sum'."""
    return test_id.split("[", 1)[0]


def classify(exception: dict, test_id: str = "", complex_input: bool = False) -> tuple[str, str]:
    """(category, cause) for one recorded exception."""
    kind = exception["type"]
    message = exception.get("message", "")
    frames = exception.get("frames", [])
    if exception.get("check_failure"):
        suffix = " (complex input)" if complex_input else ""
        return "wrong gradient", f"wrong gradient{suffix}: {_test_name(test_id)}"
    if "inside a function being differentiated: forward mode over the inner" in message:
        if any(f"reaches zygote_py.{m}." in message for m in ("api", "forward_api", "nested")):
            return "third derivatives", "third derivatives (refused: zygote_py nests to order two)"
        inner = message.split("does not follow (", 1)[-1].strip()
        inner = inner[:-1] if inner.endswith(")") else inner
        return "nested differentiation", ("forward mode over an inner gradient: "
                                          + _QUOTED_NUMBERS.sub("N", _first_line(inner, 90)))
    if _nested(exception):
        return "nested differentiation", "nested differentiation: an autograd operator called inside differentiated code"
    if kind == "NoDerivativeRule":
        match = _RULE.search(message)
        return "no rule", f"no rule for {match.group(1) if match else _first_line(message)}"
    if kind == "UnsupportedSyntax":
        return "unsupported syntax", f"unsupported syntax: {_first_line(message)}"
    if exception.get("zygote_error"):
        return "zygote_py error", f"{kind}: {_QUOTED_NUMBERS.sub('N', _first_line(message))}"
    inside = [f for f in frames if _in_zygote_py(f)]
    test_file = test_id.split("::", 1)[0]
    if (len(frames) >= 2 and test_file and frames[-1][0] == test_file
            and frames[-2][0].startswith("<zygote_py")):
        # The innermost frame is the test's own function, called by the generated code:
        # its own error (`x.shape` of a Python float), raised as plain Python raises it.
        return "test code error", f"the test's own code raised {kind}: {_first_line(message, 70)}"
    if inside:
        innermost = inside[-1]
        where = "generated code" if innermost[0].startswith("<") else f"{innermost[0]}:{innermost[1]}"
        return "internal error", f"internal error in {where}: {kind}: {_first_line(message, 70)}"
    if kind == "AssertionError":
        return "test assertion", f"test assertion: {_test_name(test_id)}"
    if frames and frames[-1][0].startswith("shim:"):
        return "shim", f"shim: {kind}: {_first_line(message)}"
    return "test or shim error", f"{kind}: {_first_line(message)}"


def classify_collection_error(message: str) -> tuple[str, str]:
    """(category, cause) for a test file that could not be imported."""
    lines = [line for line in message.splitlines() if line.startswith("E ")]
    last = lines[-1][1:].strip() if lines else _first_line(message)
    return "collection error", f"collection error: {_first_line(last)}"
