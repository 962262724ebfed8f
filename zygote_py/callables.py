"""Any callable at the API: the Python function to transform, and how to call it.

`zp.gradient(f, *args, **kwargs)` accepts more than a def.  `call_plan`
looks at the object that is really there (its type, never its name) and
finds the Python function whose code computes `f(*args, **kwargs)`:

  - a function made by `@zp.differentiable`: the function it decorated;
  - a callable with a derivative rule (`np.sin`, `math.exp`, `operator.mul`,
    `np.linalg.det`, anything given `@zp.adjoint`): a one-line trampoline
    `def sin(_0): return _zp_callee(_0)`, so the rule is spliced in as it is
    at any call site (a custom rule wins over a function's own source, as in
    calls from differentiated code);
  - `functools.partial`: its function, its bound arguments first (their
    gradients are not the caller's) and its keywords merged;
  - a bound method: its function with `self` first (likewise not returned);
    a `staticmethod` object: its function;
  - `functools.lru_cache` / `functools.cache` wrappers (that exact type
    only): the function they wrap, since a cache returns the values the
    function computes.  Any other object with `__wrapped__` (a
    `functools.wraps` wrapper) is transformed itself: its code is what runs,
    and following `__wrapped__` would differentiate a different function;
  - any other Python function as it is; an object whose class defines
    `__call__` in Python: that method with the object first.

`CallPlan` then groups the arguments by the function's parameters (the
extra positional arguments of `def f(*xs)` form one tuple), says which
parameters are active, and turns the cotangents the compiled code returns
back into one gradient per argument the user passed.  Explicit int
arguments and integer arrays are differentiated as reals (their gradients
are floats and float64 arrays); bools never are.
"""

from __future__ import annotations

import builtins
import functools
import inspect
import itertools
import keyword
import linecache
import types

import numpy as np

from .codegen.naming import function_name
from .errors import SourceUnavailable, ZygoteError
from .kinds import array_kinds, is_active, scalar_kinds
from .rules import registry
from .tree import finalize

_LRU_WRAPPER = type(functools.lru_cache(maxsize=None)(lambda: None))
_UNWRAP_LIMIT = 100  # a partial of a bound method of a partial ... never nests this deep


class CallPlan:
    """How to run compiled code for f(*args, **kwargs), and read its gradients back."""

    def __init__(self, fn, args: tuple, kwargs: dict, skip: int):
        self.fn = fn  # the Python function transformed
        self.args = args  # its positional arguments: the user's, after skip bound ones
        self.kwargs = kwargs  # keyword arguments: passed on, never differentiated
        self.skip = skip
        code = fn.__code__
        self.npos = npos = code.co_argcount
        self.has_vararg = bool(code.co_flags & inspect.CO_VARARGS)
        grouped = list(args[:npos])
        if self.has_vararg and len(args) > npos:
            grouped.append(tuple(args[npos:]))
        self.grouped = tuple(grouped)  # one value per parameter the arguments fill
        # their structure as the call starts: the function may update a list or dict it is
        # passed in place, and gradients are of the values at the call (docs/mutation.md)
        self.at_call = tuple(structure_at_call(a) for a in self.grouped)

    def active(self, selected=None, ints: bool = True) -> tuple:
        """Per parameter, whether it is differentiated (selected: the user's argument
        indices to differentiate, None for all; ints: whether int arguments are)."""
        activity = _explicit_active if ints else is_active
        flags = [activity(a) and (selected is None or i - self.skip in selected)
                 for i, a in enumerate(self.args)]
        if self.has_vararg and len(self.args) > self.npos:
            flags = [*flags[:self.npos], any(flags[self.npos:])]
        return tuple(flags)

    def scalars(self) -> tuple:
        return scalar_kinds(self.grouped)

    def arrays(self) -> tuple:
        """The array kinds of the arguments (kinds.array_kinds); () where none is a
        real float array, so that such calls share the entry they had before."""
        kinds = array_kinds(self.grouped)
        return kinds if any(k is not None for k in kinds) else ()

    def gradients(self, bars) -> tuple:
        """One gradient per argument the user passed, from the per-parameter cotangents."""
        out = [finalize(b, _as_real(a)) for b, a in zip(bars, self.at_call[:self.npos])]
        if self.has_vararg and len(self.args) > self.npos:
            rest = tuple(_as_real(a) for a in self.args[self.npos:])
            bar = bars[self.npos] if len(bars) > self.npos else None
            rest_grads = finalize(bar, rest)
            out += list(rest_grads) if rest_grads is not None else [None] * len(rest)
        out += [None] * (len(self.args) - len(out))
        return tuple(out[self.skip:])


def structure_at_call(x, depth: int = 0):
    """x, or where x is or holds a list or dict, a copy of its containers (and of the
    instance dict of objects holding them) with the same leaves: what the gradient's
    structure follows when the call updates them in place."""
    if depth > 8 or not _holds_container(x, depth):
        return x
    t = type(x)
    if t is list:
        return [structure_at_call(v, depth + 1) for v in x]
    if t is dict:
        return {k: structure_at_call(v, depth + 1) for k, v in x.items()}
    if t is tuple:
        return tuple(structure_at_call(v, depth + 1) for v in x)
    attrs = getattr(x, "__dict__", None)
    if type(attrs) is dict and not hasattr(t, "__slots__"):
        try:
            clone = object.__new__(t)
        except TypeError:  # a class object.__new__ cannot make: as it is
            return x
        clone.__dict__.update({k: structure_at_call(v, depth + 1) for k, v in attrs.items()})
        return clone
    return x


def _holds_container(x, depth: int) -> bool:
    t = type(x)
    if t is list or t is dict:
        return True
    if depth > 8 or t is np.ndarray or t is float or t is int or x is None:
        return False
    if t is tuple:
        return any(_holds_container(v, depth + 1) for v in x)
    attrs = getattr(x, "__dict__", None)
    if type(attrs) is dict and not isinstance(x, (type, types.ModuleType, types.FunctionType)):
        return any(_holds_container(v, depth + 1) for v in attrs.values())
    return False


def call_plan(f, args: tuple, kwargs: dict) -> CallPlan:
    """The plan for f(*args, **kwargs): see the module docstring."""
    if not callable(f):
        raise ZygoteError(f"expected a function to differentiate, got {type(f).__name__}")
    skip = 0
    for _ in range(_UNWRAP_LIMIT):
        original = getattr(f, "_zp_original", None)  # made by @zp.differentiable
        if original is not None and isinstance(f, types.FunctionType):
            f = original
            continue
        if _has_rule(f):
            return CallPlan(trampoline(f, len(args), tuple(kwargs)), args, kwargs, skip)
        if isinstance(f, types.FunctionType):
            return CallPlan(f, args, kwargs, skip)
        if isinstance(f, functools.partial):
            args, kwargs, skip = (*f.args, *args), {**f.keywords, **kwargs}, skip + len(f.args)
            f = f.func
        elif isinstance(f, types.MethodType):
            args, skip = (f.__self__, *args), skip + 1
            f = f.__func__
        elif isinstance(f, staticmethod):
            f = f.__func__
        elif type(f) is _LRU_WRAPPER:
            f = f.__wrapped__  # the cache returns what the function computes
        elif isinstance(getattr(type(f), "__call__", None), types.FunctionType):
            args, skip = (f, *args), skip + 1
            f = type(f).__call__
        else:
            break
    raise SourceUnavailable(f"{getattr(f, '__qualname__', f)!r} is not a Python function with source, "
                            "and has no derivative rule",
                            hint="differentiate a Python function that calls it, or register a rule "
                            "with @zp.adjoint")


def _has_rule(f) -> bool:
    return bool(registry.custom_rule(f) or registry.function_rule(f) or registry.is_nondifferentiable(f))


def _explicit_active(x) -> bool:
    """An argument passed explicitly is differentiated when it is active, and also when
    it is an int or an integer array (as a real); a bool never is."""
    if is_active(x):
        return True
    if isinstance(x, (int, np.integer)):
        return not isinstance(x, (bool, np.bool_))
    return isinstance(x, np.ndarray) and x.dtype.kind in "iu"


def _as_real(x):
    """What an argument's gradient looks like: ints' are floats, integer arrays' float64."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        return float(x)
    if isinstance(x, np.ndarray) and x.dtype.kind in "iu":
        return x.astype(np.float64)
    return x


# (id(callee), number of positional arguments, keyword names) -> (callee, trampoline);
# a cache only: the same key always gets an equivalent trampoline
_TRAMPOLINES: dict = {}
_trampoline_count = itertools.count(1)


def trampoline(callee, nargs: int, kwnames: tuple):
    """A Python function with source that calls callee with nargs positional arguments
    and these keyword arguments (keyword-only parameters, never differentiated)."""
    bad = [k for k in kwnames if not k.isidentifier() or keyword.iskeyword(k)]
    if bad:
        raise ZygoteError(f"cannot pass the keyword argument {bad[0]!r} to {callee!r} here",
                          hint="pass it through a Python function that makes the call")
    key = (id(callee), nargs, kwnames)
    cached = _TRAMPOLINES.get(key)
    if cached is not None and cached[0] is callee:
        return cached[1]
    positional = []
    for i in range(nargs):
        name = f"_{i}"
        while name in kwnames:
            name = "_" + name
        positional.append(name)
    params = ", ".join([*positional, *(["*", *kwnames] if kwnames else [])])
    call = ", ".join([*positional, *(f"{k}={k}" for k in kwnames)])
    name = function_name(getattr(callee, "__name__", None) or type(callee).__name__)
    text = f"def {name}({params}):\n    return _zp_callee({call})\n"
    filename = f"<zygote_py:call {name}:{next(_trampoline_count)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"__builtins__": builtins, "_zp_callee": callee}
    exec(compile(text, filename, "exec"), namespace)
    fn = namespace[name]
    _TRAMPOLINES[key] = (callee, fn)
    return fn
