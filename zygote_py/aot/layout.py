"""The last steps of a standalone module: the run-time dispatch tables (the
callees recorded at the example arguments, plus those named at dynamic call
sites) and the module's text, its sections in a fixed order.

`ModuleLayout` is a part of `standalone.Builder`.
"""

from __future__ import annotations

import inspect
import sys

from ..rules import registry
from .record import Recording
from .common import NotStandalone, is_closure


_STATE_MODULES = ("zygote_py.runtime.built_objects", "zygote_py.runtime.outside_containers",
                  "zygote_py.runtime.writes")


class ModuleLayout:
    """Builder methods that write the dispatch tables and put the module together."""

    def qualnames_in_module(self, f) -> list[str]:
        """The __qualname__s f has where the module runs it.  A function of zygote_py itself
        that the module runs as a copy (runtime/partials.py's partial_closure and the
        closure it makes; builder.copy_internal) is looked up by the copy's name.  A method
        of one of zygote_py's classes (nn.Recur.__call__) keeps its own name for instances
        passed in from outside, and, when the module copies the class to build instances
        itself, is found by the copy's name too; so is a function of zygote_py an object
        from outside holds (nn.activations.tanh, a layer's activation)."""
        module = getattr(f, "__module__", "") or ""
        if not (module == "zygote_py" or module.startswith("zygote_py.")):
            return [f.__qualname__]
        head, _, rest = f.__qualname__.partition(".")
        outer = getattr(sys.modules.get(module), head, None)
        if outer is None:
            return [f.__qualname__]
        if isinstance(outer, type):
            if self.owner.get(self.by_id.get(id(outer), "")) is not outer:
                return [f.__qualname__]  # the module never builds one
            copied = self.by_id[id(outer)] + ("." + rest if rest else "")
            return [f.__qualname__, copied]
        copied = self.atom(outer) + ("." + rest if rest else "")
        return [f.__qualname__] + ([copied] if copied != f.__qualname__ else [])

    def prepare_tables(self) -> None:
        """Write the dispatch tables now (they copy the pullbacks and rules they name), so
        that what the module holds is known before its entry points are written."""
        self.tables = self.table_lines()

    def writes_state(self) -> bool:
        """Whether the module holds code that builds or writes objects (built_objects.py)
        or updates lists and dicts from outside in place: then its entry points run the
        compiled code with a ledger, as zp.gradient does."""
        return any(module in _STATE_MODULES for module in self.copied_modules)

    def table_lines(self) -> list[str]:
        if getattr(self, "tables", None) is not None:
            return self.tables
        if not self.tables_used:
            return []
        rec = self.recording or Recording()
        for f in self.static_callees:
            rec.add_static(f)
        pullbacks = []
        for f, active, cells, scalars, compiled in rec.pullbacks:
            code = self.atom(f.__code__) if is_closure(f) \
                else self.atom(f) + ".__code__"
            target, cell_names = self.unit_factory(compiled)
            for qualname in self.qualnames_in_module(f):
                pullbacks.append(f"    ({qualname!r}, {active!r}, {cells!r}, {scalars!r}): "
                                 f"({target}, {cell_names!r}, {code}),")
        function_rules = [f"    {self.atom(f)}: {self.rule_text(r)}," for f, r in rec.function_rules]
        method_rules = [f"    ({self.atom(c)}, {n!r}): {self.rule_text(r)}," for (c, n), r in rec.method_rules]
        attr_rules = [f"    ({self.atom(c)}, {n!r}): {self.rule_text(r)}," for (c, n), r in rec.attr_rules]
        nondiff_attrs = [f"    ({self.atom(c)}, {n!r})," for c, n in rec.nondiff_attrs]
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
                                   ("_ZP_NONDIFF", nondiff, "set()"), ("_ZP_ATTR_RULES", attr_rules, "{}"),
                                   ("_ZP_NONDIFF_ATTRS", nondiff_attrs, "set()")):
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
        complex_form = registry.for_complex(rule)  # None: complex values are refused
        complex_vjp = self.atom(complex_form.vjp) if complex_form is not None else None
        unsupported = tuple(rule.meta.get("unsupported", ()))
        return (f"({sig}, {self.atom(rule.vjp)}, {tuple(rule.diff)!r}, {self.atom(seq) if seq else None}, "
                f"{complex_vjp}, {unsupported!r}, {rule.qualname!r})")

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
