"""Example arguments from a short spec, and `zygote-py check`'s comparison.

The spec (`--args`) lists one item per argument, separated by commas outside
brackets:

    3x4     a float64 array of shape (3, 4), uniform in [-1, 1)
    4       an array of shape (4,);  0d  a 0-d array
    3x4+    positive entries, uniform in [0.5, 1.5) (for log, sqrt, ...)
    scalar  a Python float in [-1, 1)  (also `float`; `scalar+` is positive)
    int:3   the int 3
    2.5  [1.0, 2.0]  true  null   literal JSON (a list becomes a float64 array)
    py:EXPR a Python expression, evaluated in the target's module (with np):
            py:Layer(np.ones((3, 4)), 0.5) builds an object of the user's class

Random values come from `numpy.random.default_rng(seed)`, in order.
"""

from __future__ import annotations

import json
import re

import numpy as np

_SHAPE = re.compile(r"^(0d|\d+(?:x\d+)*)(\+?)$")


class SpecError(ValueError):
    """A malformed --args spec."""


def _split(spec: str) -> list[str]:
    items, depth, current = [], 0, []
    for ch in spec:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            items.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    items.append("".join(current).strip())
    if depth != 0:
        raise SpecError(f"unbalanced brackets in {spec!r}")
    return items


def parse_spec(spec: str, seed: int = 0, namespace: dict | None = None) -> tuple:
    rng = np.random.default_rng(seed)
    out = []
    for item in _split(spec):
        if not item:
            raise SpecError(f"empty item in {spec!r}")
        out.append(_item(item, rng, namespace or {}))
    return tuple(out)


def _item(item: str, rng, namespace: dict):
    if item.startswith("py:"):
        # the user's own module is imported already, so evaluating an expression there adds no risk
        try:
            return eval(item[3:], {"np": np, **namespace})  # noqa: S307
        except Exception as err:
            raise SpecError(f"{item!r} raised {type(err).__name__}: {err}") from None
    low, high = -1.0, 1.0
    if item in ("scalar", "float", "scalar+", "float+"):
        if item.endswith("+"):
            low, high = 0.5, 1.5
        return float(rng.uniform(low, high))
    if item.startswith("int:"):
        try:
            return int(item[4:])
        except ValueError:
            raise SpecError(f"{item!r}: int: needs an integer, e.g. int:3") from None
    match = _SHAPE.match(item)
    if match:
        shape = () if match.group(1) == "0d" else tuple(int(n) for n in match.group(1).split("x"))
        if match.group(2):
            low, high = 0.5, 1.5
        return np.asarray(rng.uniform(low, high, size=shape), dtype=np.float64)
    try:
        value = json.loads(item)
    except json.JSONDecodeError:
        raise SpecError(f"{item!r} is not a shape (3x4), scalar, int:N or a JSON value") from None
    if isinstance(value, list):
        try:
            return np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise SpecError(f"{item!r}: a list must hold numbers (nested lists for more dimensions)") from None
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)  # `3` in JSON position is a number to differentiate at; int:3 is an int
    return value


def _scalar(y) -> float:
    return float(np.real(np.asarray(y)))


def gradient_errors(fn, args) -> tuple:
    """(f(*args), largest absolute error, largest relative error) of zp.gradient against central
    finite differences in float64, over every float argument and float array element."""
    from ..api import gradient

    args = _copies(args)
    y = fn(*_copies(args))  # each call gets its own arrays: fn may write into them
    grads = gradient(fn, *_copies(args))
    abs_err = rel_err = 0.0
    for i, (x, g) in enumerate(zip(args, grads)):
        if isinstance(x, float):
            fd = _central(fn, args, i, None)
            got = 0.0 if g is None else float(g)
            err = abs(got - fd)
            abs_err, rel_err = max(abs_err, err), max(rel_err, err / max(abs(fd), 1e-12))
        elif isinstance(x, np.ndarray) and x.dtype.kind == "f":
            got = np.zeros(x.shape) if g is None else np.asarray(g, dtype=np.float64)
            for index in np.ndindex(x.shape):
                fd = _central(fn, args, i, index)
                err = abs(float(got[index]) - fd)
                abs_err, rel_err = max(abs_err, err), max(rel_err, err / max(abs(fd), 1e-12))
    return y, abs_err, rel_err


def _copies(args) -> tuple:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def _central(fn, args, i, index) -> float:
    def at(delta):
        moved = list(_copies(args))
        if index is None:
            moved[i] = args[i] + delta
        else:
            moved[i] = args[i].copy()
            moved[i][index] += delta
        return _scalar(fn(*moved))

    base = args[i] if index is None else args[i][index]
    h = 1e-6 * max(1.0, abs(float(base)))
    return (at(h) - at(-h)) / (2 * h)
