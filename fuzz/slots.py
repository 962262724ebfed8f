"""A program's arguments as slots of floats, and central differences over them.

A slot is a path to one float inside the arguments: `("idx", (i, j))` into an
array, `("item", k)` into a tuple or list, `("key", k)` into a dict,
`("attr", name)` into a user object.  `finite_differences` perturbs each slot
with two relative steps and also compares the one-sided differences, so a
kink or a branch threshold within reach makes the estimate "unstable"
instead of wrong.
"""

from __future__ import annotations

import copy
import math
import types
from typing import Any

import numpy as np

from .outcome import UNSTABLE, Outcome

SMALL_STEP, LARGE_STEP = 1e-6, 1e-4  # relative to max(1, |x|)
RTOL = 1e-5
ATOL = 1e-6  # scaled by max(1, |f(x)|, largest gradient entry)
KINK_TOL = 1e-4


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
    if is_explicit_int(arg) and not where.endswith("]"):
        ok = isinstance(got, float) and not isinstance(got, bool)
        return None if ok else f"{where}: an int argument got a {type(got).__name__}"
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


def is_explicit_int(value: Any) -> bool:
    """An int passed as an argument itself: zygote_py differentiates it as a real."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def finite_differences(f, args: tuple, y0: float):
    """{(arg index, path): derivative} or an Outcome saying why FD is unusable.

    An explicit int argument is perturbed as a float; where the program cannot
    run on a float there (range(n), an index), it has no checkable derivative
    and is left out."""
    out = {}
    for i, arg in enumerate(args):
        for path in float_slots(arg) or ([()] if is_explicit_int(arg) else []):
            x = float(get_at(arg, path))
            values = {}
            try:
                for rel in (SMALL_STEP, LARGE_STEP):
                    h = rel * max(1.0, abs(x))
                    for sign in (1, -1):
                        moved = args[:i] + (replace_at(arg, path, x + sign * h),) + args[i + 1 :]
                        values[rel, sign] = (scalar_value(f(*copy.deepcopy(moved))), x + sign * h)
            except Exception as exc:  # noqa: BLE001 -- any error of the program a step away means no differences there
                if path == () and is_explicit_int(arg):
                    continue  # the int is used as an int: no derivative to check
                # the program fails a step away (a matrix singular there): no differences
                return Outcome(UNSTABLE, f"{type(exc).__name__} a step away at arg{i}{path}")
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
