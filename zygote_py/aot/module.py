"""Ahead-of-time gradients: one function in, the text of a standalone module out.

`standalone_module(f)` compiles f's gradient (or pullback) with zygote_py,
then has a `standalone.Builder` write it, everything it reads, and two entry
points (`grad_<f>` / `value_and_grad_<f>`, or `pullback_<f>`) as a module
that imports only NumPy and the standard library.  With example arguments
the code is specialised as a call with such arguments would be, and the
gradient is run once so that run-time dispatch (methods of arguments,
functions passed as values) can be resolved ahead of time.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import numbers

import numpy as np

from .. import __version__, context
from ..calls import dispatch
from ..runtime.built_objects import ObjectLedger
from ..analysis.receivers import assumed_array_params
from ..api import _prepare, scalar_kinds
from ..compiler import COMPILER
from ..errors import ZygoteError
from . import standalone_runtime as sr
from .record import Recording
from .builder import Builder, NotStandalone, display_path
from .common import not_standalone_utility
from .sourcecopy import free_globals


def _active_from_wrt(fn, wrt) -> tuple:
    code = fn.__code__
    names = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    if wrt is None:
        return tuple(True for _ in names)
    unknown = [w for w in wrt if w not in names]
    if unknown:
        raise ZygoteError(f"--wrt names {', '.join(unknown)}, which {fn.__name__} has no parameter called",
                          hint=f"its parameters are: {', '.join(names)}")
    return tuple(n in wrt for n in names)


def _example_active(fn, args, wrt) -> tuple:
    """Which parameters are differentiated at these example arguments (and named in wrt)."""
    _, full_args, active, _ = _prepare(fn, tuple(args))
    if wrt is not None:
        wanted = _active_from_wrt(fn, wrt)
        active = tuple(a and (i >= len(wanted) or wanted[i]) for i, a in enumerate(active))
    return active


def _example_run(fn, args, active, mode: str) -> Recording:
    # the compiled code is run directly, so the Context names the compiler dispatch uses
    with Recording() as rec, context.using(compiler=COMPILER, collector=None,
                                           objects=ObjectLedger()):
        try:
            _, full_args, _, _ = _prepare(fn, tuple(args))
            entry = COMPILER.entry(fn, active, mode, (), scalar_kinds(full_args))
            y, back = entry.fn(*full_args)
            if mode == "pullback":
                back(np.ones_like(y) if isinstance(y, np.ndarray) else 1.0)
                del back  # (it holds what the run claimed)
        finally:
            rec.restore_claimed()  # global lists and dicts: as before the run
    return rec


def _dynamic_sites(builder: Builder, compiled) -> list:
    """(SourceLoc, what) of the run-time dispatch calls whose callee needs example arguments.

    Callees named in the code (`min(*xs)`) are noted on the builder: their rules are
    static.  Methods, functions passed as values, and Python functions called with
    `*args` need a pullback specialised on the kinds of their arguments."""
    out, seen, todo = [], set(), [compiled]
    while todo:
        unit = todo.pop()
        unit = getattr(unit, "impl", unit)  # a recursive pullback's stand-in
        gen = getattr(unit, "_zp_generated", None)
        if gen is None or id(unit) in seen:
            continue
        seen.add(id(unit))
        bound = gen.binder.bound
        todo += [o for o in bound.values() if hasattr(o, "_zp_generated") or hasattr(o, "impl")]
        tree = ast.parse(gen.text)
        local = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        local |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments)
                  for a in (*n.posonlyargs, *n.args, *n.kwonlyargs, n.vararg, n.kwarg) if a is not None}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) >= 4):
                continue
            helper = bound.get(node.func.id)
            loc = bound.get(getattr(node.args[-1], "id", None))
            if helper is dispatch.call_method:
                out.append((loc, f"the method call .{ast.literal_eval(node.args[1])}(...)"))
            elif helper is dispatch.call:
                callee = _resolve(node.args[0], bound, unit.__globals__, local)
                refused = not_standalone_utility(callee)
                if refused is not None:  # zp.checkpointed, a zp.no_grad function: by name
                    raise NotStandalone(refused[0], loc, refused[2])
                if callee is not None:
                    builder.static_callees.append(callee)
                if callee is None or not _rule_known(callee):
                    out.append((loc, "a call whose callee (or its argument kinds) is only known at run time"))
    return out


def _resolve(node, bound: dict, namespace: dict, local: set):
    """The object a callee expression (`min`, `np.max`, `_zp_f`) names, or None."""
    if isinstance(node, ast.Attribute):
        base = _resolve(node.value, bound, namespace, local)
        return getattr(base, node.attr, None) if base is not None else None
    if not isinstance(node, ast.Name) or node.id in local:
        return None
    if node.id in bound:
        return bound[node.id]
    if node.id in namespace:
        return namespace[node.id]
    return getattr(builtins, node.id, None)


def _rule_known(f) -> bool:
    from ..rules import registry

    try:
        return bool(registry.custom_rule(f) or registry.function_rule(f) or registry.is_nondifferentiable(f))
    except TypeError:
        return False


def _signature(fn) -> tuple[str, str]:
    """(parameters for the entry points, the argument tuple they pass on)."""
    sig = inspect.signature(fn, follow_wrapped=False)
    simple = all(p.kind == p.POSITIONAL_OR_KEYWORD and p.default is p.empty for p in sig.parameters.values())
    if simple:
        names = list(sig.parameters)
        return ", ".join(names), "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"
    return "*args", "args"


def standalone_module(fn, *, wrt=None, mode: str = "grad", args=None) -> str:
    """The text of a module computing fn's gradient (mode 'grad') or pullback ('pullback')."""
    fn = getattr(fn, "_zp_original", fn)
    if not inspect.isfunction(fn):
        raise ZygoteError(f"{fn!r} is not a Python function", hint="name a function defined with def")
    recording = None
    checked = []  # (position, name) of the arguments the entry points check are arrays
    if args is not None:
        active = _example_active(fn, args, wrt)
        recording = _example_run(fn, args, active, mode)
        _, full_args, _, _ = _prepare(fn, tuple(args))
        entry = COMPILER.entry(fn, active, mode, (), scalar_kinds(full_args))
    else:
        active = _active_from_wrt(fn, wrt)
        entry = COMPILER.entry(fn, active, mode)
        checked = _assumed_arrays(fn)
    builder = Builder(recording)
    sites = _dynamic_sites(builder, entry.fn)
    if sites and recording is None:
        loc, what = sites[0]
        raise NotStandalone(f"{what} is resolved while running; a standalone module needs to know "
                            "its callee ahead of time", loc,
                            "pass example arguments with --args SPEC (e.g. --args 3x4,scalar): the "
                            "gradient is run once and every callee it reaches is written out")
    inner = builder.atom(entry.fn)
    builder.prepare_tables()  # the callees dispatch reaches: their code too, before deciding
    params, arg_tuple = _signature(fn)
    name = builder.atom(fn, fn.__name__)  # a module-level lambda is known by its variable
    if builder.writes_state():  # objects or containers written: run as zp.gradient runs it
        runner = builder.atom(sr.value_and_gradients if mode == "grad" else sr.value_and_pullback)
        public = _stateful_entry_points(name, mode, params, arg_tuple, inner, runner)
    else:
        public = _entry_points(name, mode, params, arg_tuple, inner, builder.atom(sr.finalize_all))
    if checked:  # the first entry point is the one that calls the compiled code
        check = f"    {builder.atom(sr.check_assumed_arrays)}({arg_tuple}, {checked!r})\n"
        public[0] = _after_docstring(public[0], check)
    for text in public:  # the entry points must not shadow anything the module defines
        for defined in ast.parse(text).body:
            if defined.name in builder.owner:
                raise NotStandalone(f"the module would define {defined.name} twice", hint="rename it")
    code = fn.__code__
    wrt_names = [n for n, a in zip(code.co_varnames, active) if a]
    where = display_path(code.co_filename, fn.__module__)
    docstring = _docstring(name, mode, params, wrt_names, where, args, [n for _, n in checked])
    text = builder.text(docstring, public)
    _check_closed(text)
    return text


def _assumed_arrays(fn) -> list[tuple[int, str]]:
    """(position, name) of the parameters that code compiled with no example arguments
    takes to be arrays or numbers where it matters (analysis/receivers.py): the entry
    points check them, since another object would get NumPy's derivative of its methods."""
    ir = COMPILER.lowered_ir(fn)
    names = ir.signature.names
    positional = ir.signature.positional
    defaults = fn.__defaults__ or ()
    out = []
    for index in assumed_array_params(ir):
        name = names[index]
        first_default = len(positional) - len(defaults)
        default_ok = index < first_default or index < len(positional) and isinstance(
            defaults[index - first_default], (np.ndarray, np.generic, numbers.Number))
        if index >= len(positional) or not default_ok:
            raise NotStandalone(
                f"without example arguments, {fn.__name__}'s parameter {name!r} is taken to be an "
                "array or a number, which the module cannot check for it",
                hint="pass example arguments with --args SPEC (e.g. --args 3x4,scalar)")
        out.append((index, name))
    return out


def _after_docstring(function_text: str, line: str) -> str:
    """function_text (a def whose docstring is one line) with line as its first statement."""
    head, docstring, rest = function_text.split("\n", 2)
    return f"{head}\n{docstring}\n{line}{rest}"


def _entry_points(name, mode, params, arg_tuple, inner, finalize_all) -> list[str]:
    if mode == "grad":
        return [
            f"def value_and_grad_{name}({params}):\n"
            f'    """{name}({params}) and its gradient: one entry per argument (None: zero)."""\n'
            f"    y, bars = {inner}({params})\n"
            f"    return y, {finalize_all}(bars, {arg_tuple})\n",
            f"def grad_{name}({params}):\n"
            f'    """The gradient of {name} at ({params}): one entry per argument, shaped like it."""\n'
            f"    return value_and_grad_{name}({params})[1]\n"]
    return [
        f"def pullback_{name}({params}):\n"
        f'    """({name}({params}), back): back(dy) gives one cotangent per argument (None: zero)."""\n'
        f"    y, inner = {inner}({params})\n\n"
        "    def back(dy):\n"
        "        if dy is None:\n"
        f"            return (None,) * len({arg_tuple})\n"
        f"        return {finalize_all}(inner(dy), {arg_tuple})\n\n"
        "    return y, back\n"]


def _stateful_entry_points(name, mode, params, arg_tuple, inner, runner) -> list[str]:
    """The entry points of a module whose code builds or writes objects, or updates lists
    and dicts in place: they run the compiled code with a ledger of the call's objects."""
    if mode == "grad":
        return [
            f"def value_and_grad_{name}({params}):\n"
            f'    """{name}({params}) and its gradient: one entry per argument (None: zero)."""\n'
            f"    return {runner}({inner}, {arg_tuple})\n",
            f"def grad_{name}({params}):\n"
            f'    """The gradient of {name} at ({params}): one entry per argument, shaped like it."""\n'
            f"    return value_and_grad_{name}({params})[1]\n"]
    return [
        f"def pullback_{name}({params}):\n"
        f'    """({name}({params}), back): back(dy) gives one cotangent per argument (None: zero)."""\n'
        f"    return {runner}({inner}, {arg_tuple})\n"]


def _docstring(name, mode, params, wrt_names, where, args, checked_names=()) -> str:
    lines = [f"{'Gradient' if mode == 'grad' else 'Pullback'} of `{name}` from {where}, "
             f"generated by zygote-py {__version__}.", "",
             "Standalone: this module imports only NumPy and the Python standard library;",
             "it defines the function, the code it calls, and their derivatives.", "", "Usage:", ""]
    if mode == "grad":
        lines += [f"    grads = grad_{name}({params})             # one entry per argument",
                  f"    y, grads = value_and_grad_{name}({params})"]
    else:
        lines += [f"    y, back = pullback_{name}({params})",
                  "    grads = back(dy)                      # dy shaped like y"]
    lines += ["", "A gradient has the type and shape of its argument; None means zero.",
              f"Differentiated with respect to: {', '.join(wrt_names) or 'nothing'}."]
    if args is not None:
        kinds = ", ".join(_kind(a) for a in args)
        lines.append(f"Specialised for (and checked at) arguments like: {kinds}.")
    if checked_names:
        lines.append(f"Takes {', '.join(checked_names)} to be NumPy arrays or numbers "
                     "(checked at each call).")
    return "\n".join(lines) + "\n"


def _kind(x) -> str:
    if isinstance(x, np.ndarray):
        return "array " + "x".join(map(str, x.shape)) if x.shape else "0-d array"
    return type(x).__name__


def _check_closed(text: str) -> None:
    """Every name the module reads is defined in it (or a builtin): no zygote_py left."""
    missing = [n for n in free_globals(text) if not hasattr(builtins, n)]
    if missing:
        raise NotStandalone(f"internal: the standalone module reads undefined names {', '.join(missing)}",
                            hint="report this as a bug")
