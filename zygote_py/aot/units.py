"""Generated code in a standalone module: the gradient and the pullbacks it calls,
their text with every name they read defined and renamed consistently; the
pullback of a closure becomes a factory over the closure's variables.

`GeneratedCode` is a part of `standalone.Builder`.
"""

from __future__ import annotations

import ast
import re

from ..errors import SourceLoc
from ..runtime import outside_containers
from .sourcecopy import free_globals, rename, rename_def
from .common import NotStandalone, display_path, is_closure


class GeneratedCode:
    """Builder methods that write zygote_py's generated functions."""

    def unit(self, compiled) -> str:
        """A generated gradient or pullback: its text, with every name it reads defined."""
        key = id(compiled)
        if key in self.by_id:
            return self.by_id[key]
        gen = compiled._zp_generated
        pyfn = gen.origin()
        cell_names = tuple(sorted(n for n in compiled.__code__.co_freevars if n not in gen.binder.bound))
        _refuse_captured_claims(gen, cell_names, pyfn)
        name = self.fresh("_zp_" + gen.name.lstrip("_"), compiled)
        if pyfn is not None:  # the primal (for a closure: the function defining it)
            self.include_outer(pyfn) if is_closure(pyfn) else self.atom(pyfn, pyfn.__name__)
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


def _refuse_captured_claims(gen, cell_names, pyfn) -> None:
    """A closure's list or dict that the code claims (`history.append(v)` on a captured
    list: runtime/outside_containers.py) cannot be written out: the module would rebuild the
    closure and its pullback's factory each with a list of its own, and the two would drift
    apart.  A module-level one is one global of the module, which both read."""
    claims = {name for name, obj in gen.binder.bound.items() if obj is outside_containers.claim_outside}
    if not claims or not cell_names:
        return
    for node in ast.walk(ast.parse(gen.text)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in claims and node.args and isinstance(node.args[0], ast.Name) \
                and node.args[0].id in cell_names:
            loc = gen.binder.bound.get(getattr(node.args[-1], "id", None))
            raise NotStandalone(
                f"{pyfn.__qualname__ if pyfn else gen.name} updates the captured "
                f"{type(_cell_value(pyfn, node.args[0].id)).__name__} {node.args[0].id!r} in "
                "place, which a standalone module cannot follow (it would rebuild the closure "
                "and its pullback each with a copy of its own)", loc if isinstance(loc, SourceLoc) else None,
                "make it a module-level list or dict (a standalone module updates its own "
                "copy of that), or pass it to the function as an argument")


def _cell_value(pyfn, name):
    cells = dict(zip(pyfn.__code__.co_freevars, pyfn.__closure__ or ())) if pyfn else {}
    try:
        return cells[name].cell_contents
    except (KeyError, ValueError):
        return []


def _stable_comments(text: str, pyfn) -> str:
    """`# grad of: ...  calls.py:12` -> `... corpus/calls.py:12` (the module path, not the file's
    name), and the same in forward code's `# calls.py:12  ...`.  A `# noqa` the quoted line
    carries is dropped: it is about the user's line."""
    filename = pyfn.__code__.co_filename
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    shown = display_path(filename, pyfn.__module__)
    adjoint = re.compile(r"^(\s*# grad of: )(.*)  (\S+):(\d+)$", re.MULTILINE)
    forward = re.compile(r"^(\s*# )(\S+):(\d+)  (.*)$", re.MULTILINE)

    def quoted(line):
        return re.sub(r"\s*#\s*noqa\b.*$", "", line)

    def fix_adjoint(m):
        where = shown if m.group(3) == base else m.group(3)
        return f"{m.group(1)}{quoted(m.group(2))}  {where}:{m.group(4)}"

    def fix_forward(m):
        where = shown if m.group(2) == base else m.group(2)
        return f"{m.group(1)}{where}:{m.group(3)}  {quoted(m.group(4))}"

    return forward.sub(fix_forward, adjoint.sub(fix_adjoint, text))
