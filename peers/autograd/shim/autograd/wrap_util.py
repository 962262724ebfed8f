"""Selecting the argument to differentiate: autograd's `argnum` convention on zygote_py.

autograd's operators take `fun(*args, **kwargs)` and differentiate with
respect to `args[argnum]` (or a tuple of several).  zygote_py differentiates
every positional argument of the function it is given, and takes no keyword
arguments, so `bind_argument` writes a one-argument function whose body is the
plain call `fun(a0, x, a2, axis=k_axis)`: the other arguments and the keyword
arguments are closure cells (constants to zygote_py).  The function is made
from generated source registered in linecache, because zygote_py reads the
source of what it differentiates; its text has no `*args` so that the shim
tests zygote_py's handling of the test's own code, not of the shim's.  An operator
called inside a function being differentiated (`grad(grad(f))`, check_grads at
order 2) runs `nary_f` and `bind_argument` transformed by zygote_py, so they are
written in the Python zygote_py differentiates (no attribute writes on the
functions they make).
"""

from __future__ import annotations

import functools
import itertools
import keyword
import linecache
import re

import zygote_py as zp

_COUNTER = itertools.count()


def get_name(fun) -> str:
    return getattr(fun, "__name__", "[unknown name]")


@functools.cache
def _binder(n_args: int, argnum, kw_names: tuple, name: str):
    """A maker `(fun, *constants) -> unary_f` for one call shape, compiled from source; the
    function it makes is named after fun (made an identifier)."""
    selected = (argnum,) if isinstance(argnum, int) else tuple(argnum)
    constants = [f"a{i}" for i in range(n_args) if i not in selected]
    kw_cells = [f"k_{kw}" for kw in kw_names]
    call_args = []
    for i in range(n_args):
        if i not in selected:
            call_args.append(f"a{i}")
        elif isinstance(argnum, int):
            call_args.append("x")
        else:
            call_args.append(f"x[{selected.index(i)}]")
    call_args += [f"{kw}=k_{kw}" for kw in kw_names]
    params = ", ".join(["fun", *constants, *kw_cells])
    def_name = re.sub(r"\W", "_", name)
    if not def_name.isidentifier() or keyword.iskeyword(def_name):
        def_name = "f_" + def_name
    while def_name in ("fun", "x", "make_unary", *constants, *kw_cells):
        def_name += "_"  # never the name of what the function reads
    source = (f"def make_unary({params}):\n"
              f"    def {def_name}(x):\n"
              f"        return fun({', '.join(call_args)})\n"
              f"    return {def_name}\n")
    filename = f"<autograd-shim-bind-{next(_COUNTER)}>"
    lines = source.splitlines(keepends=True)
    linecache.cache[filename] = (len(source), None, lines, filename)  # mtime None: kept by checkcache
    namespace: dict = {}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102  (source built above, no input)
    return namespace["make_unary"], tuple(i for i in range(n_args) if i not in selected)


def bind_argument(fun, args: tuple, kwargs: dict, argnum=0):
    """(unary_f, x): unary_f(x) == fun(*args, **kwargs) with x put at position(s) argnum.

    Written so that zygote_py can differentiate through it (an operator such as `grad`
    called inside a function being differentiated runs this code transformed): no
    attribute writes, no generator expressions, and what only depends on the call's
    shape computed by `_binder` from values that carry no derivative.
    """
    if not isinstance(argnum, (int, tuple, list)):
        raise TypeError(f"argnum must be an int or a tuple of ints, got {argnum!r}")
    if not isinstance(argnum, int):
        argnum = tuple(argnum)
    make, constant_positions = _binder(len(args), argnum, tuple(kwargs),
                                       get_name(zp.stop_gradient(fun)))
    constants = [args[i] for i in constant_positions]
    unary_f = make(fun, *constants, *kwargs.values())
    if isinstance(argnum, int):
        return unary_f, args[argnum]
    return unary_f, tuple([args[i] for i in argnum])


def _named(function, name: str, original) -> None:
    function.__name__ = function.__qualname__ = name
    function.__doc__ = getattr(original, "__doc__", None)


def unary_to_nary(unary_operator):
    """operator(fun, x, ...) -> operator(fun, argnum=0, ...)(*args, **kwargs), as autograd's."""

    # Names are copied by hand, not with functools.wraps: its __wrapped__ would send
    # zygote_py (which follows __wrapped__) to the unary function when a test calls an
    # operator inside differentiated code, and the report would blame a signature mismatch.
    def nary_operator(fun, argnum=0, *op_args, **op_kwargs):
        def nary_f(*args, **kwargs):
            unary_f, x = bind_argument(fun, args, kwargs, argnum)
            return unary_operator(unary_f, x, *op_args, **op_kwargs)

        # autograd's name, made an identifier: zygote_py builds generated names from __name__.
        # Set by a call on zp.stop_gradient(nary_f), which carries no derivative: inside a
        # function being differentiated (grad(grad(f))) that call then runs as it is.
        name = f"{unary_operator.__name__}_of_{get_name(zp.stop_gradient(fun))}_wrt_argnum_{argnum}"
        _named(zp.stop_gradient(nary_f), re.sub(r"\W", "_", name), zp.stop_gradient(fun))
        return nary_f

    nary_operator.__name__ = nary_operator.__qualname__ = unary_operator.__name__
    nary_operator.__doc__ = unary_operator.__doc__
    return nary_operator
