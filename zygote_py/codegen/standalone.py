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
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
import textwrap
import types

import numpy as np

from .. import dispatch, runtime
from ..errors import SourceLoc, ZygoteError
from . import standalone_runtime as sr
from .record import Recording
from .sourcecopy import (
    array_literal,
    definition_source,
    free_globals,
    is_builtin_name,
    numpy_scalar_literal,
    plain_literal,
    rename,
    rename_def,
)

# zygote_py functions the generated code binds, and their standalone stand-ins
_OVERRIDES = {runtime.check_scalar: sr.check_scalar, dispatch.call: sr.call,
              dispatch.call_method: sr.call_method, dispatch.attribute_cotangent: sr.attribute_cotangent}
_TABLES = {id(sr.PULLBACKS): "_ZP_PULLBACKS", id(sr.FUNCTION_RULES): "_ZP_FUNCTION_RULES",
           id(sr.METHOD_RULES): "_ZP_METHOD_RULES", id(sr.CUSTOM_RULES): "_ZP_CUSTOM_RULES",
           id(sr.NONDIFF): "_ZP_NONDIFF"}
_LIBRARY_ROOTS = ("numpy",)


class NotStandalone(ZygoteError):
    """Something the function reads cannot be written into a module without zygote_py."""


def _is_library_module(name: str) -> bool:
    root = name.split(".")[0]
    return root in sys.stdlib_module_names or root in _LIBRARY_ROOTS


def _is_internal(obj) -> bool:
    return (getattr(obj, "__module__", None) or "").split(".")[0] == "zygote_py"


def display_path(filename: str, module_name: str | None) -> str:
    """A file as its module path (`corpus/calls.py`): the same on every machine and checkout."""
    module = sys.modules.get(module_name or "")
    if module is not None and getattr(module, "__file__", None) == filename and module_name != "__main__":
        tail = "/__init__.py" if filename.endswith("__init__.py") else ".py"
        return module_name.replace(".", "/") + tail
    return filename.replace("\\", "/").rsplit("/", 1)[-1]


class Builder:
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
        if _hashable(obj) and obj in _OVERRIDES:
            return self.atom(_OVERRIDES[obj], hint)
        if type(obj).__name__ == "_LateBound":  # a recursive pullback, complete by now
            return self.atom(obj.impl, hint)
        if isinstance(obj, SourceLoc):
            return repr(self.loc_text(obj))
        if isinstance(obj, types.ModuleType):
            return self.module(obj)
        if isinstance(obj, types.CodeType):
            return self.nested_code(obj)
        if isinstance(obj, (types.FunctionType, type)) and _is_internal(obj):
            return self.copy_internal(obj)
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
        if not isinstance(qualname, str) or "<" in qualname or _is_internal(obj):
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
        return None

    # -- user code ------------------------------------------------------------------
    def define(self, name: str, obj) -> None:
        """Make the module-level `name` refer to obj (the user's code reads it by that name)."""
        if self.owner.get(name) is obj:
            return
        if isinstance(obj, types.ModuleType):
            text = self.module(obj)
            if text != name:  # the user's own alias (`import numpy as xp`)
                self.imports.add(f"import {obj.__name__} as {name}")
            self.claim(name, obj)
            return
        if isinstance(obj, (types.FunctionType, type)) and getattr(obj, "__name__", None) == name \
                and not _is_internal(obj) and self.library_path(obj) is None \
                and getattr(obj, "__qualname__", "") == name:
            self.atom(obj, name)
            return
        text = self.atom(obj, name)
        if text == name:
            return
        if name in self.owner:
            raise NotStandalone(f"two different objects are both called {name!r}", hint="rename one")
        self.claim(name, obj)
        section = self.plain_consts if _reads_only_imports(text) else self.object_consts
        section.append(f"{name} = {text}")

    def include_globals(self, text: str, namespace: dict, skip=()) -> None:
        for name in free_globals(text):
            if name in skip:
                continue
            if name in namespace:
                self.define(name, namespace[name])

    def user_function(self, fn) -> str:
        if _is_closure(fn):
            return self.closure_value(fn)
        if fn.__name__ == "<lambda>":
            return self.module_lambda(fn)
        if "." in fn.__qualname__:  # a method: defined by its class
            return self.member_path(fn)
        return self.user_definition(fn, fn.__globals__)

    def user_class(self, cls) -> str:
        if "." in cls.__qualname__:
            raise NotStandalone(f"class {cls.__qualname__} is nested in a function or class",
                                hint="define it at the top level of its module")
        module = sys.modules.get(cls.__module__)
        return self.user_definition(cls, vars(module) if module else {})

    def user_definition(self, obj, namespace: dict) -> str:
        name = obj.__name__
        if namespace.get(name) is not obj and getattr(namespace.get(name), "_zp_original", None) is not obj:
            raise NotStandalone(f"{obj.__qualname__} is not reachable by its name in its module "
                                "(decorated or renamed)", hint="define it undecorated at the top level")
        try:
            text, line = definition_source(obj)
        except (OSError, TypeError):
            raise NotStandalone(f"the source of {obj.__qualname__} is not available",
                                hint="define it in a .py file") from None
        self.claim(name, obj)
        filename = inspect.getsourcefile(obj) or "?"
        where = display_path(filename, obj.__module__)
        self.user_defs.append(((where, line), f"# {where}:{line}\n{text}"))
        self.include_globals(text, namespace, skip={name})
        return name

    def module_lambda(self, fn) -> str:
        """`name = lambda ...` at the top level of a module: that statement."""
        names = [k for k, v in fn.__globals__.items() if v is fn]
        try:
            text = textwrap.dedent(inspect.getsource(fn))
            node = ast.parse(text).body[0]
        except (OSError, SyntaxError, IndexError):
            node = None
        if not names or not isinstance(node, ast.Assign) or not any(
                isinstance(t, ast.Name) and t.id == names[0] for t in node.targets):
            raise NotStandalone("a lambda that is not assigned to a name at the top level of its module "
                                "cannot be copied", hint="define it with def, or as `name = lambda ...`")
        self.claim(names[0], fn)
        where = display_path(fn.__code__.co_filename, fn.__module__)
        line = fn.__code__.co_firstlineno
        self.user_defs.append(((where, line), f"# {where}:{line}\n{text.rstrip()}\n"))
        self.include_globals(text, fn.__globals__, skip={names[0]})
        return names[0]

    def member_path(self, fn) -> str:
        """`Cls.method`, `Cls.prop.fget`, `Cls.cm.__func__` for a function defined in a class."""
        owner_name = fn.__qualname__.rsplit(".", 1)[0]
        cls = fn.__globals__.get(owner_name)
        if not isinstance(cls, type):
            raise NotStandalone(f"cannot find the class of {fn.__qualname__}", hint="define it at top level")
        base = self.atom(cls, owner_name)
        for key, member in vars(cls).items():
            if member is fn or (isinstance(member, staticmethod) and member.__func__ is fn):
                return f"{base}.{key}"
            if isinstance(member, classmethod) and member.__func__ is fn:
                return f"{base}.{key}.__func__"
            if isinstance(member, property):
                for part in ("fget", "fset"):
                    if getattr(member, part) is fn:
                        return f"{base}.{key}.{part}"
        raise NotStandalone(f"cannot find {fn.__qualname__} in its class", hint="define it in the class body")

    def nested_code(self, code: types.CodeType) -> str:
        """A nested function's code, taken from the compiled outer function of the module."""
        outer, path = _find_outer(code, self.owner.values())
        if outer is None:
            raise NotStandalone(f"cannot find the function that defines {code.co_name} "
                                f"({code.co_filename}:{code.co_firstlineno})",
                                hint="define closures inside top-level functions")
        outer_atom = self.atom(outer)
        # offsets count from the def line: the copy has no decorators
        shift = definition_source(outer)[1] - outer.__code__.co_firstlineno
        path = [(path[0][0], path[0][1] - shift, path[0][2]), *path[1:]]
        steps = ", ".join(f"({name!r}, {offset}, {k})" for name, offset, k in path)
        getter = self.atom(_nested_code)
        return self.object_const(f"_zp_code_{code.co_name.strip('<>')}", code,
                                 f"{getter}({outer_atom}.__code__, [{steps}])")

    def include_outer(self, fn) -> None:
        """The function a closure is defined in (it holds the closure's code)."""
        target = None
        for i, part in enumerate(fn.__qualname__.split(".<locals>")[0].split(".")):
            target = fn.__globals__.get(part) if i == 0 else getattr(target, part, None)
        if target is not None:
            self.atom(target)

    def closure_value(self, fn) -> str:
        self.include_outer(fn)
        make = self.atom(runtime.make_closure)
        code = self.atom(fn.__code__)
        cells = []
        for cell in fn.__closure__ or ():
            cells.append(self.atom(cell.cell_contents, "cell"))
        captured = "(" + "".join(c + ", " for c in cells).rstrip(" ") + ")"
        defaults = self.atom(fn.__defaults__ or ())
        kwdefaults = self.atom(fn.__kwdefaults__ or {})
        return self.object_const(f"_zp_{fn.__name__.strip('<>')}", fn,
                                 f"{make}({code}, globals(), {captured}, {defaults}, {kwdefaults})")

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
        if type(obj) in (tuple, list):
            parts = [self.atom(v, hint) for v in obj]
            if type(obj) is tuple:
                return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
            return "[" + ", ".join(parts) + "]"
        if type(obj) is dict:
            return "{" + ", ".join(f"{self.atom(k)}: {self.atom(v, _member_hint(hint, k))}"
                                   for k, v in obj.items()) + "}"
        cls = type(obj)
        if getattr(obj, "__dict__", None) is not None and not _is_library_module(cls.__module__) \
                and not _is_internal(obj) and not callable(obj) or (
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
        text, _ = definition_source(obj)
        name = self.fresh("_zp_" + obj.__name__.lstrip("_").removeprefix("zp_"), obj)
        namespace = obj.__globals__ if isinstance(obj, types.FunctionType) else vars(sys.modules[obj.__module__])
        mapping = {obj.__name__: name}  # the definition and its own recursive uses
        for free in free_globals(text + f"\n{obj.__name__}\n"):
            if free in namespace and free != obj.__name__:
                mapping[free] = self.atom(namespace[free], free)
        text = rename(text, mapping)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("zygote_py")):
                raise NotStandalone(f"internal: {obj.__qualname__} imports from zygote_py and cannot "
                                    "be copied", hint="report this as a bug")
        self.helpers.append(text)
        return name

    # -- generated code ------------------------------------------------------------------
    def unit(self, compiled) -> str:
        """A generated gradient or pullback: its text, with every name it reads defined."""
        key = id(compiled)
        if key in self.by_id:
            return self.by_id[key]
        gen = compiled._zp_generated
        pyfn = gen.origin()
        cell_names = tuple(sorted(n for n in compiled.__code__.co_freevars if n not in gen.binder.bound))
        name = self.fresh("_zp_" + gen.name.lstrip("_"), compiled)
        if pyfn is not None:  # the primal (for a closure: the function defining it)
            self.include_outer(pyfn) if _is_closure(pyfn) else self.atom(pyfn, pyfn.__name__)
        mapping = {bname: self.atom(obj, bname) for bname, obj in gen.binder.bound.items()}
        namespace = compiled.__globals__
        for free in free_globals(gen.text):
            if free not in mapping and free not in cell_names and free in namespace:
                self.define(free, namespace[free])
        text = rename_def(rename(gen.text, mapping), gen.name, name)
        if pyfn is not None:
            text = _stable_comments(text, pyfn)
        defaults = self.defaults_lines(name, compiled)
        where = ""
        if pyfn is not None:
            where = f"  ({display_path(pyfn.__code__.co_filename, pyfn.__module__)}:{pyfn.__code__.co_firstlineno})"
        kind = "gradient" if gen.name.endswith("_grad") else "pullback"
        header = f"# {kind} of {pyfn.__qualname__ if pyfn else gen.name}{where}\n"
        if not cell_names:
            self.units.append(header + text + "".join(line + "\n" for line in defaults))
            return name
        # a closure's pullback reads the closure's variables: a factory takes their values
        factory = self.fresh(f"_zp_make_{gen.name}", (compiled, "factory"))
        body = "".join(("    " + line if line else line) + "\n" for line in text.splitlines())
        body += "".join("    " + line + "\n" for line in defaults)
        self.units.append(f"{header}def {factory}({', '.join(cell_names)}):\n{body}    return {name}\n")
        self.factories[key] = (factory, cell_names)
        return name

    def closure_instance(self, compiled) -> str:
        """The pullback of a closure the code names statically: its factory at the cell values
        the closure held when the module was generated."""
        factory, cell_names = self.factories[id(compiled)]
        values = dict(zip(compiled.__code__.co_freevars, compiled.__closure__ or ()))
        args = ", ".join(self.atom(values[c].cell_contents, c) for c in cell_names)
        instance = self.fresh(factory.replace("_zp_make_", "_zp_", 1), (compiled, "instance"))
        self.late_consts.append(f"{instance} = {factory}({args})")
        self.instances[id(compiled)] = instance
        return instance

    def defaults_lines(self, name: str, compiled) -> list[str]:
        lines = []
        if compiled.__defaults__:
            lines.append(f"{name}.__defaults__ = {self.atom(tuple(compiled.__defaults__))}")
        if compiled.__kwdefaults__:
            lines.append(f"{name}.__kwdefaults__ = {self.atom(dict(compiled.__kwdefaults__))}")
        return lines

    def unit_factory(self, compiled) -> tuple[str, tuple[str, ...] | None]:
        """(pullback, None) or (factory, cell names), for the dispatch table."""
        name = self.unit(compiled)
        if id(compiled) in self.factories:
            return self.factories[id(compiled)]
        return name, None

    # -- dispatch tables -------------------------------------------------------------
    def table_lines(self) -> list[str]:
        if not self.tables_used:
            return []
        rec = self.recording or Recording()
        for f in self.static_callees:
            rec.add_static(f)
        pullbacks = []
        for f, active, cells, scalars, compiled in rec.pullbacks:
            code = self.atom(f.__code__) if (f.__closure__ or "<locals>" in f.__qualname__) \
                else self.atom(f) + ".__code__"
            target, cell_names = self.unit_factory(compiled)
            pullbacks.append(f"    ({f.__qualname__!r}, {active!r}, {cells!r}, {scalars!r}): "
                             f"({target}, {cell_names!r}, {code}),")
        function_rules = [f"    {self.atom(f)}: {self.rule_text(r)}," for f, r in rec.function_rules]
        method_rules = [f"    ({self.atom(c)}, {n!r}): {self.rule_text(r)}," for (c, n), r in rec.method_rules]
        custom = [f"    {self.atom(f)}: {self.atom(r)}," for f, r in rec.custom_rules]
        nondiff = []
        for item in rec.nondiff:
            try:
                nondiff.append("    " + (f"({self.atom(item[0])}, {item[1]!r})" if isinstance(item, tuple)
                                         else self.atom(item)) + ",")
            except NotStandalone:
                continue  # a callee the module never reaches by name
        out = ["# Callees the dispatcher knows, filled when the module was generated."]
        for table, rows, empty in (("_ZP_PULLBACKS", pullbacks, "{}"), ("_ZP_FUNCTION_RULES", function_rules, "{}"),
                                   ("_ZP_METHOD_RULES", method_rules, "{}"), ("_ZP_CUSTOM_RULES", custom, "{}"),
                                   ("_ZP_NONDIFF", nondiff, "set()")):
            if not rows:
                out.append(f"{table} = {empty}")
            else:
                brace = "{"
                out.append(f"{table} = {brace}\n" + "\n".join(rows) + "\n}")
        return out

    def rule_text(self, rule) -> str:
        self.imports.add("import inspect")
        params = []
        for p in rule.params:
            default = "" if p.default is inspect.Parameter.empty else f", default={self.atom(p.default)}"
            params.append(f"inspect.Parameter({p.name!r}, inspect.Parameter.{p.kind.name}{default})")
        sig = "inspect.Signature([" + ", ".join(params) + "])"
        seq = rule.meta.get("sequence")
        return f"({sig}, {self.atom(rule.vjp)}, {tuple(rule.diff)!r}, {self.atom(seq) if seq else None})"

    # -- the module ----------------------------------------------------------------------
    def text(self, docstring: str, public: list[str]) -> str:
        tables = self.table_lines()  # may copy more helpers: before anything is written out
        sections = [f'"""{docstring}"""\n']
        stdlib = sorted(line for line in self.imports if "numpy" not in line)
        numpy = sorted(line for line in self.imports if "numpy" in line)
        imports = "\n".join(stdlib + ([""] if stdlib and numpy else []) + numpy)
        if self.plain_consts:
            sections.append("\n".join(self.plain_consts) + "\n")
        banner = "# " + "-" * 76
        parts = [("The differentiated function and the code it calls, as written", [t for _, t in sorted(
                     self.user_defs, key=lambda d: d[0])]),
                 ("Helpers copied from zygote_py (NumPy only)", self.helpers),
                 ("Objects the code reads", ["\n".join(self.object_consts)] if self.object_consts else []),
                 ("Generated pullbacks and gradient", self.units),
                 ("Pullbacks of closures the code reads", ["\n".join(self.late_consts)] if self.late_consts else []),
                 ("Run-time dispatch", ["\n".join(tables)] if tables else []),
                 ("Entry points", public)]
        for title, items in parts:
            if items:
                sections.append(f"{banner}\n# {title}\n{banner}")
                sections.extend(items)
        # one blank line after the imports (isort's rule before a comment), two between the rest
        rest = "\n\n\n".join(s.rstrip("\n") for s in sections[1:] if s.strip())
        return f"{sections[0]}\n{imports}\n\n{rest}\n"


def _hashable(obj) -> bool:
    try:
        hash(obj)
    except TypeError:
        return False
    return True


def _is_closure(fn) -> bool:
    return bool(fn.__closure__) or "<locals>" in fn.__qualname__


def _member_hint(hint: str, key) -> str:
    """`_zp_layer_W` for the array in attribute W of the object layer."""
    if isinstance(key, str) and key.isidentifier():
        return "_zp_" + hint.strip("_").removeprefix("zp_") + "_" + key
    return hint


def _reads_only_imports(text: str) -> bool:
    try:
        names = free_globals(f"_zp_x = {text}")
    except SyntaxError:
        return False
    return all(n in ("np", "math", "float") or is_builtin_name(n) for n in names)


def _module_of_file(filename: str) -> str | None:
    for name, module in list(sys.modules.items()):
        if getattr(module, "__file__", None) == filename:
            return name
    return None


def _stable_comments(text: str, pyfn) -> str:
    """`# grad of: ...  calls.py:12` -> `... corpus/calls.py:12` (the module path, not the file's
    name).  A `# noqa` the quoted line carries is dropped: it is about the user's line."""
    filename = pyfn.__code__.co_filename
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    shown = display_path(filename, pyfn.__module__)
    pattern = re.compile(r"^(\s*# grad of: )(.*)  (\S+):(\d+)$", re.M)

    def fix(m):
        quoted = re.sub(r"\s*#\s*noqa\b.*$", "", m.group(2))
        where = shown if m.group(3) == base else m.group(3)
        return f"{m.group(1)}{quoted}  {where}:{m.group(4)}"

    return pattern.sub(fix, text)


def _find_outer(code, candidates):
    """(the function among candidates whose code contains `code`, the path of (name, line offset))."""
    for obj in list(candidates):
        roots = []
        if isinstance(obj, types.FunctionType):
            roots.append(obj)
        elif isinstance(obj, type):
            roots += [v for v in vars(obj).values() if isinstance(v, types.FunctionType)]
        for fn in roots:
            path = _code_path(fn.__code__, code)
            if path is not None:
                return fn, path
    return None, None


def _code_path(outer, code):
    seen: dict = {}
    for const in outer.co_consts:
        if isinstance(const, types.CodeType):
            where = (const.co_name, const.co_firstlineno - outer.co_firstlineno)
            step = (*where, seen.setdefault(where, 0))
            seen[where] += 1  # two lambdas on one line: the k-th of them
            if const is code:
                return [step]
            inner = _code_path(const, code)
            if inner is not None:
                return [step, *inner]
    return None


def _nested_code(code, path):
    """The code object of a function nested in `code`, found by steps (name, line offset, k):
    the k-th nested function of that name starting that many lines below its parent."""
    for name, offset, k in path:
        code = [c for c in code.co_consts if hasattr(c, "co_name") and c.co_name == name
                and c.co_firstlineno - code.co_firstlineno == offset][k]
    return code


def _instance(cls, attrs):
    """An instance of cls with these attributes, without running its __init__."""
    obj = object.__new__(cls)
    obj.__dict__.update(attrs)
    return obj

