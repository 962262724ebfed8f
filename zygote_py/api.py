"""The public API: gradient, withgradient, pullback, jacobian, differentiable, grad_source.

Each call looks up (or builds) the compiled form of the function for the set
of arguments that are active — floats, float arrays, and containers or
objects holding them; ints, bools and strings never are — runs it, and hands
back gradients with the type and shape of their arguments.  The compiled code
runs under a Context (context.py) naming the compiler and, for a Params call,
the collector its deposits go to; the Context is this thread's own.
"""

from __future__ import annotations

import functools
import types

import numpy as np

from . import context
from .compiler import COMPILER
from .errors import SourceUnavailable, ZygoteError
from .kinds import is_active, scalar_kinds
from .params import Grads, Params
from .runtime.implicit import Collector, cell_value, holds_parameter
from .tree import finalize


def _check_function(f) -> None:
    if not callable(f):
        raise ZygoteError(f"expected a function to differentiate, got {type(f).__name__}")
    if getattr(f, "__code__", None) is None:
        target = getattr(f, "__func__", None) or getattr(type(f), "__call__", None)
        if getattr(target, "__code__", None) is None:
            raise SourceUnavailable(f"{getattr(f, '__name__', f)!r} is not a Python function with source",
                                    hint="differentiate a Python function that calls it")


def _target(f, args):
    """The Python function to transform, and the arguments to call it with."""
    f = getattr(f, "_zp_original", f)
    if isinstance(f, types.MethodType):  # before __code__: a bound method proxies it
        return f.__func__, (f.__self__, *args), 1
    if getattr(f, "__code__", None) is not None:
        return f, args
    call = type(f).__call__
    return call, (f, *args), 1


def _prepare(f, args):
    _check_function(f)
    target = _target(f, args)
    if len(target) == 3:
        fn, full_args, skip = target
    else:
        (fn, full_args), skip = target, 0
    active = tuple(is_active(a) for a in full_args)
    return fn, full_args, active, skip


def withgradient(f, *args):
    """(f(*args), gradients): gradients is a tuple with one entry per argument (None = zero).

    With a Params set as the last argument, (f(*rest), Grads) instead.
    """
    _check_params_last(args)
    if args and isinstance(args[-1], Params):
        y, back = _implicit_pullback(f, args[:-1], args[-1], "grad")
        return y, back(None)
    fn, full_args, active, skip = _prepare(f, args)
    with _explicit() as ctx:
        entry = ctx.compiler.entry(fn, active, "grad", (), scalar_kinds(full_args))
        y, bars = entry.fn(*full_args)
    grads = tuple(finalize(b, a) for b, a in zip(bars, full_args))
    return y, grads[skip:]


def gradient(f, *args):
    """The gradient of a real-scalar-valued f at args: one entry per positional argument.

    `gradient(thunk, ps)` with `ps = params(...)` returns a Grads: the
    gradients of the arrays in ps, wherever the thunk reads them.
    """
    return withgradient(f, *args)[1]


def pullback(f, *args):
    """(y, back): back(dy) returns the cotangents of the arguments; callable repeatedly.

    With a Params set as the last argument, back(dy) returns a Grads.
    """
    _check_params_last(args)
    if args and isinstance(args[-1], Params):
        return _implicit_pullback(f, args[:-1], args[-1], "pullback")
    fn, full_args, active, skip = _prepare(f, args)
    with _explicit() as ctx:
        entry = ctx.compiler.entry(fn, active, "pullback", (), scalar_kinds(full_args))
        y, back_inner = entry.fn(*full_args)
    compiler = ctx.compiler

    def back(dy):
        if dy is None:
            return (None,) * len(args)
        with context.using(compiler=compiler, collector=None):
            bars = back_inner(dy)
        return tuple(finalize(b, a) for b, a in zip(bars, full_args))[skip:]

    return y, back


def _check_params_last(args) -> None:
    if any(isinstance(a, Params) for a in args[:-1]):
        raise ZygoteError("a Params set must be the last argument of gradient/withgradient/pullback",
                          hint="zp.gradient(lambda: loss(x), zp.params(W, b))")


def _compiler():
    """The compiler of the current Context (a tool may install its own), else the default."""
    return context.current().compiler or COMPILER


def _explicit():
    """The Context for an ordinary gradient call: no Params are being filled, even when
    this call is made inside a Params call (by a custom rule, say)."""
    return context.using(compiler=_compiler(), collector=None)


def _filling(collector: Collector, compiler=None):
    """The Context while generated code runs for a Params call: callees are built in
    their implicit variant, and deposits go into collector."""
    return context.using(compiler=compiler or _compiler(), collector=collector)


def _implicit_pullback(f, args, ps: Params, mode: str):
    """(y, back) for a Params call: back(dy) -> Grads (in 'grad' mode, back(None) with
    the scalar seed, the whole gradient having been computed at once)."""
    fn, full_args, active, _ = _prepare(f, args)
    # the thunk's own cells are read, not made, here: only those holding parameters matter
    cells = tuple(name for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ())
                  if holds_parameter(cell_value(cell), ps))
    def collect(collector, bars):
        for bar, arg in zip(bars, full_args):
            collector.walk(arg, bar)
        if cells:
            collector.walk(fn, bars[-1])
        return Grads(ps, collector.gradients())

    collector = Collector(ps)
    with _filling(collector) as ctx:
        entry = ctx.compiler.entry(fn, active, mode, cells, scalar_kinds(full_args), implicit=True)
        y, out = entry.fn(*full_args)
    if mode == "grad":
        grads = collect(collector, out)
        return y, lambda _dy: grads
    compiler = ctx.compiler

    def back(dy):
        fresh = Collector(ps)  # a new Grads for every call: returned ones never change
        if dy is None:
            return Grads(ps)
        with _filling(fresh, compiler):
            bars = out(dy)
        return collect(fresh, bars)

    return y, back


def jacobian(f, *args):
    """The Jacobian of f at args, one array per argument, of shape y.shape + arg.shape."""
    y, back = pullback(f, *args)
    y_arr = np.asarray(y)
    rows = []
    for index in np.ndindex(y_arr.shape):
        seed = np.zeros_like(y_arr, dtype=float)
        seed[index] = 1.0
        rows.append(back(seed if y_arr.shape else float(seed)))
    out = []
    for i, x in enumerate(args):
        x_arr = np.asarray(x)
        stacked = [np.zeros(x_arr.shape) if r[i] is None else np.asarray(r[i], dtype=float) for r in rows]
        out.append(np.stack(stacked).reshape(y_arr.shape + x_arr.shape) if stacked else None)
    return tuple(out)


def grad_source(f, wrt=None, mode: str = "grad", args=None) -> str:
    """The generated gradient code of f, as text.

    wrt names (or indices of) the parameters to differentiate; default: all.
    mode 'pullback' shows the pullback form instead.  With example args, the code
    is the one a call with such arguments runs (specialised on which are scalars,
    arrays or other objects).  Without them the parameters are taken to be arrays
    or numbers, so `p.mean()` shows NumPy's derivative; a gradient call with another
    object compiles its own code, where the object's type decides.
    """
    fn = getattr(f, "_zp_original", f)
    _check_function(fn)
    if args is not None:
        fn, full_args, active, _ = _prepare(f, tuple(args))
        return _compiler().entry(fn, active, mode, (), scalar_kinds(full_args)).source
    names = list(fn.__code__.co_varnames[:fn.__code__.co_argcount + fn.__code__.co_kwonlyargcount])
    if wrt is None:
        active = tuple(True for _ in names)
    else:
        wanted = {wrt} if isinstance(wrt, (str, int)) else set(wrt)
        active = tuple(n in wanted or i in wanted for i, n in enumerate(names))
    return _compiler().entry(fn, active, mode).source


def differentiable(f):
    """Transform f now (unsupported syntax fails at import); f still runs as written.

    The result is callable like f and has .grad(*args), .withgradient(*args),
    .pullback(*args) and .source(wrt=None).
    """
    _compiler().lowered_ir(f)

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return f(*args, **kwargs)

    wrapper._zp_original = f
    wrapper.grad = lambda *args: gradient(f, *args)
    wrapper.withgradient = lambda *args: withgradient(f, *args)
    wrapper.pullback = lambda *args: pullback(f, *args)
    wrapper.source = lambda wrt=None: grad_source(f, wrt)
    return wrapper


def adjoint(fn):
    """Register a custom reverse rule for fn (a function with or without source).

        @zp.adjoint(my_fn)
        def my_fn_rule(x, y):
            out = my_fn(x, y)
            return out, lambda g: (g * dx, g * dy)   # one cotangent per positional argument

    The rule takes fn's arguments and returns (y, back); back(g) returns a tuple of
    cotangents (None for zero).  It takes precedence over the built-in rules and
    over transforming fn's source.
    """

    def register(rule):
        from .rules.registry import register_custom

        register_custom(fn, rule)
        COMPILER.clear()  # compiled callers may have inlined the old derivative
        return rule

    return register


def stop_gradient(x):
    """x itself, carrying no derivative: nothing flows back through it."""
    return x
