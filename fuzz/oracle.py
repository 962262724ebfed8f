"""Run one program and classify what zygote_py did with it.

Outcomes:
  ok              value and gradient agree with plain Python and finite differences
  refused         zygote_py raised a ZygoteError (allowed; counted), but not an
                  InternalError, which is zygote_py reporting a defect of its own
  wrong_gradient  a gradient that disagrees with finite differences, or has the
                  wrong type / shape / structure (the one unacceptable outcome)
  wrong_primal    the value zp.withgradient returns differs from plain Python's,
                  or differentiating modified the arguments
  internal_error  any other exception out of zygote_py (an InternalError included),
                  or a time-out (a defect)
and two that say the program itself is unusable and is skipped:
  invalid         plain Python raised, returned a non-finite or non-scalar value,
                  or wrote into its arguments
  unstable        finite differences are not trustworthy at this point: central
                  differences with two step sizes disagree, or the one-sided
                  differences do (a kink or a branch threshold within reach)

Finite differences are central, in float64, one per float of every argument
(floats, array elements, inside tuples, lists, dicts and objects).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import os
import signal
import sys
import threading
import traceback

import numpy as np

import zygote_py as zp
from zygote_py.errors import InternalError

from .forward_oracle import check_forward
from .loading import load_module, normalise
from .outcome import (  # noqa: F401 -- re-exported: the kinds are part of the oracle's interface
    FAILURES,
    INTERNAL,
    INVALID,
    OK,
    REFUSED,
    SKIPPED,
    UNSTABLE,
    WRONG_GRADIENT,
    WRONG_PRIMAL,
    FuzzTimeout,
    Outcome,
)
from .slots import (  # noqa: F401 -- re-exported for tests and tools
    ATOL,
    RTOL,
    finite_differences,
    float_slots,
    get_at,
    gradient_at,
    replace_at,
    same_values,
    scalar_value,
    structure_error,
)

PRIMAL_RTOL = 1e-9
NEIGHBOUR_STEP = 1e-3  # relative: well past finite differences' own steps
MAX_VALUE = 1e6

def error_site(exc: BaseException) -> str:
    """Innermost zygote_py frame of a traceback ('generated code' if the
    exception came from compiled adjoint code)."""
    frames = traceback.extract_tb(exc.__traceback__)
    marker = os.sep + "zygote_py" + os.sep
    for fr in reversed(frames):
        if fr.filename.startswith("<zygote_py"):
            return "generated code"
        if marker in fr.filename:
            return f"{fr.filename.split(marker)[-1]}:{fr.name}"
    return "outside zygote_py"


# --------------------------------------------------------------------------- classification


def _alarm(seconds: float):
    if seconds and threading.current_thread() is threading.main_thread():

        def on_alarm(signum, frame):
            raise FuzzTimeout(f"no answer within {seconds} s")

        old = signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        return old
    return None


def _disarm(old) -> None:
    if old is not None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def classify_function(f, args: tuple, timeout: float = 30.0, forward: bool = True) -> Outcome:
    """The outcome of differentiating f at args (see the module docstring); with
    `forward`, a right gradient is followed by forward_oracle.py's jvp and Hessian checks."""
    old = _alarm(timeout)
    try:
        with np.errstate(all="ignore"):
            return _classify(f, args, forward)
    except FuzzTimeout as exc:
        return Outcome(INTERNAL, str(exc), "internal_error: time-out")
    finally:
        _disarm(old)


def _classify(f, args: tuple, forward: bool = True) -> Outcome:
    pristine = copy.deepcopy(args)
    try:
        out = f(*copy.deepcopy(args))
        y0 = scalar_value(out)
        probe = copy.deepcopy(args)
        f(*probe)
    except Exception as exc:  # noqa: BLE001 -- the program itself is broken
        return Outcome(INVALID, f"{type(exc).__name__}: {exc}")
    except FuzzTimeout:
        return Outcome(INVALID, "plain Python does not finish")
    if not math.isfinite(y0) or abs(y0) > MAX_VALUE:
        return Outcome(INVALID, f"value {y0}")
    if np.asarray(out).dtype == np.float16:
        # (`x + np.sin(x > 1)`: NumPy computes a bool's sine in float16, and a Python float
        # added to a float16 stays one): the value moves in steps of about 1e-3, which
        # central differences at 1e-6 see as flat, so they cannot judge the derivative
        return Outcome(UNSTABLE, "the value is a float16, whose rounding steps finite "
                       "differences cannot see past")
    if not same_values(probe, pristine):
        return Outcome(INVALID, "the program writes into its arguments")

    work = copy.deepcopy(args)
    try:
        grads = zp.gradient(f, *work)
        value, grads_w = zp.withgradient(f, *work)
    except zp.ZygoteError as exc:
        kind = type(exc).__name__
        if isinstance(exc, InternalError):  # zygote_py's own "this is a defect"
            return Outcome(INTERNAL, f"{kind}: {exc}", f"{kind}: {normalise(str(exc))}")
        return Outcome(REFUSED, f"{kind}: {exc}", f"{kind}: {normalise(str(exc))}")
    except FuzzTimeout:
        raise
    except BaseException as exc:  # anything else is a defect
        if isinstance(exc, KeyboardInterrupt):
            raise
        kind = type(exc).__name__
        detail = "".join(traceback.format_exception(exc)[-6:])
        return Outcome(INTERNAL, detail, f"{kind}: {normalise(str(exc))} @ {error_site(exc)}")
    if not same_values(work, pristine):
        return Outcome(WRONG_PRIMAL, "differentiating modified the arguments", "wrong_primal: args")
    try:
        got = scalar_value(value)
    except TypeError as exc:
        return Outcome(WRONG_PRIMAL, str(exc), "wrong_primal: type")
    if not abs(got - y0) <= PRIMAL_RTOL * max(1.0, abs(y0)):
        return Outcome(
            WRONG_PRIMAL, f"withgradient value {got!r}, plain Python {y0!r}", "wrong_primal: value"
        )

    fd = finite_differences(f, args, y0)
    if isinstance(fd, Outcome):
        return fd
    for label, g in (("gradient", grads), ("withgradient", grads_w)):
        if not isinstance(g, tuple) or len(g) != len(args):
            return Outcome(WRONG_GRADIENT, f"{label} returned {g!r}", "wrong_gradient: arity")
        for i, (gi, arg) in enumerate(zip(g, args)):
            err = structure_error(gi, arg, f"{label} arg{i}")
            if err:
                return Outcome(WRONG_GRADIENT, err, "wrong_gradient: structure")
    scale = max([1.0, abs(y0)] + [abs(v) for v in fd.values()])
    for label, g in (("gradient", grads), ("withgradient", grads_w)):
        for (i, path), want in fd.items():
            have = gradient_at(g[i], path)
            if not abs(have - want) <= RTOL * abs(want) + ATOL * scale:
                where = "".join(f"[{k!r}]" for _, k in path)
                if _quantised(f, args, i, path, have, want):
                    return Outcome(UNSTABLE, f"arg{i}{where}: the value moves in steps wider "
                                   "than finite differences' own (a low-precision "
                                   "intermediate, such as NumPy's float16 sine of a bool): "
                                   "at their step they miss its part of the slope, which "
                                   "wider spans show to be the gradient's")
                if _only_at_the_point(f, args, i, path):
                    return Outcome(UNSTABLE, f"arg{i}{where}: the gradient differs from finite "
                                   "differences at this point only (a tie or a branch "
                                   "threshold exactly there)")
                return Outcome(
                    WRONG_GRADIENT,
                    f"{label} arg{i}{where}: zygote_py {have!r}, finite differences {want!r}",
                    "wrong_gradient: value",
                )
    if not forward:
        return Outcome(OK)
    failure, notes = check_forward(f, args, fd, y0, copy.deepcopy)
    if failure is not None:
        return dataclasses.replace(failure, forward=notes)
    return Outcome(OK, forward=notes)


QUANTISED_SPANS = (2e-2, 5e-2)  # relative: wide enough to span many float16 rounding steps


def _quantised(f, args: tuple, i: int, path: tuple, have: float, want: float = 0.0) -> bool:
    """Whether the gradient `have`, where finite differences see `want`, is the slope the
    value follows over wider spans: the least-squares slope of 21 values across each of
    QUANTISED_SPANS agrees with the gradient (to 5%) and not with finite differences.  A
    value computed in float16 somewhere (`np.sin(b)` of a bool b is float16, and
    `2.0 + np.float16(0)` stays one under NumPy 2) moves in rounding steps, flat at finite
    differences' step: they see 0, or only the slope of the rest of the value when a
    float16 part is added to a float64 one (fuzz seed 20261422, program 700).  A program
    whose value is truly constant there is flat over the spans too, so a nonzero gradient
    of it keeps its verdict.  Samples where the value is not finite (a span that reaches a
    division by `np.sin(False)`) are left out of the fit; at least half must remain."""
    x = float(get_at(args[i], path))
    try:
        for span in QUANTISED_SPANS:
            offsets = np.linspace(-span, span, 21) * max(1.0, abs(x))
            with np.errstate(all="ignore"):
                values = np.array([scalar_value(f(*copy.deepcopy(
                    args[:i] + (replace_at(args[i], path, x + d),) + args[i + 1:])))
                    for d in offsets])
            finite = np.isfinite(values)
            if finite.sum() < 11:
                return False
            slope = float(np.polyfit(offsets[finite], values[finite], 1)[0])
            if slope == 0.0 or not abs(slope - have) <= 0.05 * abs(slope) \
                    or abs(slope - want) <= 0.05 * abs(slope):
                return False
    except Exception:  # noqa: BLE001 -- anything odd a step away keeps the verdict
        return False
    return True


def _only_at_the_point(f, args: tuple, i: int, path: tuple) -> bool:
    """Whether a gradient entry that disagrees with finite differences at the point agrees
    with them a step away on both sides along that coordinate.

    Finite differences cannot see a derivative that holds at a single point: a tie at
    np.maximum's kink (the derivative of one side, by convention), or a branch taken only
    at an exact value (`np.sum(b) or 0.5` where the sum is exactly 0.0). Those points are
    where the program's derivative is a convention, not a defect; a real defect persists
    a step away. Each neighbour is checked with the same oracle, so a wrong gradient or
    an error there keeps the original verdict."""
    x = float(get_at(args[i], path))
    for sign in (1, -1):
        moved = args[:i] + (replace_at(args[i], path, x + sign * NEIGHBOUR_STEP * max(1.0, abs(x))),) \
            + args[i + 1:]
        try:
            y = scalar_value(f(*copy.deepcopy(moved)))
            fd = finite_differences(f, moved, y)
            if isinstance(fd, Outcome) or (i, path) not in fd:
                return False
            g = zp.gradient(f, *copy.deepcopy(moved))
            have, want = gradient_at(g[i], path), fd[i, path]
        except Exception:  # noqa: BLE001 -- anything odd a step away keeps the verdict
            return False
        scale = max([1.0, abs(y)] + [abs(v) for v in fd.values()])
        if not abs(have - want) <= RTOL * abs(want) + ATOL * scale:
            return False
    return True


def classify_source(
    source: str, directory: str, timeout: float = 30.0, stem: str = "prog", forward: bool = True
) -> Outcome:
    """Import the program text and classify its `f` at `make_args()` (`forward`: with the
    jvp and Hessian checks of forward_oracle.py)."""
    try:
        module = load_module(source, directory, stem)
        f, args = module.f, tuple(module.make_args())
    except Exception as exc:  # noqa: BLE001 -- a program that cannot even import
        return Outcome(INVALID, f"cannot import: {type(exc).__name__}: {exc}")
    try:
        return classify_function(f, args, timeout, forward)
    finally:
        sys.modules.pop(module.__name__, None)


def assert_correct(f, args: tuple, timeout: float = 60.0, forward: bool = True) -> None:
    """For regression tests: differentiating f at args gives the plain-Python
    value and the finite-difference gradient (refusing is not enough: the
    program uses only constructs the docs list as supported); with `forward`, a
    jvp and perhaps a Hessian that are right or refused (forward_oracle.py)."""
    outcome = classify_function(f, tuple(args), timeout, forward)
    assert outcome.kind == OK, f"{outcome.kind}: {outcome.signature}\n{outcome.detail}"
