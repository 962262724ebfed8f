"""Errors inside a library function the compiler descended into, told at the user's call.

A call of a Python function without a rule is differentiated through its
source, library functions too (scipy.special.logsumexp, statistics.fmean).
When that source holds something the compiler cannot differentiate, the user
did not write it and cannot change it: the error names the user's call, the
callee by its public name, and how to add a rule (@zp.adjoint), and keeps what
was found in the library as the detail.  Used where callees are compiled:
statically by the driver (compiler.py) and at run time by dispatch.

Library code is decided from where the callee's code lives: the interpreter's
standard library, site-packages, or zygote_py itself.
"""

from __future__ import annotations

import functools
import os
import sysconfig

from ..errors import NoDerivativeRule, SourceLoc, ZygoteError


_PACKAGE = os.path.realpath(os.path.dirname(os.path.dirname(__file__)))  # zygote_py's folder


def _library_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    roots = {os.path.realpath(paths[key]) for key in ("stdlib", "platstdlib", "purelib", "platlib")
             if key in paths}
    roots.add(_PACKAGE)  # zygote_py itself
    return tuple(sorted(roots))


_ROOTS = _library_roots()


def is_library_function(fn) -> bool:
    """Whether fn's code lives in the standard library, site-packages or zygote_py."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    return is_library_file(code.co_filename)


# Per file name: os.path.realpath makes a system call per path component, and a build
# asks once per call it lowers.  A code object's file name never changes, so the answer
# cannot go stale except by moving a directory of a running program, which is not done.
@functools.lru_cache(maxsize=4096)
def is_library_file(filename: str) -> bool:
    """Whether filename is in the standard library, site-packages or zygote_py."""
    path = os.path.realpath(filename)
    return any(path == root or path.startswith(root + os.sep) for root in _ROOTS)


def shown_path(filename: str) -> str:
    """A file of zygote_py's own from the package's folder (`zygote_py/rules/...`, the same in
    every checkout), any other file whole."""
    path = os.path.realpath(filename)
    if path.startswith(_PACKAGE + os.sep):
        return os.path.relpath(path, os.path.dirname(_PACKAGE))
    return filename


def restated_at_call(err: ZygoteError, callee, name: str, call_loc: SourceLoc | None) -> ZygoteError:
    """err, raised while compiling callee (publicly `name`), restated at the user's call.

    An error from a callee the user wrote (their own helper) is returned
    unchanged: its location in the user's code is the useful one.
    """
    if call_loc is None or not is_library_function(callee):
        return err
    if name.startswith(("zygote_py.api.", "zygote_py.forward_api.")):  # zp.pullback & co. nested
        public = name.rsplit(".", 1)[-1]
        return NoDerivativeRule(
            f"zp.{public} is called inside a function being differentiated: nested "
            "differentiation (a derivative of a derivative) is not supported yet", call_loc,
            f"differentiate the inner function by hand, or give it a rule with @zp.adjoint; "
            f"zp.{public} works on functions that are not themselves being differentiated")
    # one library function calling another: keep what was found at the bottom
    detail = getattr(err, "library_detail", None) or (
        f"{err.message} at {err.loc}" if err.loc is not None else err.message)
    restated = NoDerivativeRule(
        f"no derivative rule for {name}, and its source cannot be differentiated ({detail})",
        call_loc,
        f"register a rule with @zp.adjoint({name.rsplit('.', 1)[-1]}) (see docs/rules.md), or wrap "
        "the argument in zp.stop_gradient(...) if no derivative is wanted through it")
    restated.library_detail = detail
    return restated
