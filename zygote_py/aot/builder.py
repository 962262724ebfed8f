"""Standalone gradient modules: what `zygote-py grad` writes.

The compiled gradient of a function reads objects through closure variables
(`_zp_accum`, the pullback of a helper, a source location) and the user's
globals.  A standalone module must define every one of them itself, using
only NumPy and the standard library, so this builder walks the generated code
and writes each object it reads as source:

  - the user's functions and classes: their own source text (decorators
    dropped), with the globals they read, recursively;
  - zygote_py's helpers and rule functions: their source, copied with what
    they read and renamed `_zp_...`;
  - pullbacks of called user functions: their generated text, the names
    renamed consistently across the module (a closure's pullback becomes a
    factory over the closure's variables);
  - plain values (numbers, arrays, containers, instances of the user's
    classes, closures): expressions that rebuild them exactly.

Calls the compiler resolves only at run time (a method of an argument, a
function passed as a value) go through a small dispatcher copied from
`standalone_runtime.py`, which looks callees up in tables filled ahead of
time: rules of statically named callees, plus -- when example arguments are
given -- the pullbacks and rules that a gradient at those arguments reached
(recorded while zygote_py computes it).  Without examples such a call is a
`NotStandalone` error at its source location.  The output is deterministic:
names are given in the order the code is walked and files are shown by
module path (`pkg/mod.py`), never by absolute path.

`Builder` is put together from parts: this module holds its namespace, the
expressions for objects (`atom`: literals, library paths, values, instances)
and the copies of zygote_py's helpers; `standalone_user.py` copies the user's
code, `standalone_units.py` writes the generated pullbacks, and
`standalone_layout.py` writes the dispatch tables and assembles the text.
`standalone_common.py` holds what they share (`NotStandalone`, `display_path`).
"""

from __future__ import annotations

import ast
import functools
import sys
import types

import numpy as np

from .. import context, errors
from ..calls import dispatch
from ..errors import SourceLoc
from ..runtime import built_objects, outside_containers, writes
from ..runtime import helpers as runtime
from . import standalone_runtime as sr
from .common import NotStandalone, display_path, hashable, is_internal, not_standalone_utility
from .layout import ModuleLayout
from .record import Recording
from .sourcecopy import (
    array_literal,
    definition_source,
    free_globals,
    is_builtin_name,
    numpy_scalar_literal,
    plain_literal,
    rename,
    strip_unresolved_annotations,
)
from .units import GeneratedCode
from .user_code import UserCode

__all__ = ["Builder", "NotStandalone", "display_path"]

# zygote_py objects the generated code (or a helper copied into the module) reads, and their
# standalone stand-ins: run-time dispatch reads the tables; the context module and the error
# classes are replaced by plain ones, so that runtime/built_objects.py (objects built and
# written in the call) is copied as it is
_OVERRIDES = {runtime.check_scalar: sr.check_scalar, dispatch.call: sr.call,
              dispatch.call_method: sr.call_method, dispatch.attribute_cotangent: sr.attribute_cotangent,
              dispatch.ints_are_reals: sr.ints_are_reals,
              context: sr.CallContext, errors.ZygoteError: sr.ZygoteError,
              errors.MutationError: sr.MutationError, errors.NoDerivativeRule: sr.NoDerivativeRule,
              errors.SourceUnavailable: sr.SourceUnavailable,
              errors.UnsupportedSyntax: sr.UnsupportedSyntax, built_objects.super_of: sr.super_of,
              writes._object_ledger: sr.object_ledger,
              outside_containers.claim_outside: sr.claim_outside}
_TABLES = {id(sr.PULLBACKS): "_ZP_PULLBACKS", id(sr.FUNCTION_RULES): "_ZP_FUNCTION_RULES",
           id(sr.METHOD_RULES): "_ZP_METHOD_RULES", id(sr.CUSTOM_RULES): "_ZP_CUSTOM_RULES",
           id(sr.NONDIFF): "_ZP_NONDIFF", id(sr.ATTR_RULES): "_ZP_ATTR_RULES",
           id(sr.NONDIFF_ATTRS): "_ZP_NONDIFF_ATTRS"}
_LIBRARY_ROOTS = ("numpy",)


def _is_library_module(name: str) -> bool:
    root = name.split(".")[0]
    return root in sys.stdlib_module_names or root in _LIBRARY_ROOTS


class Builder(UserCode, GeneratedCode, ModuleLayout):
    """Collects the definitions of a standalone module; `text()` puts them in order."""

    def __init__(self, recording: Recording | None = None):
        self.recording = recording
        self.by_id: dict[int, str] = {}
        self.owner: dict[str, object] = {}  # module-level name -> object (keeps ids alive)
        self.imports: set[str] = set()
        self.user_defs: list[tuple[tuple, str]] = []
        self.plain_consts: list[str] = []
        self.object_consts: list[str] = []
        self.helpers: list[str] = []
        self.units: list[str] = []
        self.instances: dict[int, str] = {}
        self.late_consts: list[str] = []  # instances of closure pullbacks (after the factories)
        self.factories: dict[int, tuple[str, tuple[str, ...]]] = {}  # id(compiled) -> closure factory
        self.tables_used: set[str] = set()
        self.static_callees: list = []  # callees named at a dynamic call site
        self.copied_modules: set[str] = set()  # the zygote_py modules helpers were copied from
        self.tables: list[str] | None = None  # the dispatch tables, once written

    # -- names ----------------------------------------------------------------
    def claim(self, name: str, obj) -> None:
        if name in self.owner and self.owner[name] is not obj:
            raise NotStandalone(f"two different objects are both called {name!r}; the standalone "
                                "module has one namespace", hint="rename one of them")
        self.owner[name] = obj
        self.by_id[id(obj)] = name

    def fresh(self, base: str, obj) -> str:
        name, n = base, 1
        while name in self.owner or is_builtin_name(name):
            n += 1
            name = f"{base}_{n}"
        self.claim(name, obj)
        return name

    # -- objects as expressions ---------------------------------------------------
    def atom(self, obj, hint: str = "obj") -> str:
        """An expression (a name, a dotted path or a literal) for obj in the module."""
        if id(obj) in _TABLES:
            self.tables_used.add(_TABLES[id(obj)])
            return _TABLES[id(obj)]
        refused = not_standalone_utility(obj)
        if refused is not None:
            raise NotStandalone(*refused)
        literal = plain_literal(obj)
        if literal is not None and len(literal) <= 80:
            return literal
        if getattr(obj, "_zp_generated", None) is not None:
            name = self.unit(obj)
            if id(obj) not in self.factories:
                return name
            return self.instances.get(id(obj)) or self.closure_instance(obj)
        if id(obj) in self.by_id and self.owner.get(self.by_id[id(obj)]) is obj:
            return self.by_id[id(obj)]
        if hashable(obj) and obj in _OVERRIDES:
            return self.atom(_OVERRIDES[obj], hint)
        if type(obj).__name__ == "_LateBound":  # a recursive pullback, complete by now
            return self.atom(obj.impl, hint)
        if isinstance(obj, SourceLoc):
            return repr(self.loc_text(obj))
        if isinstance(obj, types.ModuleType):
            return self.module(obj)
        if isinstance(obj, types.CodeType):
            return self.nested_code(obj)
        if isinstance(obj, (types.FunctionType, type)) and is_internal(obj):
            return self.copy_internal(obj)
        if isinstance(obj, functools._lru_cache_wrapper) and \
                isinstance(obj.__wrapped__, types.FunctionType) and is_internal(obj.__wrapped__):
            # one of zygote_py's cached helpers (einsum's contraction path): its source, with
            # its decorator, is copied as any other helper's
            return self.copy_internal(obj.__wrapped__)
        library = self.library_path(obj)
        if library is not None:
            return library
        if isinstance(obj, types.FunctionType):
            return self.user_function(obj)
        if isinstance(obj, type):
            return self.user_class(obj)
        return self.value(obj, hint)

    def loc_text(self, loc: SourceLoc) -> str:
        return f"{display_path(loc.filename, _module_of_file(loc.filename))}:{loc.line}:{loc.col + 1}"

    def module(self, mod) -> str:
        name = mod.__name__
        if name == "zygote_py" or name.startswith("zygote_py."):
            raise NotStandalone(f"the code reads module {name} (zp.stop_gradient, zp.hook, "
                                "zp.checkpointed, zp.no_grad, ...), which a standalone module "
                                "cannot import", hint="a standalone module imports only NumPy and "
                                "the standard library; differentiate this code with zp.gradient")
        if not _is_library_module(name):
            raise NotStandalone(f"the code reads module {name}, which is neither NumPy nor in the "
                                "standard library", hint="a standalone module imports only those")
        if name == "numpy" or name.startswith("numpy."):
            self.imports.add("import numpy as np")
            return "np" + name[len("numpy"):]
        self.imports.add(f"import {name}")
        return name

    def library_path(self, obj) -> str | None:
        """`np.tanh`, `math.sin`, `operator.add`, `int` for objects of NumPy or the standard library."""
        qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
        if not isinstance(qualname, str) or "<" in qualname or is_internal(obj):
            return None
        candidates = [getattr(obj, "__module__", None), "numpy", "builtins", "math", "operator", "types"]
        if isinstance(obj, np.ufunc):
            candidates.insert(0, "numpy")
        for modname in candidates:
            if not modname or not _is_library_module(modname):
                continue
            module = sys.modules.get(modname)
            target = module
            for part in qualname.split("."):
                target = getattr(target, part, None)
            if target is obj or (target is not None and isinstance(obj, types.BuiltinFunctionType)
                                 and target == obj):
                if modname == "builtins":
                    if qualname.split(".")[0] not in self.owner:
                        return qualname
                    self.imports.add("import builtins")
                    return "builtins." + qualname
                public = modname.lstrip("_")  # _operator -> operator
                if public != modname and sys.modules.get(public) is not None:
                    modname = public
                return f"{self.module(sys.modules[modname])}.{qualname}"
        if isinstance(obj, type):  # a type the types module names (types.FunctionType is `function`)
            for name, value in vars(types).items():
                if value is obj and not name.startswith("_"):
                    return f"{self.module(types)}.{name}"
        return None

    def object_const(self, base: str, obj, text: str) -> str:
        name = self.fresh(base, obj)
        self.object_consts.append(f"{name} = {text}")
        return name

    def value(self, obj, hint: str) -> str:
        if isinstance(obj, np.ndarray):
            text = array_literal(obj, self.module(np))
            if text is not None:
                name = self.fresh(hint if hint.isidentifier() and hint != "obj" else "_zp_array", obj)
                self.plain_consts.append(f"{name} = {text}")
                return name
        scalar = numpy_scalar_literal(obj, "np")
        if scalar is not None:
            self.module(np)
            return scalar
        if type(obj) in (tuple, list):  # (an item does not take the container's own name)
            parts = [self.atom(v, _member_hint(hint, "item")) for v in obj]
            if type(obj) is tuple:
                return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
            return "[" + ", ".join(parts) + "]"
        if type(obj) is dict:
            return "{" + ", ".join(f"{self.atom(k)}: {self.atom(v, _member_hint(hint, k))}"
                                   for k, v in obj.items()) + "}"
        if type(obj) in (set, frozenset):  # in a fixed order: the module text is deterministic
            parts = sorted(self.atom(v, hint) for v in obj)
            return f"{type(obj).__name__}({{{', '.join(parts)}}})" if parts else f"{type(obj).__name__}()"
        if isinstance(obj, types.MethodType) and isinstance(obj.__self__, type) \
                and getattr(obj.__self__, obj.__func__.__name__, None) == obj:
            return f"{self.atom(obj.__self__)}.{obj.__func__.__name__}"  # a classmethod, bound
        if obj is NotImplemented or obj is Ellipsis:
            return repr(obj)
        if type(obj) is object:  # a marker (built_objects._ABSENT): one object of its own
            return self.object_const(hint if hint.isidentifier() else "_zp_marker", obj, "object()")
        cls = type(obj)
        if getattr(obj, "__dict__", None) is not None and not _is_library_module(cls.__module__) \
                and not is_internal(obj) and not callable(obj) or (
                    getattr(obj, "__dict__", None) is not None and isinstance(type(obj).__dict__.get("__call__"),
                                                                              types.FunctionType)):
            cls_atom = self.atom(cls)
            attrs = self.atom(dict(vars(obj)), hint)
            maker = self.atom(_instance)
            return self.object_const(hint if hint.isidentifier() and hint != "obj" else "_zp_object",
                                     obj, f"{maker}({cls_atom}, {attrs})")
        raise NotStandalone(f"{hint} is a {cls.__module__}.{cls.__qualname__}, which cannot be written "
                            "into a standalone module", hint="pass it as an argument, or use plain "
                            "numbers, arrays, containers and instances of your own classes")

    # -- zygote_py's own helpers --------------------------------------------------
    def copy_internal(self, obj) -> str:
        text, frees = _internal_source(obj)
        self.copied_modules.add(obj.__module__)
        name = self.fresh("_zp_" + obj.__name__.lstrip("_").removeprefix("zp_"), obj)
        namespace = _namespace_of(obj)
        mapping = {obj.__name__: name}  # the definition and its own recursive uses
        for free in frees:
            if free in namespace and free != obj.__name__:
                mapping[free] = self.atom(namespace[free], free)
        self.helpers.append(rename(text, mapping))
        return name


def _namespace_of(obj) -> dict:
    return obj.__globals__ if isinstance(obj, types.FunctionType) else vars(sys.modules[obj.__module__])


@functools.cache
def _internal_source(obj) -> tuple[str, tuple[str, ...]]:
    """(the text of one of zygote_py's own helpers as a module copies it before renaming,
    the global names it reads), checked to be copyable.

    It depends on the helper alone (zygote_py's source does not change while it runs), so
    it is worked out once per process: every module copies a hundred or so helpers, and a
    batch of modules written by one process (several targets, the CLI's tests) copied the
    same ones again each time, reading and tokenizing their source: two thirds of a dump.
    An error is not cached; the same helper raises it again."""
    text = strip_unresolved_annotations(definition_source(obj)[0])
    if _namespace_of(obj).get("context") is context:
        _check_context_reads(obj, text)
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("zygote_py")):
            raise NotStandalone(f"internal: {obj.__qualname__} imports from zygote_py and cannot "
                                "be copied", hint="report this as a bug")
    return text, tuple(free_globals(text + f"\n{obj.__name__}\n"))


def _check_context_reads(obj, text: str) -> None:
    """A helper copied with `context` standing for the module's CallContext reads only what
    that has (the ledger; no Params are collected, ints are not reals): one reading the
    compiler or forward mode's state is zygote_py's own, and must not be copied."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Attribute) and node.attr in (
                "compiler", "object_tangents", "implicit", "using", "observing"):
            raise NotStandalone(f"internal: {obj.__qualname__} reads the gradient call's "
                                f"{node.attr}, which a standalone module does not have",
                                hint="report this as a bug")


def _member_hint(hint: str, key) -> str:
    """`_zp_layer_W` for the array in attribute W of the object layer."""
    if isinstance(key, str) and key.isidentifier():
        return "_zp_" + hint.strip("_").removeprefix("zp_") + "_" + key
    return hint


def _module_of_file(filename: str) -> str | None:
    for name, module in list(sys.modules.items()):
        if getattr(module, "__file__", None) == filename:
            return name
    return None


def _instance(cls, attrs):
    """An instance of cls with these attributes, without running its __init__."""
    obj = object.__new__(cls)
    obj.__dict__.update(attrs)
    return obj
