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

from .types import ARRAYS, Scope, fn_parts


def const(rng: random.Random, low: float = -1.0, high: float = 1.0) -> str:
    v = round(rng.uniform(low, high), 2)
    return repr(v if v != 0.0 else 0.25)


def array_literal(rng: random.Random, ty: str) -> str:
    if ty == "M":
        rows = [f"[{', '.join(const(rng) for _ in range(3))}]" for _ in range(2)]
        return f"np.array([{', '.join(rows)}])"
    n = 3 if ty == "V" else 2
    return f"np.array([{', '.join(const(rng) for _ in range(n))}])"


# (wanted type, available type) -> a cheap expression turning {x} into the wanted type
CONVERSIONS = {
    ("S", "V"): "{x}[0]", ("S", "W"): "np.sum({x})", ("S", "M"): "{x}[1, 1]",
    ("S", "L"): "{x}[0]", ("S", "D"): "{x}['b']",
    ("V", "S"): "({x} * {c})", ("V", "M"): "{x}[0]", ("V", "W"): "np.append({x}, 0.5)",
    ("W", "S"): "({c} * {x})", ("W", "V"): "{x}[:2]", ("W", "M"): "{x}[:, 2]",
    ("M", "S"): "({x} * {c})", ("M", "V"): "np.stack([{x}, {x} * 0.5])",
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
    "kink": "control_flow", "call_helper": "helpers", "call_closure": "closures",
    "reduce_to_scalar": "reductions", "vector_from_matrix": "reductions",
    "index_scalar": "indexing", "vector_index": "indexing",
    "scalar_from_container": "containers", "scalar_comprehension": "comprehensions",
    "vector_comprehension": "comprehensions", "scalar_from_object": "objects",
    "vector_from_object": "objects", "broadcast_scalar": "broadcasting",
    "broadcast_matrix": "broadcasting", "scalar_with_int": "control_flow",
    "container_stmt": "containers", "closure_def": "closures", "if_stmt": "control_flow",
    "for_range": "control_flow", "while_loop": "control_flow", "for_iter": "iterators",
}
OPTIONAL = ("broadcasting", "reductions", "indexing", "control_flow", "helpers", "closures",
            "comprehensions", "containers", "iterators", "objects")


class ExprWriter:
    """Writes expressions; subclasses add statements (stmts.py)."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.enabled = {"expressions"} | {c for c in OPTIONAL if rng.random() < 0.6}
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
        if self.helpers and self.rng.random() < 0.12:
            producers = [self.call_helper]  # helpers exist to be called
        producers = self.allowed(producers) or [self.arith, self.unary]
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
        return self.rng.choice(table).format(self.expr(ty, scope, d))

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
                [f"abs({a} - {t})", f"max({a}, {b})", f"min({a}, {t})",
                 f"({a} if {b} > {t} else {self.expr('S', scope, d)})"]
            )
        b = self.expr(ty, scope, d)
        return self.rng.choice(
            [f"np.abs({a} - {t})", f"np.maximum({a}, {t})", f"np.minimum({a}, {b})",
             f"np.where({a} > {t}, {b}, {self.expr(ty, scope, d)})",
             f"np.clip({a}, -0.5, 0.5)"]
        )

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

    # ------------------------------------------------------------------ scalars

    def scalar_producers(self):
        return [self.arith, self.arith, self.unary, self.unary, self.divide, self.kink,
                self.reduce_to_scalar, self.reduce_to_scalar, self.index_scalar,
                self.scalar_from_container, self.call_helper, self.call_closure,
                self.scalar_comprehension, self.scalar_from_object, self.scalar_with_int]

    def reduce_to_scalar(self, ty, scope, d):
        self.tags.add("reductions")
        src = self.rng.choice(ARRAYS)
        e = self.expr(src, scope, d)
        forms = [f"np.sum({e})", f"np.mean({e})", f"{e}.sum()", f"np.max({e})",
                 f"float(np.sum({e}))", f"np.min({e})", f"np.prod(np.cos({e}))"]
        if src != "M":
            forms += [f"np.dot({e}, {self.expr(src, scope, d)})",
                      f"({e} @ {self.expr(src, scope, d)})"]
        return self.rng.choice(forms)

    def index_scalar(self, ty, scope, d):
        self.tags.add("indexing")
        src = self.rng.choice(ARRAYS)
        e = self.expr(src, scope, d)
        if src == "M":
            return f"{e}[{self.rng.choice(['0, 1', '1, 2', '-1, 0', '1, -1'])}]"
        n = 3 if src == "V" else 2
        i = scope.pick(self.rng, "I")
        if i is not None and self.rng.random() < 0.5:
            return f"{e}[{i} % {n}]"
        return f"{e}[{self.rng.choice([0, 1, -1])}]"

    def scalar_from_container(self, ty, scope, d):
        options = [n for n, t in scope.names.items() if t in ("L", "D", "LV")]
        if not options:
            return None
        self.tags.add("containers")
        name = self.rng.choice(options)
        t = scope.names[name]
        if t == "L":
            return self.rng.choice([f"{name}[0]", f"{name}[-1]", f"sum({name})",
                                    f"({name}[0] * len({name}))"])
        if t == "LV":
            return self.rng.choice([f"np.sum({name}[0])", f"np.sum(sum({name}))"])
        return self.rng.choice([f"{name}['a']", f"({name}['b'] * {name}['a'])",
                                f"{name}.get('a', 0.5)"])

    def scalar_comprehension(self, ty, scope, d):
        self.tags.add("comprehensions")
        inner = scope.copy()
        t = self.fresh("t")
        src_ty = self.rng.choice(["V", "L"] if scope.of_type("L") else ["V", "W"])
        src = self.expr(src_ty, scope, d) if src_ty != "L" else scope.pick(self.rng, "L")
        inner.names[t] = "S"
        body = self.expr("S", inner, d)
        form = self.rng.random()
        if form < 0.4:
            return f"sum({body} for {t} in {src})"
        if form < 0.7:
            return f"sum([{body} for {t} in {src}])"
        if form < 0.85:
            self.tags.add("iterators")
            j = self.fresh("j")
            inner.names[j] = "I"
            body = self.expr("S", inner, d)
            return f"sum({body} * ({j} + 1) for {j}, {t} in enumerate({src}))"
        return f"sum([{body} for {t} in {src} if {t} > {const(self.rng, -0.3, 0.3)}])"

    def scalar_from_object(self, ty, scope, d):
        objs = scope.of_type("O")
        if not self.has_class:
            return None
        self.tags.add("objects")
        if not objs or self.rng.random() < 0.2:
            return f"{self.class_name}.square({self.expr('S', scope, d)})"
        o = self.rng.choice(objs)
        return self.rng.choice([f"{o}.energy", f"np.sum({o}.W)", f"np.sum({o}({self.expr('V', scope, d)}))",
                                f"np.sum({o}.forward({self.expr('V', scope, d)}))"])

    def scalar_with_int(self, ty, scope, d):
        i = scope.pick(self.rng, "I")
        if i is None:
            return None
        return f"({self.expr('S', scope, d)} * ({i} + 1))"

    # ------------------------------------------------------------------ vectors (V and W)

    def vector_producers(self):
        return [self.arith, self.arith, self.unary, self.unary, self.divide, self.kink,
                self.broadcast_scalar, self.vector_from_matrix, self.vector_index,
                self.call_helper, self.call_closure, self.vector_comprehension,
                self.vector_from_object]

    def broadcast_scalar(self, ty, scope, d):
        self.tags.add("broadcasting")
        s, v = self.expr("S", scope, d), self.expr(ty, scope, d)
        return self.rng.choice([f"({s} * {v})", f"({v} + {s})", f"({s} - {v})", f"({v} / (2.0 + np.cos({s})))"])

    def vector_from_matrix(self, ty, scope, d):
        m = self.expr("M", scope, d)
        if ty == "V":
            self.tags.add(self.rng.choice(["reductions", "expressions"]))
            forms = [f"np.sum({m}, axis=0)", f"np.mean({m}, axis=0)", f"np.max({m}, axis=0)",
                     f"({self.expr('W', scope, d)} @ {m})", f"({m}.T @ {self.expr('W', scope, d)})",
                     f"np.dot({self.expr('W', scope, d)}, {m})"]
        else:
            forms = [f"np.sum({m}, axis=1)", f"np.mean({m}, axis=-1)", f"({m} @ {self.expr('V', scope, d)})",
                     f"np.dot({m}, {self.expr('V', scope, d)})", f"np.matmul({m}, {self.expr('V', scope, d)})",
                     f"np.sum({m}, axis=1, keepdims=True)[:, 0]"]
            self.tags.add("reductions")
        return self.rng.choice(forms)

    def vector_index(self, ty, scope, d):
        self.tags.add("indexing")
        if ty == "V":
            v = self.expr("V", scope, d)
            m = self.expr("M", scope, d)
            return self.rng.choice([f"{v}[::-1]", f"{v}[[2, 0, 1]]", f"{v}[np.array([0, 0, 2])]", f"{m}[1]",
                                    f"{m}[-1, :]", f"{m}.T[:, 0]", f"{m}.reshape(3, 2)[:, 1]",
                                    f"np.concatenate([{self.expr('W', scope, d)}, {v}[:1]])"])
        v = self.expr("V", scope, d)
        m = self.expr("M", scope, d)
        return self.rng.choice([f"{v}[:2]", f"{v}[1:]", f"{v}[::2]", f"{m}[:, 0]", f"{m}[..., -1]",
                                f"{m}[:, 1:].sum(axis=1)", f"({v}[{v} > {const(self.rng, -0.5, 0.5)}].sum() + {v}[:2])",
                                f"np.array([{self.expr('S', scope, d)}, {self.expr('S', scope, d)}])"])

    def vector_comprehension(self, ty, scope, d):
        self.tags.add("comprehensions")
        inner = scope.copy()
        t = self.fresh("t")
        inner.names[t] = "S"
        src = self.expr(ty, scope, d)
        return f"np.array([{self.expr('S', inner, d)} for {t} in {src}])"

    def vector_from_object(self, ty, scope, d):
        objs = scope.of_type("O")
        if not objs:
            return None
        self.tags.add("objects")
        o = self.rng.choice(objs)
        if ty == "W":
            v = self.expr("V", scope, d)
            return self.rng.choice([f"{o}({v})", f"{o}.forward({v})", f"{o}.b"])
        return f"({o}.W.T @ {self.expr('W', scope, d)})"

    # ------------------------------------------------------------------ matrices

    def matrix_producers(self):
        return [self.arith, self.arith, self.unary, self.divide, self.kink, self.broadcast_matrix,
                self.broadcast_matrix, self.build_matrix, self.call_helper, self.call_closure]

    def broadcast_matrix(self, ty, scope, d):
        self.tags.add("broadcasting")
        m = self.expr("M", scope, d)
        return self.rng.choice(
            [f"({m} + {self.expr('V', scope, d)})",
             f"({m} * {self.expr('W', scope, d)}[:, None])",
             f"({self.expr('W', scope, d)}[:, None] * {self.expr('V', scope, d)}[None, :])",
             f"({self.expr('S', scope, d)} * {m})",
             f"({m} - np.mean({m}, axis=1, keepdims=True))",
             f"({m} / (2.0 + np.sum({m}, axis=0, keepdims=True) ** 2))"]
        )

    def build_matrix(self, ty, scope, d):
        v1, v2 = self.expr("V", scope, d), self.expr("V", scope, d)
        forms = [f"np.stack([{v1}, {v2}])", f"np.concatenate([{v1}[None, :], {v2}[None]], axis=0)",
                 f"{self.expr('M', scope, d)}.reshape(3, 2).T", f"np.vstack([{v1}, {v2}])",
                 f"np.outer({self.expr('W', scope, d)}, {v1})", f"np.transpose({self.expr('M', scope, d)}.T)"]
        if self.rng.random() < 0.3:
            self.tags.add("comprehensions")
            inner = scope.copy()
            row = self.fresh("row")
            inner.names[row] = "V"
            return f"np.stack([{self.expr('V', inner, d)} for {row} in {self.expr('M', scope, d)}])"
        self.tags.add("expressions")
        return self.rng.choice(forms)
