"""The public API: gradient, withgradient, pullback, jacobian, differentiable, grad_source.

Each call finds the Python function to transform for the callable it is given
(callables.py: a def, a lambda, a method, a partial, a function with a rule,
...), looks up (or builds) its compiled form for the set of arguments that are
active — floats, float arrays, containers or objects holding them, and
explicitly passed ints and integer arrays (differentiated as reals); bools and
strings never are — runs it, and hands back gradients with the type and shape
of their arguments.  `wrt=` selects arguments and `has_aux=True` lets f return
(loss, aux).  The compiled code runs under a Context (context.py) naming the
compiler and, for a Params call, the collector its deposits go to; the Context
is this thread's own.
"""

from __future__ import annotations

import functools

import numpy as np

from . import context
from .callables import call_plan
from .calls.implicit import Collector, cell_value, holds_parameter
from .codegen.tracebacks import placed_at_user_line, refused_by_rule, with_user_frames
from .compiler import COMPILER
from .errors import ZygoteError
from .kinds import is_active, scalar_kinds  # noqa: F401  (aot and tests import them from here)
from .params import Grads, Params
from .runtime.built_objects import ObjectLedger, settle_seed
from .runtime.helpers import check_scalar
from .runtime.iterators import items_ahead_error
from .tree import finalize  # noqa: F401  (aot imports it from here)


def _prepare(f, args, kwargs=None):
    """(function to transform, its positional arguments, which parameters are active,
    how many leading arguments are not the caller's) for f(*args, **kwargs)."""
    plan = call_plan(f, tuple(args), dict(kwargs or {}))
    # for aot/: a standalone module's runtime gives int arguments no gradient
    return plan.fn, plan.args, plan.active(ints=False), plan.skip


def withgradient(f, *args, wrt=None, has_aux=False, **kwargs):
    """(f(*args, **kwargs), gradients): gradients has one entry per positional argument
    (None = zero); keyword arguments reach f undifferentiated.

    wrt (an int or a tuple of ints) selects the positional arguments to differentiate:
    an int gives that argument's gradient alone, a tuple a tuple.  With has_aux=True, f
    returns (loss, aux) and the result is (loss, gradients, aux).  With a Params set as
    the last argument, (f(*rest), Grads) instead.
    """
    _check_params_last(args)
    if args and isinstance(args[-1], Params):
        _no_selection_with_params(wrt)
        if has_aux:
            y, back, aux = _with_aux(*_implicit_pullback(f, args[:-1], args[-1], "pullback", kwargs))
            return y, back(_seed(y)), aux
        y, back = _implicit_pullback(f, args[:-1], args[-1], "grad", kwargs)
        return y, back(None)
    selected = selection(wrt, len(args))
    plan = call_plan(f, args, kwargs)
    if has_aux:
        y, back, aux = _with_aux(*_explicit_pullback(plan, selected))
        return y, pick(back(_seed(y)), wrt), aux
    active = plan.active(selected)
    with _explicit(_reals(plan, active)) as ctx:
        entry = ctx.compiler.entry(plan.fn, active, "grad", (), plan.scalars(), arrays=plan.arrays())
        try:
            y, bars = _run(entry.fn, *plan.args, **plan.kwargs)
        finally:
            ctx.objects.replay()  # objects built in the call: as the forward pass left them
    return y, pick(plan.gradients(bars), wrt)


def gradient(f, *args, wrt=None, has_aux=False, **kwargs):
    """The gradient of a real-scalar-valued f at args: one entry per positional argument
    (wrt selects some, see withgradient); with has_aux=True, (gradients, aux).

    `gradient(thunk, ps)` with `ps = params(...)` returns a Grads: the
    gradients of the arrays in ps, wherever the thunk reads them.
    """
    out = withgradient(f, *args, wrt=wrt, has_aux=has_aux, **kwargs)
    return (out[1], out[2]) if has_aux else out[1]


def pullback(f, *args, wrt=None, has_aux=False, **kwargs):
    """(y, back): back(dy) returns the cotangents of the arguments; callable repeatedly.

    wrt selects arguments as for withgradient.  With has_aux=True, f returns (y, aux)
    and the result is (y, back, aux).  With a Params set as the last argument,
    back(dy) returns a Grads.
    """
    _check_params_last(args)
    if args and isinstance(args[-1], Params):
        _no_selection_with_params(wrt)
        pair = _implicit_pullback(f, args[:-1], args[-1], "pullback", kwargs)
        return _with_aux(*pair) if has_aux else pair
    selected = selection(wrt, len(args))
    y, back_all = _explicit_pullback(call_plan(f, args, kwargs), selected)

    def back(dy):
        return call_back(back_all, wrt, f, args, kwargs, dy)

    if has_aux:
        loss, back_loss, aux = _with_aux(y, back_all)
        return loss, lambda dy: pick(back_loss(dy), wrt), aux
    return y, back


def call_back(back_all, wrt, f, args, kwargs, dy):
    """What the back function of zp.pullback(f, *args) computes.  A function of its own so
    that a back function called inside a function being differentiated has a derivative
    (a custom rule, zygote_py/nested.py): f and args say what it is the pullback of."""
    return pick(back_all(dy), wrt)


def _explicit_pullback(plan, selected):
    """(y, back) of the call plan; back(dy) -> one gradient per argument."""
    active = plan.active(selected)
    reals = _reals(plan, active)
    with _explicit(reals) as ctx:
        entry = ctx.compiler.entry(plan.fn, active, "pullback", (), plan.scalars(),
                                    arrays=plan.arrays())
        y, back_inner = _run(entry.fn, *plan.args, **plan.kwargs)
    compiler, objects = ctx.compiler, ctx.objects

    def back(dy):
        if dy is None:
            return (None,) * (len(plan.args) - plan.skip)
        ledger = objects.for_backward()  # cotangent slots of this run's own
        with context.using(compiler=compiler, collector=None, reals=reals, objects=ledger):
            try:
                bars = _run(back_inner, settle_seed(y, dy))
            finally:
                ledger.replay()
        return plan.gradients(bars)

    return y, back


def _with_aux(out, back):
    """(loss, back(dloss), aux) from a pullback of f returning (loss, aux)."""
    if type(out) not in (tuple, list) or len(out) != 2:
        raise ZygoteError(f"with has_aux=True, f must return a pair (loss, aux); it returned "
                          f"{type(out).__name__}" + (f" of length {len(out)}" if isinstance(out, (tuple, list)) else ""),
                          hint="return loss, aux")
    loss, aux = out
    return loss, lambda dy: back(None if dy is None else type(out)((dy, None))), aux


def _seed(loss):
    """The cotangent 1 of a real scalar loss (NonScalarOutput otherwise)."""
    return check_scalar(loss, None)


def selection(wrt, nargs: int):
    """The argument indices wrt selects (None: all), checked."""
    if wrt is None:
        return None
    indices = (wrt,) if not isinstance(wrt, tuple) else wrt
    for i in indices:
        if type(i) is not int or not -nargs <= i < nargs:
            raise ZygoteError(f"wrt={wrt!r} must be an index or a tuple of indices of the "
                              f"{nargs} positional argument(s)",
                              hint="zp.gradient(f, W, b, x, wrt=(0, 1)) differentiates W and b")
    return {i % nargs for i in indices}


def pick(grads, wrt):
    """The selected gradients: one for an int wrt, a tuple for a tuple."""
    if wrt is None:
        return grads
    if isinstance(wrt, tuple):
        return tuple(grads[i] for i in wrt)
    return grads[wrt]


def _no_selection_with_params(wrt) -> None:
    if wrt is not None:
        raise ZygoteError("wrt= selects positional arguments; with a Params set the gradients "
                          "are those of its arrays", hint="leave out wrt=, or the Params set")


def _check_params_last(args) -> None:
    if any(isinstance(a, Params) for a in args[:-1]):
        raise ZygoteError("a Params set must be the last argument of gradient/withgradient/pullback",
                          hint="zp.gradient(lambda: loss(x), zp.params(W, b))")


def _run(compiled, *args, **kwargs):
    """compiled(*args, **kwargs); an error raised by the user's code there gets the
    user's file and line in its traceback (codegen/tracebacks.py).  zygote_py's own
    errors already name them."""
    token = context.fresh_items_ahead()  # (runtime/iterators.py: begin_ahead)
    try:
        return compiled(*args, **kwargs)
    except ZygoteError as err:
        # (no local may hold the error: its traceback holds the generated code's frames and
        # their values, and such a cycle would keep a claimed global list alive after the call)
        if placed_at_user_line(err) is err:
            raise
        raise placed_at_user_line(err) from None
    except Exception as err:
        ahead = items_ahead_error(err)  # an iterator's item computed ahead raised
        if ahead is not None:
            raise ahead from with_user_frames(err)
        refusal = refused_by_rule(err)  # a rule refusing the arguments it got
        if refusal is not None:
            raise refusal from None
        raise with_user_frames(err)  # noqa: B904  (the same error, with the user's frames)
    finally:
        context.restore_items_ahead(token)


def _compiler():
    """The compiler of the current Context (a tool may install its own), else the default."""
    return context.current().compiler or COMPILER


def _explicit(reals: bool = False):
    """The Context for an ordinary gradient call: no Params are being filled, even when
    this call is made inside a Params call (by a custom rule, say).  reals: an explicit
    int argument is differentiated (see context.Context)."""
    return context.using(compiler=_compiler(), collector=None, reals=reals, objects=ObjectLedger())


def _reals(plan, active: tuple) -> bool:
    """Whether an int or integer-array argument is among the differentiated ones."""
    return any(flag and _integral(arg) for flag, arg in zip(active, plan.args))


def _integral(x) -> bool:
    if isinstance(x, (bool, np.bool_)):
        return False
    return isinstance(x, (int, np.integer)) or isinstance(x, np.ndarray) and x.dtype.kind in "iu"


def _filling(collector: Collector, compiler=None, objects=None):
    """The Context while generated code runs for a Params call: callees are built in
    their implicit variant, and deposits go into collector."""
    return context.using(compiler=compiler or _compiler(), collector=collector,
                         objects=objects or ObjectLedger())


def _implicit_pullback(f, args, ps: Params, mode: str, kwargs=None):
    """(y, back) for a Params call: back(dy) -> Grads (in 'grad' mode, back(None) with
    the scalar seed, the whole gradient having been computed at once)."""
    plan = call_plan(f, tuple(args), dict(kwargs or {}))
    fn, full_args, active = plan.fn, plan.args, plan.active()
    # the thunk's own cells are read, not made, here: only those holding parameters matter
    cells = tuple(name for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ())
                  if holds_parameter(cell_value(cell), ps))
    def collect(collector, bars):
        for bar, arg in zip(bars, plan.grouped):
            collector.walk(arg, bar)
        if cells:
            collector.walk(fn, bars[-1])
        return Grads(ps, collector.gradients())

    collector = Collector(ps)
    with _filling(collector) as ctx:
        entry = ctx.compiler.entry(fn, active, mode, cells, plan.scalars(), implicit=True,
                                   arrays=plan.arrays())
        try:
            y, out = _run(entry.fn, *full_args, **plan.kwargs)
        finally:
            if mode == "grad":
                ctx.objects.replay()
    if mode == "grad":
        grads = collect(collector, out)
        return y, lambda _dy: grads
    compiler, objects = ctx.compiler, ctx.objects

    def back(dy):
        fresh = Collector(ps)  # a new Grads for every call: returned ones never change
        if dy is None:
            return Grads(ps)
        ledger = objects.for_backward()
        with _filling(fresh, compiler, ledger):
            try:
                bars = _run(out, settle_seed(y, dy))
            finally:
                ledger.replay()
        return collect(fresh, bars)

    return y, back


def jacobian(f, *args, **kwargs):
    """The Jacobian of f at args, one array per argument, of shape y.shape + arg.shape.

    A complex output of real arguments gives a complex Jacobian: row k is
    back(e_k) - i back(i e_k), the real part's covector minus i times the imaginary
    part's (docs/complex.md); complex arguments are refused (the derivative is R-linear,
    not a complex matrix in general)."""
    if any(np.iscomplexobj(a) for a in args):
        raise ZygoteError("zp.jacobian of a function of complex arguments: its derivative is "
                          "R-linear, not a complex matrix in general",
                          hint="use zp.pullback or zp.jvp along real and imaginary directions "
                               "(docs/complex.md)")
    y, back = pullback(f, *args, **kwargs)
    y_arr = np.asarray(y)
    complex_output = np.iscomplexobj(y_arr)

    def row(seed):
        plain = seed if y_arr.shape else seed.item()
        r = back(plain)
        if not complex_output:
            return r
        r_imag = back(1j * plain)  # pairs as Re(i c t) = -Im(c t): minus the imaginary part
        return [None if a is None and b is None else
                np.asarray(0.0 if a is None else a) - 1j * np.asarray(0.0 if b is None else b)
                for a, b in zip(r, r_imag)]

    rows = []
    for index in np.ndindex(y_arr.shape):
        seed = np.zeros(y_arr.shape)
        seed[index] = 1.0
        rows.append(row(seed))
    out = []
    dtype = complex if complex_output else float
    for i, x in enumerate(args):
        x_arr = np.asarray(x)
        stacked = [np.zeros(x_arr.shape) if r[i] is None else np.asarray(r[i], dtype=dtype) for r in rows]
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
    if args is not None:
        plan = call_plan(f, tuple(args), {})
        return _compiler().entry(plan.fn, plan.active(), mode, (), plan.scalars(),
                                 arrays=plan.arrays()).source
    fn = call_plan(f, (), {}).fn
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
    .pullback(*args) and .source(wrt=None), which take gradient's keywords too.
    """
    _compiler().lowered_ir(f)

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return f(*args, **kwargs)

    wrapper._zp_original = f
    wrapper.grad = lambda *args, **kwargs: gradient(f, *args, **kwargs)
    wrapper.withgradient = lambda *args, **kwargs: withgradient(f, *args, **kwargs)
    wrapper.pullback = lambda *args, **kwargs: pullback(f, *args, **kwargs)
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
        from .forward_compiler import FORWARD

        FORWARD.clear()  # and so may forward mode's entries (zp.jvp, zp.hessian)
        return rule

    return register


def stop_gradient(x):
    """x itself, carrying no derivative: nothing flows back through it."""
    return x
