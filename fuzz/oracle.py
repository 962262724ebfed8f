"""Run one program and classify what zygote_py did with it.

Outcomes:
  ok              value and gradient agree with plain Python and finite differences
  refused         zygote_py raised a ZygoteError (allowed; counted)
  wrong_gradient  a gradient that disagrees with finite differences, or has the
                  wrong type / shape / structure (the one unacceptable outcome)
  wrong_primal    the value zp.withgradient returns differs from plain Python's,
                  or differentiating modified the arguments
  internal_error  any other exception out of zygote_py, or a time-out (a defect)
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
import importlib.util
import itertools
import math
import os
import re
import signal
import sys
import threading
import traceback
import types
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

import zygote_py as zp

OK, REFUSED, WRONG_GRADIENT, WRONG_PRIMAL, INTERNAL = (
    "ok",
    "refused",
    "wrong_gradient",
    "wrong_primal",
    "internal_error",
)
INVALID, UNSTABLE = "invalid", "unstable"
FAILURES = (WRONG_GRADIENT, WRONG_PRIMAL, INTERNAL)
SKIPPED = (INVALID, UNSTABLE)

SMALL_STEP, LARGE_STEP = 1e-6, 1e-4  # relative to max(1, |x|)
RTOL = 1e-5
ATOL = 1e-6  # scaled by max(1, |f(x)|, largest gradient entry)
KINK_TOL = 1e-4
PRIMAL_RTOL = 1e-9
MAX_VALUE = 1e6

_counter = itertools.count()
_NOT_OBJECTS = (
    type,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.ModuleType,
    np.ufunc,
)


def is_object(value: Any) -> bool:
    """A user object whose instance attributes are differentiated."""
    return hasattr(value, "__dict__") and not isinstance(value, _NOT_OBJECTS)


@dataclass(frozen=True)
class Outcome:
    kind: str
    detail: str = ""
    signature: str = ""  # groups outcomes that are (probably) the same defect

    @property
    def failed(self) -> bool:
        return self.kind in FAILURES


class FuzzTimeout(BaseException):
    """Raised by the alarm; a BaseException so no `except Exception` swallows it."""


# --------------------------------------------------------------------------- loading


def load_module(source: str, directory: str, stem: str = "prog"):
    """Write `source` to a fresh file (a new name each time: linecache and
    zygote_py's cache key on file names) and import it."""
    name = f"_zpfuzz_{stem}_{os.getpid()}_{next(_counter)}"
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as fh:
        fh.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    with warnings.catch_warnings():  # shrunk candidates may be odd (`0.5[1]`)
        warnings.simplefilter("ignore")
        spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------- argument slots


def float_slots(value: Any, path: tuple = ()) -> list[tuple]:
    """Paths to every differentiable float inside `value`."""
    if isinstance(value, bool):
        return []
    if isinstance(value, float):
        return [path]
    if isinstance(value, np.ndarray):
        if value.dtype.kind != "f":
            return []
        return [path + (("idx", i),) for i in np.ndindex(value.shape)]
    if type(value) in (tuple, list):
        return [p for i, v in enumerate(value) for p in float_slots(v, path + (("item", i),))]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in float_slots(v, path + (("key", k),))]
    if is_object(value):
        return [p for k, v in vars(value).items() for p in float_slots(v, path + (("attr", k),))]
    return []


def get_at(value: Any, path: tuple) -> Any:
    for step, key in path:
        value = getattr(value, key) if step == "attr" else value[key]
    return value


def replace_at(value: Any, path: tuple, new: float) -> Any:
    """A copy of `value` with the float at `path` replaced (the rest shared)."""
    if not path:
        return new
    (step, key), rest = path[0], path[1:]
    if step == "idx":
        arr = value.copy()
        arr[key] = new
        return arr
    if step == "attr":
        clone = copy.copy(value)
        setattr(clone, key, replace_at(getattr(value, key), rest, new))
        return clone
    if step == "key":
        return {**value, key: replace_at(value[key], rest, new)}
    items = list(value)
    items[key] = replace_at(value[key], rest, new)
    return type(value)(items)


def structure_error(got: Any, arg: Any, where: str) -> str | None:
    """Why `got` is not shaped like a gradient of `arg` (None: it is)."""
    if got is None:
        return None
    if isinstance(arg, bool) or not float_slots(arg) and not isinstance(arg, (tuple, list, dict)):
        return f"{where}: an inactive {type(arg).__name__} got gradient {got!r}"
    if isinstance(arg, float):
        ok = isinstance(got, float) and not isinstance(got, bool)
        return None if ok else f"{where}: a float got a {type(got).__name__}"
    if isinstance(arg, np.ndarray):
        if not isinstance(got, np.ndarray) or got.shape != arg.shape or got.dtype.kind != "f":
            return f"{where}: a {arg.shape} array got {type(got).__name__} {np.shape(got)}"
        return None
    if type(arg) in (tuple, list):
        if type(got) is not type(arg) or len(got) != len(arg):
            return f"{where}: a {type(arg).__name__} of {len(arg)} got {type(got).__name__}"
        for i, (g, a) in enumerate(zip(got, arg)):
            err = structure_error(g, a, f"{where}[{i}]")
            if err:
                return err
        return None
    fields = arg if isinstance(arg, dict) else vars(arg)
    if not isinstance(got, dict) or set(got) - set(fields):
        return f"{where}: expected a dict with keys among {sorted(map(str, fields))}, got {got!r}"
    for k, g in got.items():
        err = structure_error(g, fields[k], f"{where}[{k!r}]")
        if err:
            return err
    return None


def gradient_at(grad: Any, path: tuple) -> float:
    """The entry of a zygote_py gradient at an argument path (None/missing: 0)."""
    for step, key in path:
        if grad is None:
            return 0.0
        if step in ("attr", "key"):
            grad = grad.get(key)
        else:
            grad = grad[key]
    return 0.0 if grad is None else float(grad)


# --------------------------------------------------------------------------- evaluation


def scalar_value(out: Any) -> float:
    arr = np.asarray(out)
    if arr.shape != () or arr.dtype.kind not in "fiu":
        raise TypeError(f"not a real scalar: {out!r}")
    return float(arr)


def same_values(a: Any, b: Any) -> bool:
    """Deep equality of argument values (arrays by value, objects by vars)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)
    if type(a) in (tuple, list):
        return type(a) is type(b) and len(a) == len(b) and all(map(same_values, a, b))
    if isinstance(a, dict):
        return (
            isinstance(b, dict) and a.keys() == b.keys() and all(same_values(a[k], b[k]) for k in a)
        )
    if is_object(a):
        return same_values(vars(a), vars(b))
    return a == b


def finite_differences(f, args: tuple, y0: float):
    """{(arg index, path): derivative} or an Outcome saying why FD is unusable."""
    out = {}
    for i, arg in enumerate(args):
        for path in float_slots(arg):
            x = float(get_at(arg, path))
            values = {}
            for rel in (SMALL_STEP, LARGE_STEP):
                h = rel * max(1.0, abs(x))
                for sign in (1, -1):
                    moved = args[:i] + (replace_at(arg, path, x + sign * h),) + args[i + 1 :]
                    values[rel, sign] = (scalar_value(f(*copy.deepcopy(moved))), x + sign * h)
            c_small, c_large = (
                (values[rel, 1][0] - values[rel, -1][0]) / (values[rel, 1][1] - values[rel, -1][1])
                for rel in (SMALL_STEP, LARGE_STEP)
            )
            if not (math.isfinite(c_small) and math.isfinite(c_large)):
                return Outcome(UNSTABLE, f"non-finite difference at arg{i}{path}")
            scale = max(1.0, abs(y0), abs(c_small))
            if abs(c_small - c_large) > RTOL * abs(c_small) + ATOL * scale:
                return Outcome(UNSTABLE, f"steps disagree at arg{i}{path}: {c_small} vs {c_large}")
            (yp, xp), (ym, xm) = values[SMALL_STEP, 1], values[SMALL_STEP, -1]
            forward, backward = (yp - y0) / (xp - x), (y0 - ym) / (x - xm)
            if abs(forward - backward) > KINK_TOL * scale:
                return Outcome(UNSTABLE, f"kink at arg{i}{path}: {forward} vs {backward}")
            out[i, path] = c_small
    return out


# --------------------------------------------------------------------------- signatures

# names the generator makes up (v12, acc3, a0_x, ...) and the temp module names
_IDENT = re.compile(
    r"\b(?:(?:v|t|a|p|q|g|h|k|i|j|u|d|xs|vs|fs|acc|buf|row|layer|fn|hs)\d+"
    r"(?:_[xv])?|_?zpfuzz_\w+)\b"
)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")


def normalise(message: str) -> str:
    """An error message with the program's own names and numbers blanked out."""
    first = message.strip().splitlines()[0] if message.strip() else ""
    first = _IDENT.sub("<name>", first)
    first = re.sub(r"/\S+\.py", "<file>", first)
    return _NUMBER.sub("N", first)[:160]


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


def classify_function(f, args: tuple, timeout: float = 30.0) -> Outcome:
    """The outcome of differentiating f at args (see the module docstring)."""
    old = _alarm(timeout)
    try:
        with np.errstate(all="ignore"):
            return _classify(f, args)
    except FuzzTimeout as exc:
        return Outcome(INTERNAL, str(exc), "internal_error: time-out")
    finally:
        _disarm(old)


def _classify(f, args: tuple) -> Outcome:
    pristine = copy.deepcopy(args)
    try:
        y0 = scalar_value(f(*copy.deepcopy(args)))
        probe = copy.deepcopy(args)
        f(*probe)
    except Exception as exc:  # noqa: BLE001 -- the program itself is broken
        return Outcome(INVALID, f"{type(exc).__name__}: {exc}")
    except FuzzTimeout:
        return Outcome(INVALID, "plain Python does not finish")
    if not math.isfinite(y0) or abs(y0) > MAX_VALUE:
        return Outcome(INVALID, f"value {y0}")
    if not same_values(probe, pristine):
        return Outcome(INVALID, "the program writes into its arguments")

    work = copy.deepcopy(args)
    try:
        grads = zp.gradient(f, *work)
        value, grads_w = zp.withgradient(f, *work)
    except zp.ZygoteError as exc:
        kind = type(exc).__name__
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
                return Outcome(
                    WRONG_GRADIENT,
                    f"{label} arg{i}{where}: zygote_py {have!r}, finite differences {want!r}",
                    "wrong_gradient: value",
                )
    return Outcome(OK)


def classify_source(
    source: str, directory: str, timeout: float = 30.0, stem: str = "prog"
) -> Outcome:
    """Import the program text and classify its `f` at `make_args()`."""
    try:
        module = load_module(source, directory, stem)
        f, args = module.f, tuple(module.make_args())
    except Exception as exc:  # noqa: BLE001 -- a program that cannot even import
        return Outcome(INVALID, f"cannot import: {type(exc).__name__}: {exc}")
    try:
        return classify_function(f, args, timeout)
    finally:
        sys.modules.pop(module.__name__, None)


def assert_correct(f, args: tuple, timeout: float = 60.0) -> None:
    """For regression tests: differentiating f at args gives the plain-Python
    value and the finite-difference gradient (refusing is not enough: the
    program uses only constructs the docs list as supported)."""
    outcome = classify_function(f, tuple(args), timeout)
    assert outcome.kind == OK, f"{outcome.kind}: {outcome.signature}\n{outcome.detail}"
