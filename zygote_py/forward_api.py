"""Forward mode and higher order: zp.jvp, zp.jacobian (forward or reverse), zp.hessian, zp.hvp.

`jvp(f, primals, tangents)` runs the forward-mode transform of f (ad/forward/)
under the forward compiler (forward_compiler.py) and returns `(y, tangent)`:
the directional derivative of f at primals along tangents, exact.

`hvp` and `hessian` are forward-over-reverse: the gradient of f is compiled
by reverse mode as usual, and that generated gradient function, which is
plain Python the frontend reads like any other, is differentiated again by
the forward transform.  The helpers the gradient code calls (unbroadcast,
accum, the tape pops, ...) all have forward rules, so H v costs about one
gradient and one forward pass over it (docs/how-it-works.md, "Forward mode").
"""

from __future__ import annotations

import types

import numpy as np

from . import context
from .api import jacobian as _reverse_jacobian
from .callables import call_plan
from .calls import forward_dispatch
from .calls.forward_objects import ObjectTangents, materialize
from .codegen.tracebacks import placed_at_user_line, refused_by_rule
from .errors import NoDerivativeRule, ZygoteError
from .forward_compiler import FORWARD
from .runtime.built_objects import ObjectLedger
from .runtime.iterators import items_ahead_error
from .runtime.library_code import is_library_file, shown_path

_MODES = ("auto", "forward", "reverse")


def jvp(f, primals, tangents):
    """(f(*primals), the derivative of f at primals in the direction tangents).

    primals and tangents are sequences of the same length; each tangent has its
    primal's structure (an array of its shape for an array, a float for a number,
    a list for a list, ...), and None is a zero tangent.  The tangent returned has
    the structure of f's result (zeros where it does not depend on the inputs).
    """
    return _jvp(f, primals, tangents)


def _jvp(f, primals, tangents, undo_writes=False):
    """jvp; with undo_writes, the attributes of objects f wrote are put back to their values
    from before the call (one column of several: each starts from the same state)."""
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise ZygoteError(f"zp.jvp got {len(primals)} primals and {len(tangents)} tangents",
                          hint="give one tangent per primal (None for a zero tangent)")
    for index, (x, t) in enumerate(zip(primals, tangents)):
        _check_tangent(x, t, f"tangents[{index}]")
    plan = call_plan(f, primals, {})
    targs = (None,) * plan.skip + tangents
    # attribute writes: the reverse ledger that writes and (over gradient code) its backward
    # use, and the book of the written attributes' tangents (calls/forward_objects.py)
    ledger = ObjectLedger()  # (this call's own, as every zp.gradient call has its own)
    book = ObjectTangents(at_call_state=undo_writes)
    with context.using(compiler=FORWARD, collector=None, objects=ledger, object_tangents=book):
        token = context.fresh_items_ahead()  # (runtime/iterators.py: begin_ahead)
        try:
            y, dy = forward_dispatch.apply(plan.fn, None, plan.args, plan.kwargs, targs, {}, None)
        except ZygoteError as err:  # a helper's refusal, at the user's line (api._run)
            if placed_at_user_line(err) is err:
                raise
            raise placed_at_user_line(err) from None
        except NotImplementedError as err:
            refusal = refused_by_rule(err)  # a rule refusing the arguments it got
            if refusal is None:
                raise
            raise refusal from None
        except RecursionError:
            raise ZygoteError("the recursion is too deep for forward mode, which takes a few "
                              "Python frames per call of a transformed function",
                              hint="raise sys.setrecursionlimit, or use reverse mode") from None
        except Exception as err:
            ahead = items_ahead_error(err)  # an iterator's item computed ahead raised
            if ahead is None:
                raise
            raise ahead from err
        finally:
            context.restore_items_ahead(token)
        if ledger.log and not undo_writes:
            ledger.replay()  # objects as the forward left them (a gradient's backward undid it)
        dy = materialize(y, dy)
        if undo_writes:
            book.undo_writes()
    return y, dense_tangent(dy, y)


def _check_tangent(x, t, where: str) -> None:
    if t is None:
        return
    if isinstance(x, (list, tuple)):
        if not isinstance(t, (list, tuple)) or len(t) != len(x):
            raise ZygoteError(f"{where} must be a list or tuple of {len(x)} tangents, like its primal")
        for i, (xi, ti) in enumerate(zip(x, t)):
            _check_tangent(xi, ti, f"{where}[{i}]")
        return
    if isinstance(x, dict):
        if not isinstance(t, dict):
            raise ZygoteError(f"{where} must be a dict of tangents, like its primal")
        for k, ti in t.items():
            _check_tangent(x.get(k), ti, f"{where}[{k!r}]")
        return
    if isinstance(x, (np.ndarray, np.generic, float, int, complex)) and not isinstance(x, bool):
        if np.iscomplexobj(t) and not np.iscomplexobj(x):
            raise ZygoteError(f"{where} is complex and its primal real: a real value moves "
                              "along real directions only",
                              hint="pass a complex primal (x + 0j) to move it along complex "
                                   "directions (docs/complex.md)")
        if np.shape(t) != np.shape(x):
            raise ZygoteError(f"{where} has shape {np.shape(t)}, its primal {np.shape(x)}",
                              hint="a tangent has its primal's shape")


def dense_tangent(t, y):
    """t with its zeros (None) written out in y's structure."""
    if isinstance(y, np.ndarray):
        if t is None:
            return np.zeros(y.shape, dtype=y.dtype if y.dtype.kind in "fc" else float)
        return np.broadcast_to(np.asarray(t, dtype=np.result_type(t, float)), y.shape).copy() \
            if np.shape(t) != y.shape else np.asarray(t)
    if isinstance(y, (float, int, complex, np.generic)) and not isinstance(y, bool):
        if t is None:
            return 0j if np.iscomplexobj(y) else 0.0
        return t
    if isinstance(y, tuple) and not hasattr(y, "_fields"):
        items = t if t is not None else (None,) * len(y)
        return tuple(dense_tangent(ti, yi) for ti, yi in zip(items, y))
    if isinstance(y, tuple):  # a NamedTuple
        items = t if t is not None else (None,) * len(y)
        return type(y)(*(dense_tangent(ti, yi) for ti, yi in zip(items, y)))
    if isinstance(y, list):
        items = t if t is not None else [None] * len(y)
        return [dense_tangent(ti, yi) for ti, yi in zip(items, y)]
    if isinstance(y, dict):
        t = t or {}
        return {k: dense_tangent(t.get(k), v) for k, v in y.items()}
    return t


def jacobian(f, *args, mode: str = "auto", **kwargs):
    """The Jacobian of f at args, one array per argument, of shape y.shape + arg.shape.

    mode 'forward' builds it by columns (one jvp per input element), 'reverse' by rows
    (one pullback per output element); 'auto' picks the one with fewer passes: forward
    when the inputs have fewer elements than the output.
    """
    if mode not in _MODES:
        raise ZygoteError(f"zp.jacobian: mode must be one of {_MODES}, got {mode!r}")
    if mode == "auto":
        n_in = sum(int(np.size(a)) for a in args)
        y = f(*args, **kwargs)
        mode = "forward" if n_in < int(np.size(y)) else "reverse"
    if mode == "reverse":
        return _reverse_jacobian(f, *args, **kwargs)
    if any(np.iscomplexobj(a) for a in args):
        raise ZygoteError("zp.jacobian(mode='forward') of a function of complex arguments: "
                          "its derivative is R-linear, not a complex matrix in general",
                          hint="use zp.jvp along the real and imaginary directions (docs/complex.md)")
    g = (lambda *xs: f(*xs, **kwargs)) if kwargs else f
    out = []
    y = None
    first = None
    for i, x in enumerate(args):
        x_arr = np.asarray(x, dtype=float)
        columns = []
        for index in np.ndindex(x_arr.shape):
            e = np.zeros(x_arr.shape)
            e[index] = 1.0
            tangents = [None] * len(args)
            tangents[i] = e if x_arr.shape else 1.0
            last = i == len(args) - 1 and index == tuple(d - 1 for d in x_arr.shape)
            y, dy = _jvp(g, args, tangents, undo_writes=not last)  # (each column: one call)
            first = _same_call(first, y, f)
            columns.append(np.asarray(dy, dtype=np.result_type(dy, float)))
        if y is None:
            y = f(*args, **kwargs)
        y_shape = np.shape(y)
        if not columns:
            out.append(np.zeros(y_shape + x_arr.shape))
            continue
        stacked = np.stack(columns, axis=-1)  # y.shape + (x.size,)
        out.append(stacked.reshape(y_shape + x_arr.shape))
    return tuple(out)


def _gradient_function(f, x):
    """f's compiled gradient with respect to x, as a function of x: x -> (y, (x_bar,))."""
    plan = call_plan(f, (x,), {})
    if plan.skip or plan.kwargs:
        def inner(z):
            return f(z)
        plan = call_plan(inner, (x,), {})
    with context.using(compiler=FORWARD, collector=None):
        entry = FORWARD.entry(plan.fn, plan.active(), "grad", (), plan.scalars())
    return entry.fn


def _over_gradient(grad_fn, x, v, f, last=True):
    """jvp of the compiled gradient; an error inside the generated gradient code is told
    as what it is: this gradient cannot be differentiated again (yet).  Unless last, the
    attributes of objects it wrote are put back as they were (the next column's start)."""
    try:
        return _jvp(grad_fn, (x,), (v,), undo_writes=not last)
    except ZygoteError as err:
        where = getattr(err.loc, "filename", "") or ""
        if where.startswith("<zygote_py:"):
            detail = err.message
        elif where and is_library_file(where):
            # a helper the gradient code calls (a rule's, or a library function's) that
            # forward mode read: its file and line are not the user's (a `with` block in
            # zygote_py's strong-zero repair, say), so they go into the detail
            detail = f"{err.message}, in {shown_path(where)}:{err.loc.line}"
        else:
            raise
        raise type(err)(f"the gradient of {getattr(f, '__name__', f)!r} cannot be differentiated "
                        f"again by forward mode: its generated code does something forward mode "
                        f"does not follow ({detail})", None,
                        "see docs/limitations.md (forward mode and Hessians), or use finite "
                        "differences of zp.gradient") from None


def hvp(f, x, v):
    """The Hessian of the scalar function f at x times v (same shape as x), by
    forward-mode differentiation of f's compiled gradient (forward-over-reverse).  For a
    complex x and direction v: the derivative of the gradient (a covector, docs/complex.md)
    along v."""
    grad_fn = _gradient_function(f, x)
    _, dy = _over_gradient(grad_fn, x, v, f)
    hv = real_where_real(dy[1][0], x)
    if isinstance(x, np.ndarray):
        return dense_tangent(hv, np.asarray(x, dtype=np.result_type(x, float)))
    return hv


def hessian(f, x):
    """The Hessian of the scalar function f at x: shape x.shape + x.shape (a float for a
    float x), one forward-over-reverse product per element of x."""
    if np.iscomplexobj(x):
        raise ZygoteError("zp.hessian of a function of a complex argument: its second "
                          "derivative is R-bilinear, not a complex matrix in general",
                          hint="use zp.hvp(f, z, v) along complex directions v (docs/complex.md)")
    grad_fn = _gradient_function(f, x)
    if not isinstance(x, np.ndarray):
        _, dy = _over_gradient(grad_fn, x, 1.0, f)
        second = real_where_real(dy[1][0], x)
        return 0.0 if second is None else float(second)  # None: the gradient does not move
    columns = []
    final = tuple(d - 1 for d in x.shape)
    first = None
    for index in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[index] = 1.0
        y, dy = _over_gradient(grad_fn, x, e, f, last=index == final)
        first = _same_call(first, y, f)
        columns.append(np.asarray(dense_tangent(real_where_real(dy[1][0], x), x), dtype=float))
    if not columns:
        return np.zeros(x.shape + x.shape)
    return np.stack(columns, axis=-1).reshape(x.shape + x.shape)


def _same_call(first, y, f):
    """Each column of zp.hessian or a forward zp.jacobian is one call of f from the state at
    the call, so each computes the same value (and, for a Hessian, the same gradient).
    A column whose value differs started from another state: code that ran as plain Python
    (no derivative reached it) changed an object the columns could not put back (a
    global's attribute), and the columns after the first would be derivatives of another
    function.  Refused; returns the first column's value."""
    if first is None:
        return (y,)
    if not _equal_values(first[0], y):
        raise ZygoteError(
            f"the columns of this derivative of {getattr(f, '__name__', f)!r} do not all start "
            "from the same state: its value differs between two calls, so code it runs "
            "without derivatives changed state that zygote_py could not put back (an "
            "attribute of an object that code was not given, a global)", None,
            "pass that object to the code that changes it, keep the change in code that "
            "carries a derivative, or take the columns one at a time with zp.hvp / zp.jvp")
    return first


def _equal_values(a, b) -> bool:
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_equal_values(p, q) for p, q in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal_values(a[k], b[k]) for k in a)
    try:  # (the same code on the same inputs: equal to rounding, whatever a BLAS does)
        return np.shape(a) == np.shape(b) and \
            bool(np.allclose(a, b, rtol=1e-10, atol=0.0, equal_nan=True))
    except (TypeError, ValueError):
        return a is b or a == b


def real_where_real(t, x):
    """The tangent t of a gradient (a cotangent of x) as the gradient the user sees moves:
    its real part where x is real.  A compiled gradient may carry a complex cotangent for a
    real value that passed through complex ones; zygote_py hands out its real part
    (tree.finalize, docs/complex.md), and so the real part of its tangent."""
    if t is None:
        return None
    if isinstance(x, (list, tuple)) and isinstance(t, (list, tuple)) and len(t) == len(x):
        items = [real_where_real(ti, xi) for ti, xi in zip(t, x)]
        return items if type(t) is list else tuple(items)
    if isinstance(x, dict) and isinstance(t, dict):
        return {k: real_where_real(v, x.get(k)) for k, v in t.items()}
    if isinstance(x, (float, int, np.floating, np.integer)) and not isinstance(x, bool) or \
            isinstance(x, np.ndarray) and x.dtype.kind != "c":
        if np.iscomplexobj(t):
            return np.real(t) if isinstance(t, np.ndarray) else float(np.real(t))
    return t


# -- nested derivatives: zygote_py/nested.py (it uses these two) -----------------------------


def nested_refusal(err, what: str):
    """An error raised inside generated gradient code while a nested derivative runs forward
    mode over it, told as what it is: that code cannot be differentiated again (yet); None
    for any other error (raised as it is)."""
    where = getattr(getattr(err, "loc", None), "filename", "") or ""
    if not isinstance(err, ZygoteError) or not where.startswith("<zygote_py:"):
        return None
    third = any(f"reaches zygote_py.{module}." in err.message
                for module in ("api", "forward_api", "nested"))
    if third:  # the inner function itself calls zp.gradient, zp.pullback, zp.jvp, ...
        hint = ("third derivatives (zp.gradient, zp.pullback or zp.jvp nested two deep) are "
                "not supported yet; see docs/limitations.md")
    else:
        hint = ("the inner function's gradient code does something forward mode does not "
                "follow yet; see docs/limitations.md (forward mode and Hessians)")
    return NoDerivativeRule(
        f"zp.{what} inside a function being differentiated: forward mode over the inner "
        f"function's gradient code meets something it does not follow ({err.message})", None,
        hint)


def _is_data(value) -> bool:
    return not isinstance(value, (types.ModuleType, type, types.FunctionType,
                                  types.BuiltinFunctionType, types.MethodType, str, bytes, bool,
                                  type(None)))
