"""The table of supported functions in docs/rules.md, generated from the registry.

    python -m zygote_py.rules.table           # rewrite the table in docs/rules.md
    python -m zygote_py.rules.table --check   # exit 1 if docs/rules.md is out of date

Only the text between the two marker lines is rewritten; the rest of the page
is prose kept by hand.  The table is the same on every supported Python and
NumPy: a function only newer versions have is listed whether or not this
interpreter has it, with the version it needs (`registry.since`).  tests/rules/test_rules_doc.py fails when the table and
the registry disagree, so a new rule comes with its regenerated table.
"""

from __future__ import annotations

import sys
from pathlib import Path

from zygote_py.rules import registry

BEGIN = "<!-- BEGIN GENERATED RULE TABLE: python -m zygote_py.rules.table -->"
END = "<!-- END GENERATED RULE TABLE -->"
DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"

# the domain of a rule is the module it is written in
_TITLES = {
    "operators": "Operators and builtins",
    "math_rules": "The math module",
    "numpy_elementwise": "NumPy elementwise",
    "reductions": "Reductions",
    "statistics": "Statistics",
    "scans": "Scans and sequence operators",
    "shapes": "Shapes, joins and constructors",
    "structure": "More structure and gathers",
    "indexing": "Indexing, diagonals and sorting",
    "linalg": "Products and np.linalg",
    "products": "More products and matrix functions",
    "factorizations": "Matrix factorizations",
    "complex_rules": "Complex values (see docs/complex.md)",
    "scipy_special": "SciPy: scipy.special (when SciPy is installed)",
    "scipy_stats": "SciPy: scipy.stats distributions (when SciPy is installed)",
    "scipy_linalg": "SciPy: scipy.linalg (when SciPy is installed)",
    "cotangents": "Runtime helpers that generated code calls (for gradients of gradients)",
    "rule_helpers": "Helpers that rule bodies call (for gradients of gradients)",
}


def _summary(fn) -> str:
    """The first sentence of a rule's docstring, for the notes column."""
    doc = (fn.__doc__ or "").strip()
    if not doc:
        return ""
    first = " ".join(doc.split("\n\n")[0].split())
    end = first.find(". ")
    text = first if end < 0 else first[: end + 1]
    return text.replace("|", "\\|")


def _public(name: str) -> bool:
    """Library functions only: zygote_py's own internals (zygote_py.nn registers a few
    helpers as non-differentiable when it is imported) are not part of the table."""
    return not name.startswith("zygote_py.")


def _listed(rule) -> bool:
    """Library rules, and the rules of zygote_py's own runtime and rule helpers, which
    generated code calls and a second derivative differentiates."""
    return _public(rule.qualname) or rule.vjp.__module__.rsplit(".", 1)[-1] in _TITLES


def _needs(qualname: str) -> str:
    """The note of a version-specific function, e.g. ' (NumPy 2.1+)'; '' for the rest."""
    version = registry.requirement(qualname)
    return f" ({version}+)" if version else ""


def _row(qualname: str, rule_fn) -> tuple[str, str]:
    domain = rule_fn.__module__.rsplit(".", 1)[-1]
    summary = f"{_needs(qualname).strip()} {_summary(rule_fn)}".strip()
    return domain, f"| `{qualname}` | `{domain}.{rule_fn.__name__}` | {summary} |"


def render() -> str:
    """The generated section: one table per domain, then the non-differentiable names."""
    groups: dict[str, dict[str, str]] = {}
    declared = {rule.qualname: rule.vjp for rule in registry.all_rules() if _listed(rule)}
    declared.update(registry.absent_rules())  # the same table on every version
    for qualname, rule_fn in declared.items():
        domain, row = _row(qualname, rule_fn)
        groups.setdefault(domain, {})[qualname] = row
    supported = sorted(declared)
    nondiff = sorted(name for name in {*registry.nondifferentiable_names(),
                                       *registry.absent_nondifferentiable_names()} if _public(name))
    lines = [BEGIN, "",
             f"{len(supported)} functions, methods and attributes have derivative rules; "
             f"{len(nondiff)} more are registered as non-differentiable.", ""]
    order = [d for d in _TITLES if d in groups] + sorted(d for d in groups if d not in _TITLES)
    for domain in order:
        rows = groups[domain]
        lines += [f"### {_TITLES.get(domain, domain)} ({len(rows)})", "",
                  "| Function | Rule | Notes |", "|---|---|---|"]
        lines += [rows[name] for name in sorted(rows)]
        lines.append("")
    lines += [f"### Non-differentiable ({len(nondiff)})", "",
              "Calls of these produce no adjoint; their results are constants.", "",
              ", ".join(f"`{name}`{_needs(name)}" for name in nondiff), "", END]
    return "\n".join(lines)


def update(text: str) -> str:
    """text with the generated section replaced (appended if the markers are missing)."""
    start = text.find(BEGIN)
    stop = text.find(END)
    if start < 0 or stop < 0:
        return text.rstrip("\n") + "\n\n" + render() + "\n"
    return text[:start] + render() + text[stop + len(END):]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    text = DOC.read_text(encoding="utf-8")
    new = update(text)
    if "--check" in argv:
        if new != text:
            print(f"{DOC} is out of date: run python -m zygote_py.rules.table", file=sys.stderr)
            return 1
        return 0
    if new != text:
        DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
