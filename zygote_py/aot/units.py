"""Generated code in a standalone module: the gradient and the pullbacks it calls,
their text with every name they read defined and renamed consistently; the
pullback of a closure becomes a factory over the closure's variables.

`GeneratedCode` is a part of `standalone.Builder`.
"""

from __future__ import annotations

import re

from .sourcecopy import free_globals, rename, rename_def
from .common import display_path, is_closure


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
