"""Central finite differences over structured arguments, and gradient comparison.

`numerical_gradient(f, args)` returns, for each positional argument, what
`zp.gradient` should return for it, computed numerically in float64:

    float                  -> float
    float ndarray          -> ndarray of the same shape (one difference per element)
    complex, complex array -> the same, from two differences per element (the real and
                              the imaginary direction), combined as dL/dx - i dL/dy: the
                              covector convention of autograd and JAX (docs/complex.md)
    tuple / list           -> tuple / list, element by element
    dict                   -> dict, key by key
    user object (__dict__) -> dict: attribute name -> gradient
    int, integer ndarray   -> float, float64 ndarray: an argument passed explicitly is
                              differentiated as a real (perturbed as a float)
    anything else (bool, str, None, bool arrays, callables, and ints or integer
    arrays inside containers)
                           -> None (never differentiated)

`assert_gradient_matches` compares a gradient computed by zygote_py with such a
numerical one, checking types and shapes as well as numbers.  `None` from
zygote_py means zero and is accepted wherever the numerical gradient is zero.

This module imports nothing from zygote_py.
"""

from __future__ import annotations

import copy
import types
from collections.abc import Callable
from typing import Any

import numpy as np

REL_STEP = 1e-6  # step = REL_STEP * max(1, |x|)
RTOL = 1e-5
ATOL = 1e-7  # scaled by max(1, |f(x)|): rounding error of the difference grows with |f|

SKIP = object()  # "no numerical gradient for this argument" (Case.wrt left it out)

_CALLABLES = (
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.ModuleType,
    type,
    np.ufunc,
)


def to_scalar(out: Any) -> float:
    """The function's output as a Python float; it must be a real scalar."""
    arr = np.asarray(out)
    if arr.shape != () or not np.isrealobj(arr) or arr.dtype.kind not in "fiu":
        raise TypeError(f"corpus function must return a real scalar, got {out!r}")
    return float(arr)


def kind_of(value: Any) -> str:
    """How a value is differentiated: 'float', 'array', 'tuple', 'list', 'dict',
    'object', or 'inactive'."""
    if isinstance(value, bool):
        return "inactive"
    if isinstance(value, float):
        return "float"
    if isinstance(value, (complex, np.complexfloating)):
        return "complex"
    if isinstance(value, np.ndarray):
        if np.issubdtype(value.dtype, np.complexfloating):
            return "complex array"
        return "array" if np.issubdtype(value.dtype, np.floating) else "inactive"
    if type(value) is tuple:
        return "tuple"
    if type(value) is list:
        return "list"
    if isinstance(value, dict):
        return "dict"
    if isinstance(value, (*_CALLABLES, int, str, bytes, complex)):
        return "inactive"
    if hasattr(value, "__dict__"):
        return "object"
    return "inactive"


def as_real(value: Any) -> Any:
    """An explicit argument as differentiation sees it: an int as a float, an integer
    array as a float64 array (bools and everything else as they are)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu":
        return value.astype(np.float64)
    return value


def _central(g: Callable[[float], Any], v: float, rel_step: float) -> float:
    v = float(v)
    h = rel_step * max(1.0, abs(v))
    vp, vm = v + h, v - h
    return (to_scalar(g(vp)) - to_scalar(g(vm))) / (vp - vm)


def _central_complex(g: Callable[[complex], Any], v: complex, rel_step: float) -> complex:
    """dL/dx - i dL/dy at v = x + iy, by central differences in both directions."""
    v = complex(v)
    h = rel_step * max(1.0, abs(v))
    along_real = (to_scalar(g(v + h)) - to_scalar(g(v - h))) / (2 * h)
    along_imag = (to_scalar(g(v + 1j * h)) - to_scalar(g(v - 1j * h))) / (2 * h)
    return complex(along_real, -along_imag)


def _with_attr(obj: Any, name: str, new: Any) -> Any:
    clone = copy.copy(obj)
    setattr(clone, name, new)
    return clone


def _fd(value: Any, rebuild: Callable[[Any], tuple], f: Callable, rel_step: float) -> Any:
    """Numerical gradient of f w.r.t. `value`; rebuild(new) gives f's full args."""
    kind = kind_of(value)
    if kind == "inactive":
        return None
    if kind == "float":
        return _central(lambda v: f(*rebuild(v)), value, rel_step)
    if kind == "complex":
        return _central_complex(lambda v: f(*rebuild(type(value)(v))), value, rel_step)
    if kind == "complex array":
        grad = np.zeros(value.shape, dtype=np.complex128)
        for idx in np.ndindex(*value.shape):

            def at_complex(v, idx=idx):
                arr = value.copy()
                arr[idx] = v
                return f(*rebuild(arr))

            grad[idx] = _central_complex(at_complex, value[idx], rel_step)
        return grad
    if kind == "array":
        grad = np.zeros(value.shape, dtype=np.float64)
        for idx in np.ndindex(*value.shape):

            def at(v, idx=idx):
                arr = value.copy()
                arr[idx] = v
                return f(*rebuild(arr))

            grad[idx] = _central(at, value[idx], rel_step)
        return grad
    if kind == "tuple":
        return tuple(
            _fd(item, lambda new, i=i: rebuild(value[:i] + (new,) + value[i + 1 :]), f, rel_step)
            for i, item in enumerate(value)
        )
    if kind == "list":
        return [
            _fd(item, lambda new, i=i: rebuild(value[:i] + [new] + value[i + 1 :]), f, rel_step)
            for i, item in enumerate(value)
        ]
    if kind == "dict":
        return {
            k: _fd(v, lambda new, k=k: rebuild({**value, k: new}), f, rel_step)
            for k, v in value.items()
        }
    # a user object: one entry per instance attribute
    return {
        name: _fd(v, lambda new, name=name: rebuild(_with_attr(value, name, new)), f, rel_step)
        for name, v in vars(value).items()
    }


def numerical_gradient(
    f: Callable, args: tuple, wrt: tuple[int, ...] | None = None, rel_step: float = REL_STEP
) -> tuple:
    """Central differences of the scalar f(*args), structured like zp.gradient's
    result; arguments not in `wrt` get SKIP."""
    out = []
    for i, arg in enumerate(args):
        if wrt is not None and i not in wrt:
            out.append(SKIP)
            continue

        def rebuild(new, i=i):
            return args[:i] + (new,) + args[i + 1 :]

        out.append(_fd_explicit(arg, rebuild, f, rel_step))
    return tuple(out)


def _fd_explicit(arg: Any, rebuild: Callable[[Any], tuple], f: Callable, rel_step: float) -> Any:
    """Numerical gradient for an explicit argument.  An int or integer array is perturbed
    as a real; where the function only runs on integers there (range(n), an index, a
    recursion counting n down to 0), it is piecewise constant in it: zero."""
    real = as_real(arg)
    if real is arg:
        return _fd(arg, rebuild, f, rel_step)
    try:
        return _fd(real, rebuild, f, rel_step)
    except (TypeError, IndexError, RecursionError):
        return 0.0 if isinstance(real, float) else np.zeros(real.shape)


def _leaves(tree: Any) -> list[np.ndarray]:
    if tree is None or tree is SKIP:
        return []
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in _leaves(item)]
    if isinstance(tree, dict):
        return [leaf for item in tree.values() for leaf in _leaves(item)]
    return [np.asarray(tree, dtype=np.complex128 if np.iscomplexobj(tree) else np.float64)]


def assert_gradient_matches(
    got: Any, fd: Any, arg: Any, path: str, atol: float = ATOL, rtol: float = RTOL
) -> None:
    """`got` (from zygote_py) has the type and shape `arg` calls for and matches
    the numerical gradient `fd` (SKIP: check types only)."""
    kind = kind_of(arg)
    if kind == "inactive":
        assert got is None, (
            f"{path}: the gradient of an inactive {type(arg).__name__} must be None, got {got!r}"
        )
        return
    if got is None:  # None means zero
        for leaf in _leaves(fd):
            assert np.all(np.abs(leaf) <= atol), (
                f"{path}: gradient is None (zero) but finite differences give {leaf}"
            )
        return
    if kind == "float":
        assert isinstance(got, float) and not isinstance(got, bool), (
            f"{path}: the gradient of a float must be a float, got {type(got).__name__} {got!r}"
        )
        if fd is not SKIP:
            assert np.isclose(got, fd, rtol=rtol, atol=atol), (
                f"{path}: gradient {got!r} != finite differences {fd!r}"
            )
        return
    if kind == "complex":
        assert type(got) is type(arg), (
            f"{path}: the gradient of a {type(arg).__name__} must be one, got {type(got).__name__}"
        )
        if fd is not SKIP:
            assert np.isclose(got, fd, rtol=rtol, atol=atol), (
                f"{path}: gradient {got!r} != finite differences {fd!r} (dL/dx - i dL/dy)"
            )
        return
    if kind in ("array", "complex array"):
        assert isinstance(got, np.ndarray), (
            f"{path}: the gradient of an array must be an ndarray, got {type(got).__name__}"
        )
        assert got.shape == arg.shape, (
            f"{path}: gradient shape {got.shape} != arg shape {arg.shape}"
        )
        assert got.dtype == arg.dtype if kind == "complex array" else \
            np.issubdtype(got.dtype, np.floating), f"{path}: gradient dtype {got.dtype}"
        if fd is not SKIP:
            bad = ~np.isclose(got, fd, rtol=rtol, atol=atol)
            assert not bad.any(), (
                f"{path}: gradient differs from finite differences at "
                f"{np.argwhere(bad).tolist()[:5]}\n got: {got}\n fd:  {fd}"
            )
        return
    if kind in ("tuple", "list"):
        want = tuple if kind == "tuple" else list
        assert type(got) is want, f"{path}: the gradient of a {kind} must be a {kind}, got {got!r}"
        assert len(got) == len(arg), f"{path}: gradient has {len(got)} entries, arg {len(arg)}"
        for i, (g, a) in enumerate(zip(got, arg)):
            sub = SKIP if fd is SKIP else fd[i]
            assert_gradient_matches(g, sub, a, f"{path}[{i}]", atol, rtol)
        return
    # dict, or an object whose gradient is a dict of attribute name -> gradient
    fields = arg if kind == "dict" else vars(arg)
    assert isinstance(got, dict), f"{path}: the gradient of a {kind} must be a dict, got {got!r}"
    extra = set(got) - set(fields)
    assert not extra, f"{path}: gradient has keys the argument lacks: {sorted(map(repr, extra))}"
    for k, a in fields.items():
        sub = SKIP if fd is SKIP else fd[k]
        label = f"{path}[{k!r}]" if kind == "dict" else f"{path}.{k}"
        assert_gradient_matches(got.get(k), sub, a, label, atol, rtol)


def tree_map(fn: Callable[[Any], Any], tree: Any) -> Any:
    """Apply fn to every float / array leaf of a gradient; None stays None."""
    if tree is None:
        return None
    if type(tree) in (tuple, list):
        return type(tree)(tree_map(fn, t) for t in tree)
    if isinstance(tree, dict):
        return {k: tree_map(fn, v) for k, v in tree.items()}
    return fn(tree)


def assert_trees_close(
    a: Any, b: Any, path: str = "grad", rtol: float = 1e-12, atol: float = 1e-14
) -> None:
    """Two gradients have the same structure and (nearly) equal leaves.
    A missing dict key and None are both zero."""
    if a is None or b is None:
        other = b if a is None else a
        for leaf in _leaves(other):
            assert np.all(leaf == 0), f"{path}: None vs nonzero {leaf}"
        return
    if type(a) in (tuple, list):
        assert type(b) is type(a) and len(a) == len(b), f"{path}: {a!r} vs {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_trees_close(x, y, f"{path}[{i}]", rtol, atol)
        return
    if isinstance(a, dict):
        assert isinstance(b, dict), f"{path}: {a!r} vs {b!r}"
        for k in set(a) | set(b):
            assert_trees_close(a.get(k), b.get(k), f"{path}[{k!r}]", rtol, atol)
        return
    assert type(a) is type(b) or (isinstance(a, float) and isinstance(b, float)), (
        f"{path}: {type(a).__name__} vs {type(b).__name__}"
    )
    assert np.shape(a) == np.shape(b), f"{path}: shape {np.shape(a)} vs {np.shape(b)}"
    assert np.allclose(a, b, rtol=rtol, atol=atol), f"{path}: {a!r} vs {b!r}"
