"""What the shim writes down about each gradient check and each failure.

The runner sets ZP_PEER_CHECKS to a file; every check_grads call appends one
JSON line there (the test it ran in, the arguments' kinds, the outcome, the
parts that were skipped, and the exception's facts if any).  Classifying a
failure into a cause happens later, in peers/autograd/causes.py: the shim only
records facts (exception type, message, the frames it passed through).
"""

from __future__ import annotations

import json
import os
import traceback

import numpy as np

CHECKS_ENV = "ZP_PEER_CHECKS"


def current_test() -> str:
    """The pytest node id of the running test ('' outside pytest)."""
    current = os.environ.get("PYTEST_CURRENT_TEST", "")
    return current.rsplit(" (", 1)[0]


def _short_path(filename: str) -> str:
    """A frame's file, shortened so that records from different checkouts group together."""
    if filename.startswith("<"):
        return filename
    marker = os.sep + "zygote_py" + os.sep
    if marker in filename:
        return "zygote_py/" + filename.rsplit(marker, 1)[1].replace(os.sep, "/")
    shim_marker = os.sep + "shim" + os.sep + "autograd" + os.sep
    if shim_marker in filename:
        return "shim:autograd/" + filename.rsplit(shim_marker, 1)[1].replace(os.sep, "/")
    return os.path.basename(filename)


def describe_exception(exc: BaseException) -> dict:
    """The facts about an exception that causes.py needs: type, message, frames."""
    message = getattr(exc, "message", None)
    if not isinstance(message, str):
        message = str(exc)
    frames = [[_short_path(f.filename), f.name, f.lineno]
              for f in traceback.extract_tb(exc.__traceback__)]
    loc = getattr(exc, "loc", None)  # a ZygoteError's place in the differentiated source
    return {
        "loc": _short_path(loc.filename) if getattr(loc, "filename", None) else None,
        "type": type(exc).__name__,
        "zygote_error": any(c.__name__ == "ZygoteError" for c in type(exc).__mro__),
        "check_failure": bool(getattr(exc, "zp_check_failure", False)),
        "message": message[:600],
        "hint": str(getattr(exc, "hint", None) or "")[:300],
        "frames": frames[-60:],
    }


def describe_value(x) -> str:
    """A short description of an argument: 'float', 'complex', 'f8(3, 2)', 'tuple(float, c16(2,))'."""
    if isinstance(x, (tuple, list)):
        return f"{type(x).__name__}({', '.join(describe_value(v) for v in x)})"
    if isinstance(x, dict):
        return "dict(" + ", ".join(f"{k}: {describe_value(v)}" for k, v in x.items()) + ")"
    if isinstance(x, np.ndarray):
        return f"{x.dtype.str[1:]}{x.shape}"
    return type(x).__name__


def is_complex(x) -> bool:
    """Whether any leaf of x is complex."""
    if isinstance(x, (tuple, list)):
        return any(is_complex(v) for v in x)
    if isinstance(x, dict):
        return any(is_complex(v) for v in x.values())
    return np.iscomplexobj(x)


def record_check(entry: dict) -> None:
    """Append one check's record to the file named by ZP_PEER_CHECKS (if set)."""
    path = os.environ.get(CHECKS_ENV)
    if not path:
        return
    entry = {"test": current_test(), **entry}
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps(entry, default=str) + "\n")
