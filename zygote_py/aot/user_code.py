"""The user's code in a standalone module: functions, classes and module-level
lambdas copied as their source text (decorators dropped) with the globals they
read, recursively; methods named through their class; closures rebuilt from
the code of the function that defines them and their cells' values.

`UserCode` is a part of `standalone.Builder`; it reads the builder's names
(`claim`, `atom`, `object_const`, ...).
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import sys
import textwrap
import types

from ..runtime import helpers as runtime
from .sourcecopy import definition_source, free_globals, is_builtin_name
from .common import NotStandalone, display_path, is_closure, is_internal


class UserCode:
    """Builder methods that copy the user's definitions and the values they read."""

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
                and not is_internal(obj) and self.library_path(obj) is None \
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
        if is_closure(fn):
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
            text, line = definition_source(obj, _dataclass_decorator(namespace))
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


def _reads_only_imports(text: str) -> bool:
    """text (an expression) reads only imported modules and builtins: it can be defined
    before the user's code (`dataclass = dataclasses.dataclass`, which a kept decorator
    reads while the class is defined)."""
    try:
        names = free_globals(f"_zp_x = {text}")
    except SyntaxError:
        return False
    return all(n in ("np", "math", "float") or n in sys.stdlib_module_names or is_builtin_name(n)
               for n in names)


def _dataclass_decorator(namespace: dict):
    """Which decorators of a copied class stay: @dataclass (or @dataclasses.dataclass(...)),
    found by the object the expression names in the class's module.  It writes the
    __init__ that construction replays (runtime/built_objects.py: dataclass_init)."""

    def named(node):
        if isinstance(node, ast.Call):
            node = node.func
        if isinstance(node, ast.Name):
            return namespace.get(node.id)
        if isinstance(node, ast.Attribute):
            base = named(node.value)
            return getattr(base, node.attr, None) if base is not None else None
        return None

    return lambda node: named(node) is dataclasses.dataclass


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
