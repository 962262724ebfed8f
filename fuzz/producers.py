"""The producers of scalar, vector and matrix expressions, mixed into ExprWriter.

Each producer takes (wanted type, scope, depth) and returns expression text,
or None when the scope offers nothing it can use (ExprWriter.expr then tries
another).  Which construct each one exercises is in exprs.CONSTRUCT_OF.
"""

from __future__ import annotations

from .literals import const
from .types import ARRAYS


class ShapeProducers:
    """Scalar (S), vector (V, W) and matrix (M) producers."""

    # ------------------------------------------------------------------ scalars

    def scalar_producers(self):
        return [
            self.arith,
            self.arith,
            self.unary,
            self.unary,
            self.divide,
            self.kink,
            self.reduce_to_scalar,
            self.reduce_to_scalar,
            self.index_scalar,
            self.scalar_from_container,
            self.call_helper,
            self.call_closure,
            self.scalar_comprehension,
            self.scalar_from_object,
            self.scalar_with_int,
        ]

    def reduce_to_scalar(self, ty, scope, d):
        self.tags.add("reductions")
        src = self.rng.choice(ARRAYS)
        e = self.expr(src, scope, d)
        forms = [
            f"np.sum({e})",
            f"np.mean({e})",
            f"{e}.sum()",
            f"np.max({e})",
            f"float(np.sum({e}))",
            f"np.min({e})",
            f"np.prod(np.cos({e}))",
        ]
        if src != "M":
            forms += [
                f"np.dot({e}, {self.expr(src, scope, d)})",
                f"({e} @ {self.expr(src, scope, d)})",
            ]
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
            return self.rng.choice(
                [f"{name}[0]", f"{name}[-1]", f"sum({name})", f"({name}[0] * len({name}))"]
            )
        if t == "LV":
            return self.rng.choice([f"np.sum({name}[0])", f"np.sum(sum({name}))"])
        return self.rng.choice(
            [f"{name}['a']", f"({name}['b'] * {name}['a'])", f"{name}.get('a', 0.5)"]
        )

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
            method = self.rng.choice(["square", "half_square"])
            return f"{self.class_name}.{method}({self.expr('S', scope, d)})"
        o = self.rng.choice(objs)
        return self.rng.choice(
            [
                f"{o}.energy",
                f"np.sum({o}.W)",
                f"np.sum({o}({self.expr('V', scope, d)}))",
                f"np.sum({o}.forward({self.expr('V', scope, d)}))",
            ]
        )

    def scalar_with_int(self, ty, scope, d):
        i = scope.pick(self.rng, "I")
        if i is None:
            return None
        return f"({self.expr('S', scope, d)} * ({i} + 1))"

    # ------------------------------------------------------------------ vectors (V and W)

    def vector_producers(self):
        return [
            self.arith,
            self.arith,
            self.unary,
            self.unary,
            self.divide,
            self.kink,
            self.broadcast_scalar,
            self.vector_from_matrix,
            self.vector_index,
            self.call_helper,
            self.call_closure,
            self.vector_comprehension,
            self.vector_from_object,
        ]

    def broadcast_scalar(self, ty, scope, d):
        self.tags.add("broadcasting")
        s, v = self.expr("S", scope, d), self.expr(ty, scope, d)
        return self.rng.choice(
            [f"({s} * {v})", f"({v} + {s})", f"({s} - {v})", f"({v} / (2.0 + np.cos({s})))"]
        )

    def vector_from_matrix(self, ty, scope, d):
        m = self.expr("M", scope, d)
        if ty == "V":
            self.tags.add(self.rng.choice(["reductions", "expressions"]))
            forms = [
                f"np.sum({m}, axis=0)",
                f"np.mean({m}, axis=0)",
                f"np.max({m}, axis=0)",
                f"({self.expr('W', scope, d)} @ {m})",
                f"({m}.T @ {self.expr('W', scope, d)})",
                f"np.dot({self.expr('W', scope, d)}, {m})",
            ]
        else:
            forms = [
                f"np.sum({m}, axis=1)",
                f"np.mean({m}, axis=-1)",
                f"({m} @ {self.expr('V', scope, d)})",
                f"np.dot({m}, {self.expr('V', scope, d)})",
                f"np.matmul({m}, {self.expr('V', scope, d)})",
                f"np.sum({m}, axis=1, keepdims=True)[:, 0]",
            ]
            self.tags.add("reductions")
        return self.rng.choice(forms)

    def vector_index(self, ty, scope, d):
        self.tags.add("indexing")
        if ty == "V":
            v = self.expr("V", scope, d)
            m = self.expr("M", scope, d)
            return self.rng.choice(
                [
                    f"{v}[::-1]",
                    f"{v}[[2, 0, 1]]",
                    f"{v}[np.array([0, 0, 2])]",
                    f"{m}[1]",
                    f"{m}[-1, :]",
                    f"{m}.T[:, 0]",
                    f"{m}.reshape(3, 2)[:, 1]",
                    f"np.concatenate([{self.expr('W', scope, d)}, {v}[:1]])",
                ]
            )
        v = self.expr("V", scope, d)
        m = self.expr("M", scope, d)
        return self.rng.choice(
            [
                f"{v}[:2]",
                f"{v}[1:]",
                f"{v}[::2]",
                f"{m}[:, 0]",
                f"{m}[..., -1]",
                f"{m}[:, 1:].sum(axis=1)",
                f"({v}[{v} > {const(self.rng, -0.5, 0.5)}].sum() + {v}[:2])",
                f"np.array([{self.expr('S', scope, d)}, {self.expr('S', scope, d)}])",
            ]
        )

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
        return [
            self.arith,
            self.arith,
            self.unary,
            self.divide,
            self.kink,
            self.broadcast_matrix,
            self.broadcast_matrix,
            self.build_matrix,
            self.call_helper,
            self.call_closure,
        ]

    def broadcast_matrix(self, ty, scope, d):
        self.tags.add("broadcasting")
        m = self.expr("M", scope, d)
        return self.rng.choice(
            [
                f"({m} + {self.expr('V', scope, d)})",
                f"({m} * {self.expr('W', scope, d)}[:, None])",
                f"({self.expr('W', scope, d)}[:, None] * {self.expr('V', scope, d)}[None, :])",
                f"({self.expr('S', scope, d)} * {m})",
                f"({m} - np.mean({m}, axis=1, keepdims=True))",
                f"({m} / (2.0 + np.sum({m}, axis=0, keepdims=True) ** 2))",
            ]
        )

    def build_matrix(self, ty, scope, d):
        v1, v2 = self.expr("V", scope, d), self.expr("V", scope, d)
        forms = [
            f"np.stack([{v1}, {v2}])",
            f"np.concatenate([{v1}[None, :], {v2}[None]], axis=0)",
            f"{self.expr('M', scope, d)}.reshape(3, 2).T",
            f"np.vstack([{v1}, {v2}])",
            f"np.outer({self.expr('W', scope, d)}, {v1})",
            f"np.transpose({self.expr('M', scope, d)}.T)",
        ]
        if self.rng.random() < 0.3:
            self.tags.add("comprehensions")
            inner = scope.copy()
            row = self.fresh("row")
            inner.names[row] = "V"
            return f"np.stack([{self.expr('V', inner, d)} for {row} in {self.expr('M', scope, d)}])"
        self.tags.add("expressions")
        return self.rng.choice(forms)
