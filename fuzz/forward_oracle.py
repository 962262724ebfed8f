"""Forward mode and second derivatives of a program reverse mode already got right.

After the oracle (oracle.py) has accepted a program's gradient, `check_forward`
asks two more questions of the same program at the same point:

- `zp.jvp(f, args, tangents)` with a random tangent: its directional derivative
  must equal the finite differences' gradient dotted with the tangent (no new
  evaluations of f), and its value f's;
- on about a third of the programs (those with a float or a float array of at most
  6 entries among their arguments), `zp.hessian` of f in that argument (the
  others held) must match central differences of zygote_py's gradient, which
  the oracle has just checked, with two step sizes (skipped where they disagree:
  a kink of the gradient within reach).

Both may refuse (a `ZygoteError`, not an `InternalError`: counted, allowed).  A wrong number is a
`wrong_gradient` outcome with the signature `wrong_jvp: ...` / `wrong_hessian: ...`;
any other exception an `internal_error`.  The record of what was checked goes
into `Outcome.forward` for the runner's table.
"""

from __future__ import annotations

import traceback

import numpy as np

import zygote_py as zp
from zygote_py.errors import InternalError

from .loading import load_module, normalise
from .outcome import INTERNAL, WRONG_GRADIENT, Outcome
from .slots import ATOL, RTOL, get_at, scalar_value

HESSIAN_MAX_SIZE = 6
HESSIAN_STEPS = (1e-4, 1e-5)
HESSIAN_RTOL, HESSIAN_ATOL = 1e-4, 1e-5


class _NoTangent(Exception):
    """An argument whose tangent this oracle does not build (an object)."""


def tangent_like(value, rng):
    """A random tangent with value's structure (None for ints, bools and strings)."""
    if isinstance(value, (bool, int, str, np.integer)):
        return None
    if isinstance(value, float):
        return float(rng.uniform(-1.0, 1.0))
    if isinstance(value, np.ndarray):
        if value.dtype.kind != "f":
            return None
        return rng.uniform(-1.0, 1.0, value.shape)
    if type(value) in (list, tuple):
        items = [tangent_like(v, rng) for v in value]
        return items if type(value) is list else tuple(items)
    if type(value) is dict:
        return {k: tangent_like(v, rng) for k, v in value.items()}
    raise _NoTangent(type(value).__name__)


def _slot_of(tangent, path) -> float:
    try:
        got = get_at(tangent, path)
    except (KeyError, IndexError, TypeError, AttributeError):
        return 0.0
    return 0.0 if got is None else float(got)


def _only(f, args: tuple, i: int):
    """f as a function of its i-th argument, the others held: f itself for one argument,
    else a function in a module of its own that calls f with the others as module
    globals (`f(H0, x, H2)`), which zygote_py resolves when it compiles (a closure
    calling f(*held) would be a call resolved while running, which forward mode over a
    gradient does not follow)."""
    if len(args) == 1:
        return f

    held = ", ".join("x" if k == i else f"H{k}" for k in range(len(args)))
    source = (f"import sys\n\nf = sys.modules[{f.__module__!r}].f\n\n\n"
              f"def only(x):\n    return f({held})\n")
    module = load_module(source, _wrapper_dir(), "only")
    for k, value in enumerate(args):
        if k != i:
            setattr(module, f"H{k}", value)
    return module.only


_WRAPPER_DIR: list[str] = []


def _wrapper_dir() -> str:
    if not _WRAPPER_DIR:
        import tempfile

        _WRAPPER_DIR.append(tempfile.mkdtemp(prefix="zpfuzz-only-"))
    return _WRAPPER_DIR[0]


def _failure(exc: BaseException, what: str) -> Outcome | None:
    """None for a refusal (allowed), else the internal error (an InternalError too: a
    defect zygote_py reports of itself, whatever its message)."""
    if isinstance(exc, zp.ZygoteError) and not isinstance(exc, InternalError):
        return None
    kind = type(exc).__name__
    detail = "".join(traceback.format_exception(exc)[-6:])
    first = (str(exc).strip().splitlines() or [""])[0][:120]
    return Outcome(INTERNAL, f"{what}: {detail}", f"{kind}: {what}: {first}")


def _refusal(what: str, exc: BaseException) -> str:

    return f"refusal: {what}: {type(exc).__name__}: {normalise(str(exc))}"


def check_jvp(f, args: tuple, fd: dict, y0: float, copy_args) -> tuple[Outcome | None, str | tuple]:
    rng = np.random.default_rng(len(fd) * 7919 + 11)
    try:
        tangents = tuple(tangent_like(a, rng) for a in args)
    except _NoTangent:
        return None, "jvp skipped"
    want = sum(d * _slot_of(tangents[i], path) for (i, path), d in fd.items())
    size = sum(abs(d * _slot_of(tangents[i], path)) for (i, path), d in fd.items())
    try:
        y, y_dot = zp.jvp(f, copy_args(args), tangents)
    except Exception as exc:  # noqa: BLE001 -- classified
        failure = _failure(exc, "jvp")
        if failure is None:
            return None, ("jvp refused", _refusal("jvp", exc))
        return failure, "jvp failed"
    try:
        got, value = scalar_value(0.0 if y_dot is None else y_dot), scalar_value(y)
    except TypeError as exc:
        return Outcome(WRONG_GRADIENT, f"jvp returned {y!r}, {y_dot!r}: {exc}", "wrong_jvp: type"), "jvp failed"
    if not abs(value - y0) <= 1e-9 * max(1.0, abs(y0)):
        return Outcome(WRONG_GRADIENT, f"jvp value {value!r}, plain Python {y0!r}", "wrong_jvp: primal"), \
            "jvp failed"
    scale = max([1.0, abs(y0)] + [abs(v) for v in fd.values()])
    if not abs(got - want) <= RTOL * size + ATOL * scale * max(1, len(fd)):
        return Outcome(WRONG_GRADIENT, f"jvp: zygote_py {got!r}, finite differences . tangent {want!r}",
                       "wrong_jvp: value"), "jvp failed"
    return None, "jvp ok"


def _hessian_argument(args: tuple) -> int | None:
    for i, a in enumerate(args):
        if isinstance(a, float) and not isinstance(a, bool):
            return i
        if isinstance(a, np.ndarray) and a.dtype.kind == "f" and 0 < a.size <= HESSIAN_MAX_SIZE:
            return i
    return None


def check_hessian(f, args: tuple, copy_args) -> tuple[Outcome | None, str | tuple]:
    i = _hessian_argument(args)
    if i is None:
        return None, "hessian skipped"
    g = _only(f, copy_args(args), i)
    x = args[i]
    try:
        hess = np.asarray(zp.hessian(g, copy_args((x,))[0]), dtype=float)
    except Exception as exc:  # noqa: BLE001 -- classified
        failure = _failure(exc, "hessian")
        if failure is None:
            return None, ("hessian refused", _refusal("hessian", exc))
        return failure, "hessian failed"
    flat_x = np.atleast_1d(np.asarray(x, dtype=float)).ravel()
    n = flat_x.size
    hess = hess.reshape(n, n)

    def grad_at(values):
        point = float(values[0]) if isinstance(x, float) else values.reshape(np.shape(x))
        return np.atleast_1d(np.asarray(zp.gradient(g, point)[0], dtype=float)).ravel()

    columns = {}
    try:
        for step in HESSIAN_STEPS:
            cols = []
            for j in range(n):
                h = step * max(1.0, abs(flat_x[j]))
                up, down = flat_x.copy(), flat_x.copy()
                up[j] += h
                down[j] -= h
                cols.append((grad_at(up) - grad_at(down)) / (2 * h))
            columns[step] = np.stack(cols, axis=1)
    except Exception:  # noqa: BLE001 -- a step away the program fails or is refused: no check
        return None, "hessian skipped"
    big, small = columns[HESSIAN_STEPS[0]], columns[HESSIAN_STEPS[1]]
    scale = max(1.0, float(np.max(np.abs(big))))
    if not np.all(np.isfinite(big)) or np.any(np.abs(big - small) > 1e-3 * scale):
        return None, "hessian skipped"  # the gradient has a kink within reach
    if not np.all(np.abs(hess - small) <= HESSIAN_RTOL * np.abs(small) + HESSIAN_ATOL * scale):
        k = int(np.argmax(np.abs(hess - small)))
        return Outcome(WRONG_GRADIENT, f"hessian arg{i} entry {divmod(k, n)}: zygote_py "
                       f"{hess.ravel()[k]!r}, differences of the gradient {small.ravel()[k]!r}",
                       "wrong_hessian: value"), "hessian failed"
    return None, "hessian ok"


def check_forward(f, args: tuple, fd: dict, y0: float, copy_args) -> tuple[Outcome | None, tuple]:
    """(a failure or None, what was checked: e.g. ('jvp ok', 'hessian refused'))."""
    failure, jvp_notes = check_jvp(f, args, fd, y0, copy_args)
    jvp_notes = (jvp_notes,) if isinstance(jvp_notes, str) else jvp_notes
    if failure is not None:
        return failure, jvp_notes
    if int(abs(y0) * 1e6) % 3 != 0:  # a third of the programs: hessians cost n passes
        return None, jvp_notes
    failure, hess_notes = check_hessian(f, args, copy_args)
    return failure, jvp_notes + ((hess_notes,) if isinstance(hess_notes, str) else hess_notes)
