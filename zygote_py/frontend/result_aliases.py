"""What a called function's result may share memory with: the callee's *result-alias summary*.

The may-alias classes of lower_writes.py join an op's result with its operands: a value
may share memory with what it was computed from.  For a call of a Python function that
is the whole argument list, so `smoke = advect(smoke0, vx, vy)` would put a fresh array
in the class of the global `smoke0`, and a later write into it would be refused.  The
lowering of the callee knows better: the alias class of the value it returns says which
of its parameters (and whether a module global or closure value) the result may share
memory with.  That is the summary, computed when the callee is lowered (before its
callers, as the parameters it writes into are) and read by every caller:

- `frozenset()`: fresh, sharing memory with nothing the caller can reach;
- `frozenset({0, 2})`: may share memory with the arguments bound to parameters 0 and 2
  (a view of one, one of them returned, a container holding one);
- `EXTERNAL` in the set: may be (a view of) a module global or closure value;
- `None`: unknown (the caller joins the result with every argument, as before).

A summary is only as good as what the callee's classes know, so a class that took in a
value whose memory may come from somewhere none of its operands lead to is *opaque*
(`AliasClass.opaque`), and a result in an opaque class has no summary.  Opaque are the
results of: a call of a callable value, of a function or class of the user's without a
summary (a class's `__init__` may store anything), of a custom rule, of anything not
known to be NumPy, SciPy, the operator module, math, zygote_py's run-time helpers or one
of the builtins listed below, and of a method whose name is not an ndarray method.  A
method named like an ndarray method (`.ravel()`, `.astype()`) is taken to return a view
or copy of its receiver, as NumPy's do; that is checked while running where the summary
rests on it (`alias_checks.check_array_method`, put before the method call by
`guard_array_methods`): a receiver that is not an ndarray or a number is a
`MutationError`, never a guess.  A mutable constant (an array the IR holds as a
constant) makes whatever is computed from it opaque.

Recursion: the compiler answers a call of a function still being lowered with the
summary assumed so far (at first: fresh) and lowers it again until the summary agrees
(compiler.py: `_lower`); summaries only grow, so this ends.
"""

from __future__ import annotations

import builtins
import inspect
import types

import numpy as np

from ..resolve import FUNCTION, resolve
from ..rules import registry
from ..runtime import alias_checks
from ..runtime.alias_checks import EXTERNAL, bind_parameters, summary_positions
from ..runtime.library_code import is_library_function


# builtins whose result is new or reached from their arguments (never another object)
_PLAIN_BUILTINS = frozenset(getattr(builtins, n) for n in (
    "abs", "all", "any", "bool", "complex", "dict", "divmod", "enumerate", "filter", "float",
    "frozenset", "getattr", "hasattr", "hash", "id", "int", "isinstance", "issubclass", "iter",
    "len", "list", "max", "min", "next", "pow", "print", "range", "repr", "reversed", "round",
    "set", "slice", "sorted", "str", "sum", "tuple", "type", "zip", "map"))
# modules whose functions return new objects or objects reached from their arguments
_LIBRARY_MODULES = ("numpy", "scipy", "math", "cmath", "operator", "_operator",
                    "zygote_py.runtime.", "zygote_py.calls.", "zygote_py.rules.")


def join(a, b):
    """The summary of a value that may be either: None (unknown) absorbs."""
    if a is None or b is None:
        return None
    return a | b


def _library_callable(fn) -> bool:
    """Whether fn is library code whose result comes from its arguments or is new."""
    try:
        if fn in _PLAIN_BUILTINS:
            return True
    except TypeError:  # unhashable
        return False
    if isinstance(fn, np.ufunc):
        return True
    if isinstance(fn, type):  # a class: only NumPy's and the builtin containers
        module = getattr(fn, "__module__", "") or ""
        return module == "numpy" or fn in (list, tuple, dict, set, frozenset)
    if isinstance(fn, (types.FunctionType, types.MethodType)) and not is_library_function(fn):
        return False  # the user's own code
    module = getattr(fn, "__module__", None) or ""
    if not any(module == m.rstrip(".") or module.startswith(m if m.endswith(".") else m + ".")
               for m in _LIBRARY_MODULES):
        return False
    try:
        return registry.custom_rule(fn) is None  # a custom rule is the user's code
    except TypeError:
        return True


def mutable_constant(value) -> bool:
    """A constant that is memory a write could reach (an array, a list, an object), as
    opposed to a literal or a callee named in the source."""
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes, type,
                                           types.FunctionType, types.BuiltinFunctionType,
                                           types.ModuleType, np.ufunc, np.generic, slice,
                                           range, type(Ellipsis), types.MethodType)):
        return False
    if isinstance(value, (tuple, frozenset)):
        return any(mutable_constant(v) for v in value)
    if isinstance(value, (np.ndarray, list, dict, set, bytearray)):
        return True
    # zygote_py's own records (a SourceLoc passed to a helper) are never written
    module = getattr(type(value), "__module__", "") or ""
    return not module.startswith("zygote_py.") and not callable(value)


def summarised_function(fn) -> bool:
    """Whether a call of fn can be given a summary: a Python function of the user's with
    named parameters only, whose source zygote_py lowers."""
    if not isinstance(fn, types.FunctionType) or is_library_function(fn):
        return False
    try:
        if resolve(fn, registry).kind != FUNCTION:
            return False
        params = inspect.signature(fn, follow_wrapped=False).parameters.values()
    except (TypeError, ValueError):
        return False
    return not any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)


def _current_value(pyfn, opcode: str, name: str):
    """(found, value) of the module global or closure cell name of pyfn, now."""
    if opcode == "global":
        namespace = getattr(pyfn, "__globals__", {})
        return (name in namespace), namespace.get(name)
    code, cells = getattr(pyfn, "__code__", None), getattr(pyfn, "__closure__", None) or ()
    if code is None or name not in code.co_freevars:
        return False, None
    try:
        return True, cells[code.co_freevars.index(name)].cell_contents
    except ValueError:  # an empty cell
        return False, None


def _defining_class(pyfn):
    """The class a function was defined in (read from its qualified name: `Sim.step`), when
    it is reachable from its module's globals; None otherwise."""
    parts = getattr(pyfn, "__qualname__", "").split(".")
    if len(parts) < 2 or "<locals>" in parts:
        return None
    obj = getattr(pyfn, "__globals__", {}).get(parts[0])
    for part in parts[1:-1]:
        obj = getattr(obj, part, None)
    if not isinstance(obj, type) or inspect.getattr_static(obj, parts[-1], None) is not pyfn:
        return None
    return obj


class ResultAliasLowering:
    """Mixin of the Lowerer: calls whose result follows the callee's summary, and the
    summary of the function being lowered."""

    def callee_summary(self, fn):
        """The summary of fn (None: unknown, or not asked)."""
        ask = self.result_aliases
        if ask is None or not summarised_function(fn):
            return None
        return ask(fn)

    def opaque_result(self, op) -> bool:
        """Whether op's result may share memory with an object none of its operands lead to
        (module docstring).  Methods named like an ndarray's are noted for the guard."""
        code = op.opcode
        if code == "callv":
            return True
        if code == "method":
            name = op.attrs["name"]
            if not hasattr(np.ndarray, name) or name.startswith("_"):
                return True
            self.root_lowerer().array_methods.append(op)
            return False
        if code == "call":
            return not _library_callable(op.attrs["fn"])
        return False

    def join_summarised(self, result, fn, summary, operands, kw, node_name: str) -> None:
        """result (of a call of fn with operands, keywords kw) joins the class of the
        arguments bound to the parameters in summary; EXTERNAL or a parameter's default
        value makes the class refer to memory outside the function."""
        info = self.alias_class(result)
        info.shared = True
        binding = bind_parameters(fn, len(operands) - len(kw), kw)
        if binding is None:  # (cannot happen for a call that lowered; be safe)
            for operand in operands:
                self.alias_union(result, operand)
            self.alias_class(result).opaque = True
            return
        names = list(inspect.signature(fn, follow_wrapped=False).parameters)
        for item in sorted(summary, key=str):
            if item == EXTERNAL:
                self.alias_class(result).external = \
                    f"a module global or closure value that {node_name}() may return"
            elif binding[item] is None:
                self.alias_class(result).external = \
                    f"the default value of {node_name}()'s parameter {names[item]!r}"
            else:
                self.alias_union(result, operands[binding[item]])

    def summarised_method(self, op) -> bool:
        """`obj.name(args)` on a module global or closure value obj, or on `self` in a method
        of a class, whose class defines name as a Python function with a summary: the
        result joins what the summary names (obj is parameter 0), under a check while
        running that obj.name is that function (`alias_checks.check_method_is`).  False
        when the method cannot be summarised."""
        if op.attrs["star"] or None in op.attrs["kw"]:
            return False
        receiver = op.operands[0]
        owner = receiver.defining_op
        root = self.root_lowerer()
        obj = None
        if owner is not None and owner.opcode in ("global", "cell"):
            found, obj = _current_value(root.pyfn, owner.opcode, owner.attrs["name"])
            if not found or isinstance(obj, (type, types.ModuleType)):
                return False
            cls = type(obj)
        elif root.root_block is not None and root.root_block.args and \
                receiver is root.root_block.args[0]:
            cls = _defining_class(root.pyfn)  # self.name(...) in a method of cls: the method
            if cls is None:  # cls defines, checked while running (a subclass may override it)
                return False
        else:
            return False
        name = op.attrs["name"]
        try:
            fn = inspect.getattr_static(cls, name)
        except AttributeError:
            return False
        if not isinstance(fn, types.FunctionType) or name in getattr(obj, "__dict__", {}) or \
                cls.__getattribute__ is not object.__getattribute__ or \
                getattr(cls, "__getattr__", None) is not None:
            return False
        summary = self.callee_summary(fn)
        if summary is None:
            return False
        self.join_summarised(op.result, fn, summary, op.operands, op.attrs["kw"],
                             f"{cls.__name__}.{name}")
        kw = tuple(op.attrs["kw"])
        call = (len(op.operands) - len(kw), kw)
        self.builder.call(alias_checks.check_method_is, receiver, self.builder.const(name),
                          self.builder.const(fn),
                          self.builder.emit("const", (), attrs={"value": op.loc, "expr": "loc"}).result,
                          self.builder.const(summary_positions(fn, summary, *call)),
                          self.builder.const(call),
                          expr="_zp_check_method_is")
        return True

    def summary_of_result(self, result):
        """The summary of the function being lowered, whose return value is result."""
        op = result.defining_op
        if op is not None and op.opcode == "const":
            return None if mutable_constant(op.attrs["value"]) else frozenset()
        info = self.alias_class(result)
        if info.opaque:
            return None
        return frozenset(info.params) | ({EXTERNAL} if info.external else frozenset())

    def guard_array_methods(self, result) -> None:
        """Before every ndarray-named method call whose result is in the returned value's
        class, a check while running that its receiver is an ndarray or a number (the
        summary rests on it)."""
        root = self.alias_root(result)
        for op in self.root_lowerer().array_methods:
            if op.result.id not in self.alias_parent or self.alias_root(op.result) != root:
                continue
            block = op.block
            if block is None:
                continue
            index = next(i for i, o in enumerate(block.ops) if o is op)
            with self.builder.at(block, index):
                self.builder.call(alias_checks.check_array_method, op.operands[0],
                                  self.builder.const(op.attrs["name"]),
                                  self.builder.emit("const", (), attrs={
                                      "value": op.loc, "expr": "loc"}).result,
                                  expr="_zp_check_array_method")
