"""Whole random programs.

`generate(seed, index)` returns a `Program`: the source text of a module with
`import math`, `import numpy as np`, maybe a class `Layer` and a module-level
instance of it, zero to three helper functions (plain, with defaults, `*args`,
recursive, taking a function), the function under test `f`, and
`make_args()`, which returns f's positional arguments.  The same (seed,
index) always gives the same program, in any process.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .families import OBJECT_CLASSES
from .literals import array_literal
from .stmts import EXPR_DEPTH, StmtWriter, indent, literal_of
from .types import ARRAYS, Scope

PARAM_TYPES = ["S", "S", "V", "V", "W", "M", "M", "I", "L", "D", "LV", "T", "O", "LO"]


@dataclass
class Program:
    source: str
    constructs: frozenset = field(default_factory=frozenset)
    name: str = "program"


def to_scalar_text(rng: random.Random, name: str, ty: str) -> str:
    """An expression turning `name` (of type ty) into a real scalar for f's result."""
    if ty == "S":
        return name
    if ty in ARRAYS:
        return rng.choice(
            [
                f"np.sum({name})",
                f"np.sum(np.sin({name}))",
                f"np.sum({name} ** 2)",
                f"np.mean({name} * {name})",
            ]
        )
    if ty == "L":
        return f"sum({name})"
    if ty == "LV":
        return f"np.sum({name}[-1])"
    if ty == "D":
        return f"{name}['a']"
    if ty == "I":
        return f"{name} * 0.1"
    return ""


def class_source(w: StmtWriter) -> list[str]:
    self_scope = Scope({"self.W": "M", "self.b": "W"})
    fwd = self_scope.copy()
    fwd.names["v"] = "V"
    sq = Scope({"t": "S"})
    return [
        "class Layer:",
        "    def __init__(self, W, b):",
        "        self.W = W",
        "        self.b = b",
        "",
        "    def forward(self, v):",
        f"        return np.tanh(self.W @ v + {w.expr('W', fwd, 2)})",
        "",
        "    def __call__(self, v):",
        f"        return self.forward(v) * {w.expr('S', self_scope, 1)}",
        "",
        "    @property",
        "    def energy(self):",
        f"        return {w.expr('S', self_scope, 2)}",
        "",
        "    @staticmethod",
        "    def square(t):",
        f"        return {w.expr('S', sq, 2)} * t",
        "",
        "    @classmethod",
        "    def half_square(cls, t):",
        "        return cls.square(t) * 0.5",
        "",
    ]


def helper_source(w: StmtWriter, k: int) -> list[str]:
    rng = w.rng
    kind = rng.choice(
        ["plain", "plain", "default", "star", "recursive", "apply", "pair", "factory"]
    )
    name = f"h{k}"
    if kind == "pair":
        scope = Scope({"p0": "S", "p1": "V"})
        body = w.body(scope, rng.randint(1, 2), 1, can_return=False)
        first, second = w.expr("S", scope, 2), w.expr("V", scope, 2)
        w.helpers.append((name, ["S", "V"], "pair", 0))
        return [f"def {name}(p0, p1):"] + indent(body) + [f"    return {first}, {second}", ""]
    if kind == "factory":
        inner = Scope({"c": "S", "v": "V"})
        w.helpers.append((name, ["S"], "factory", 0))
        return [
            f"def {name}(c):",
            "    def k(v):",
            f"        return {w.expr('V', inner, 2)}",
            "",
            "    return k",
            "",
        ]
    if kind == "recursive":
        body = w.expr("S", Scope({"x": "S"}), 2)
        w.helpers.append((name, ["S", "I"], "S", 0))
        return [
            f"def {name}(x, n):",
            "    if n <= 0:",
            "        return x",
            f"    return {name}({body} * 0.5, n - 1)",
            "",
        ]
    if kind == "star":
        body = w.expr("S", Scope({"x": "S"}), 2)
        w.helpers.append((name, ["*S"], "S", 0))
        return [
            f"def {name}(*xs, scale=1.0):",
            "    total = 0.0",
            "    for x in xs:",
            f"        total = total + {body}",
            "    return total * scale",
            "",
        ]
    if kind == "apply":
        w.helpers.append((name, ["F:S>S", "S"], "S", 0))
        return [f"def {name}(fn, x):", "    return fn(x) + fn(x * 0.5) * 2.0", ""]
    ret = rng.choice(["S", "S", "V", "W", "M"])
    params = [rng.choice(["S", "V", "M", "W"]) for _ in range(rng.randint(1, 2))]
    ndef = 0
    if kind == "default":
        params.append("S")
        ndef = 1
    scope = Scope({f"p{i}": t for i, t in enumerate(params)})
    sig = ", ".join(
        f"p{i}" if i < len(params) - ndef else f"p{i}={literal_of(rng, 'S', '')}"
        for i in range(len(params))
    )
    body = w.body(scope, rng.randint(1, 3), 1, can_return=True)
    ret_text = w.expr(ret, scope, EXPR_DEPTH)
    w.helpers.append((name, params, ret, ndef))
    return [f"def {name}({sig}):"] + indent(body) + [f"    return {ret_text}", ""]


def generate(seed: int, index: int) -> Program:
    rng = random.Random(f"zygote-fuzz:{seed}:{index}")
    w = StmtWriter(rng)
    lines = ["import itertools", "import math", "from dataclasses import dataclass", "",
             "import numpy as np", "", ""]
    module_scope = Scope()
    if "built_objects" in w.enabled:
        lines += OBJECT_CLASSES.strip("\n").splitlines() + ["", ""]
        w.has_object_classes = True
    if "objects" in w.enabled and rng.random() < 0.6:
        w.tags.add("objects")
        lines += class_source(w)  # before has_class: methods must not call themselves
        w.has_class = True
        if rng.random() < 0.5:
            lines += [f"LAYER = Layer({array_literal(rng, 'M')}, {array_literal(rng, 'W')})", ""]
            module_scope.names["LAYER"] = "O"
    if rng.random() < 0.3:  # module data, read when f runs
        w.tags.add("globals")
        for ty in rng.sample(["S", "V", "M"], rng.randint(1, 2)):
            name = f"G_{ty}"
            lines += [f"{name} = {literal_of(rng, ty, '')}", ""]
            module_scope.names[name] = ty
        module_scope.frozen.update(n for n in module_scope.names if n.startswith("G_"))
    for k in range(rng.choice([1, 1, 2, 3]) if "helpers" in w.enabled else 0):
        w.tags.add("helpers")
        lines += helper_source(w, k)

    n_params = rng.randint(1, 3)
    types = [rng.choice(PARAM_TYPES) for _ in range(n_params)]
    if "containers" not in w.enabled:
        types = [t if t not in ("L", "D", "LV", "T") else "S" for t in types]
    if all(t in ("I", "O") for t in types):
        types.append("V")
    if not w.has_class:
        types = [t if t not in ("O", "LO") else "M" for t in types]
    params = [f"a{i}" for i in range(len(types))]
    scope = module_scope.copy()
    prologue = []
    for p, t in zip(params, types):
        if t == "T":
            w.tags.add("containers")
            x, v = f"{p}_x", f"{p}_v"
            prologue.append(f"{x}, {v} = {p}")
            scope.names[x], scope.names[v] = "S", "V"
        else:
            scope.names[p] = t
            if t in ("L", "D", "LV"):
                w.tags.add("containers")
                scope.frozen.add(p)  # never write into a container the caller passed
            if t in ("O", "LO"):
                w.tags.add("objects")
                scope.frozen.add(p)
    body = prologue + w.body(scope, rng.randint(2, 6), 2)
    candidates = [(n, t) for n, t in scope.names.items() if to_scalar_text(rng, n, t)]
    chosen = candidates[-3:] + rng.sample(candidates, min(2, len(candidates)))
    terms = list(dict.fromkeys(to_scalar_text(rng, n, t) for n, t in chosen))
    if "O" in scope.names.values():
        obj = next(n for n, t in scope.names.items() if t == "O")
        terms.append(f"np.sum({obj}.b)")
    result = " + ".join(terms) if terms else "0.0"
    lines += [f"def f({', '.join(params)}):"] + indent(body) + [f"    return {result}", "", ""]
    args = ", ".join(literal_of(rng, t, "Layer") for t in types)
    lines += ["def make_args():", f"    return ({args},)", ""]
    return Program("\n".join(lines), frozenset(w.tags), f"s{seed}_{index}")
