"""Typed random expressions.

`ExprWriter.expr(ty, scope, depth)` returns the source text of an expression
of type `ty` (see types.py) that reads names from `scope`.  Every expression
is smooth where it is evaluated or has its kink away from the evaluation
point with overwhelming probability (abs, max, where, clip compare against
random thresholds); the oracle's one-sided difference check rejects the rare
program that lands on a kink anyway.  Values stay bounded: logs and roots
only see `1 + e*e`, divisions only `2 + sin(e)`, exponentials only `exp(sin e)`.

Every composite expression is parenthesised so texts compose without
precedence worries.  Each producer records the construct it exercises in
`self.tags` (the per-construct table of the report).
"""

from __future__ import annotations

import random

from .literals import array_literal, const
from .producers import ShapeProducers
from .templates import TEMPLATES, fill
from .types import Scope, fn_parts

# (wanted type, available type) -> a cheap expression turning {x} into the wanted type
CONVERSIONS = {
    ("S", "V"): "{x}[0]",
    ("S", "W"): "np.sum({x})",
    ("S", "M"): "{x}[1, 1]",
    ("S", "L"): "{x}[0]",
    ("S", "D"): "{x}['b']",
    ("V", "S"): "({x} * {c})",
    ("V", "M"): "{x}[0]",
    ("V", "W"): "np.append({x}, 0.5)",
    ("W", "S"): "({c} * {x})",
    ("W", "V"): "{x}[:2]",
    ("W", "M"): "{x}[:, 2]",
    ("M", "S"): "({x} * {c})",
    ("M", "V"): "np.stack([{x}, {x} * 0.5])",
    ("M", "W"): "({x}[:, None] * {c})",
}

UNARY_NP = [
    "np.sin({})",
    "np.cos({})",
    "np.tanh({})",
    "np.exp(np.sin({}))",
    "np.log(1.0 + {0} * {0})",
    "np.sqrt(1.0 + {0} ** 2)",
    "({0} * {0})",
    "np.arctan({})",
    "np.log1p(np.exp(np.cos({})))",
]
UNARY_MATH = [
    "math.sin({})",
    "math.cos({})",
    "math.tanh({})",
    "math.exp(math.sin({}))",
    "math.log(1.0 + {0} * {0})",
    "math.sqrt(2.0 + math.cos({}))",
    "(1.5 + math.sin({})) ** 1.5",
    "({}) ** 2",
    "(-{})",
]


# the construct each producer exercises (swarm testing: a program enables a
# random subset of constructs, so programs differ more and the per-construct
# table means something)
CONSTRUCT_OF = {
    "kink": "control_flow",
    "call_helper": "helpers",
    "call_closure": "closures",
    "reduce_to_scalar": "reductions",
    "vector_from_matrix": "reductions",
    "index_scalar": "indexing",
    "vector_index": "indexing",
    "scalar_from_container": "containers",
    "scalar_comprehension": "comprehensions",
    "vector_comprehension": "comprehensions",
    "scalar_from_object": "objects",
    "vector_from_object": "objects",
    "broadcast_scalar": "broadcasting",
    "broadcast_matrix": "broadcasting",
    "scalar_with_int": "control_flow",
    "container_stmt": "containers",
    "closure_def": "closures",
    "if_stmt": "control_flow",
    "for_range": "control_flow",
    "while_loop": "control_flow",
    "for_iter": "iterators",
    "unpack_helper": "helpers",
    "factory_call": "closures",
    "lambda_list": "closures",
    "build_list": "containers",
    "container_methods": "containers",
    "iterator_values": "iterators",
    "layers_loop": "objects",
    "mutation_probe": "mutation",
    # families.py: each producer is its own construct
    "array_writes": "array_writes",
    "built_objects": "built_objects",
    "closure_forms": "closure_forms",
    "dict_list_ops": "dict_list_ops",
    "iterator_builtins": "iterator_builtins",
    "while_break": "while_break",
    "overflow_products": "overflow_products",
}
FAMILIES = ("array_writes", "built_objects", "closure_forms", "dict_list_ops", "iterator_builtins",
            "while_break", "overflow_products")
LATER_FAMILIES = ("overflow_products",)
OPTIONAL = (
    "broadcasting",
    "reductions",
    "indexing",
    "control_flow",
    "helpers",
    "closures",
    "comprehensions",
    "containers",
    "iterators",
    "objects",
)


class ExprWriter(ShapeProducers):
    """Writes expressions; subclasses add statements (stmts.py)."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.enabled = {"expressions"} | {c for c in OPTIONAL if rng.random() < 0.6}
        if rng.random() < 0.15:
            self.enabled.add("mutation")
        self.enabled |= {c for c in FAMILIES if c not in LATER_FAMILIES and rng.random() < 0.35}
        # families added later draw from their own stream, so that every program
        # written without them stays what it was (seeded runs and their regressions)
        later = random.Random("later:" + repr(rng.getstate()[1][:8]))
        self.enabled |= {c for c in LATER_FAMILIES if later.random() < 0.35}
        self.has_object_classes = False  # program.py writes families.OBJECT_CLASSES
        self.tags: set[str] = set()
        self.counter = 0
        self.nesting = 0  # how many if/loop bodies enclose the statement being written
        # module-level helper functions: (name, param types, return type, defaults count)
        self.helpers: list[tuple[str, list[str], str, int]] = []
        self.has_class = False
        self.class_name = "Layer"

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # ------------------------------------------------------------------ entry

    def expr(self, ty: str, scope: Scope, depth: int) -> str:
        if ty == "I":
            return self.int_expr(scope)
        if ty.startswith("F:"):
            return self.function_value(ty, scope, depth)
        if depth <= 0 or self.rng.random() < 0.2:
            return self.leaf(ty, scope)
        producers = {
            "S": self.scalar_producers,
            "V": self.vector_producers,
            "W": self.vector_producers,
            "M": self.matrix_producers,
        }[ty]()
        producers = self.allowed(producers) + [self.template] * 3
        if self.helpers and self.rng.random() < 0.12:
            producers = [self.call_helper]  # helpers exist to be called
        for _ in range(4):
            make = self.rng.choice(producers)
            text = make(ty, scope, depth - 1)
            if text is not None:
                return text
        return self.leaf(ty, scope)

    def allowed(self, producers: list) -> list:
        return [p for p in producers if CONSTRUCT_OF.get(p.__name__, "expressions") in self.enabled]

    def leaf(self, ty: str, scope: Scope) -> str:
        """A name of type ty, else a cheap conversion of another name (so most
        leaves depend on the arguments), else a constant."""
        name = scope.pick(self.rng, ty)
        if name is not None and self.rng.random() < 0.9:
            return name
        if self.rng.random() < 0.85:
            for src in self.rng.sample(("S", "V", "W", "M", "L", "D"), 6):
                other = scope.pick(self.rng, src)
                if other is not None and (ty, src) in CONVERSIONS:
                    return CONVERSIONS[ty, src].format(x=other, c=self.const_like(ty))
        if ty == "S":
            return const(self.rng)
        return array_literal(self.rng, ty)

    def const_like(self, ty: str) -> str:
        return const(self.rng) if ty == "S" else array_literal(self.rng, ty)

    def int_expr(self, scope: Scope) -> str:
        name = scope.pick(self.rng, "I")
        return name if name is not None else str(self.rng.randint(1, 3))

    # ------------------------------------------------------------------ shared producers

    def arith(self, ty, scope, d):
        self.tags.add("expressions")
        op = self.rng.choice(["+", "-", "*", "*", "+"])
        return f"({self.expr(ty, scope, d)} {op} {self.expr(ty, scope, d)})"

    def unary(self, ty, scope, d):
        self.tags.add("expressions")
        table = UNARY_MATH if ty == "S" and self.rng.random() < 0.6 else UNARY_NP
        return "(" + self.rng.choice(table).format(self.expr(ty, scope, d)) + ")"

    def divide(self, ty, scope, d):
        self.tags.add("expressions")
        den = self.expr(ty if self.rng.random() < 0.5 else "S", scope, d)
        return f"({self.expr(ty, scope, d)} / (2.0 + np.sin({den})))"

    def kink(self, ty, scope, d):
        """abs / max / min / where / clip / maximum: kinks at random thresholds."""
        self.tags.add("control_flow")
        a, t = self.expr(ty, scope, d), const(self.rng, -0.5, 0.5)
        if ty == "S":
            b = self.expr("S", scope, d)
            return self.rng.choice(
                [
                    f"abs({a} - {t})",
                    f"max({a}, {b})",
                    f"min({a}, {t})",
                    f"({a} if {b} > {t} else {self.expr('S', scope, d)})",
                ]
            )
        b = self.expr(ty, scope, d)
        return self.rng.choice(
            [
                f"np.abs({a} - {t})",
                f"np.maximum({a}, {t})",
                f"np.minimum({a}, {b})",
                f"np.where({a} > {t}, {b}, {self.expr(ty, scope, d)})",
                f"np.clip({a}, -0.5, 0.5)",
            ]
        )

    def template(self, ty, scope, d):
        """An entry of templates.TEMPLATES for a construct this program enables."""
        options = [(c, t) for c, rt, t in TEMPLATES if rt == ty and c in self.enabled]
        if not options:
            return None
        construct, text = self.rng.choice(options)
        self.tags.add(construct)
        return "(" + fill(text, lambda slot_ty: self.expr(slot_ty, scope, d)) + ")"

    def call_helper(self, ty, scope, d):
        options = [h for h in self.helpers if h[2] == ty]
        if not options:
            return None
        self.tags.add("helpers")
        name, params, _, ndef = self.rng.choice(options)
        if params == ["*S"]:
            args = [self.expr("S", scope, d) for _ in range(self.rng.randint(1, 3))]
            if self.rng.random() < 0.5:
                args.append(f"scale={self.expr('S', scope, d)}")
            return f"{name}({', '.join(args)})"
        args = [self.expr(p, scope, d) for p in params]
        named_p = params != ["S", "I"] and all(not p.startswith("F:") for p in params)
        if ndef == 0 and named_p and self.rng.random() < 0.15:
            if self.rng.random() < 0.5:
                return f"{name}(*[{', '.join(args)}])"  # star call site
            return f"{name}(**{{{', '.join(f'{chr(39)}p{i}{chr(39)}: {a}' for i, a in enumerate(args))}}})"
        n_required = len(params) - ndef
        parts = args[:n_required]
        for i in range(n_required, len(params)):
            choice = self.rng.random()
            if choice < 0.35:
                parts.append(f"p{i}={args[i]}")  # by keyword
            elif choice < 0.7:
                parts.append(args[i])
            # else: leave the default
        return f"{name}({', '.join(parts)})"

    def function_value(self, ty, scope, d):
        """A closure of type ty from scope, or a fresh lambda."""
        names = scope.of_type(ty)
        self.tags.add("closures")
        if names and self.rng.random() < 0.7:
            return self.rng.choice(names)
        arg, ret = fn_parts(ty)
        inner = scope.copy()
        p = self.fresh("q")
        inner.names[p] = arg
        return f"(lambda {p}: {self.expr(ret, inner, d)})"

    def call_closure(self, ty, scope, d):
        options = [n for n, t in scope.names.items() if t.startswith("F:") and fn_parts(t)[1] == ty]
        if not options:
            return None
        self.tags.add("closures")
        name = self.rng.choice(options)
        arg, _ = fn_parts(scope.names[name])
        return f"{name}({self.expr(arg, scope, d)})"
