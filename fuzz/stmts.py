"""Random statements and function bodies.

`StmtWriter.body(scope, n, nest)` returns the lines of a body of about `n`
statements (indented by the caller).  Names a statement defines go into
`scope` only where Python guarantees they are bound afterwards: a name set in
only one branch of an `if`, or inside a loop, is dropped after it, so every
program runs without NameError.  Loops are bounded (range of at most 4,
while loops with a counter), so every program terminates.
"""

from __future__ import annotations

from .exprs import ExprWriter
from .extra_stmts import ExtraStmts
from .families import FamilyStmts
from .literals import array_literal, const
from .types import ARRAYS, NUMERIC, Scope, fn_type

EXPR_DEPTH = 3


def indent(lines: list[str], by: int = 1) -> list[str]:
    return ["    " * by + line for line in lines]


class StmtWriter(FamilyStmts, ExtraStmts, ExprWriter):
    """Adds statements to ExprWriter."""

    def body(
        self, scope: Scope, n: int, nest: int, in_loop: bool = False, can_return: bool = True
    ) -> list[str]:
        lines: list[str] = []
        simple = [
            self.assign_new,
            self.assign_new,
            self.assign_new,
            self.rebind,
            self.augmented,
            self.container_stmt,
            self.closure_def,
            self.unpack_helper,
            self.factory_call,
            self.lambda_list,
            self.container_methods,
            self.iterator_values,
            self.mutation_probe,
            self.array_writes,
            self.built_objects,
            self.closure_forms,
            self.dict_list_ops,
            self.iterator_builtins,
            self.while_break,
            self.overflow_products,
        ]
        compound = [
            self.if_stmt,
            self.for_range,
            self.for_iter,
            self.while_loop,
            self.accumulator_block,
            self.build_list,
            self.layers_loop,
        ]
        for _ in range(n):
            pool = self.allowed(simple + (compound if nest > 0 else []))
            make = self.rng.choice(pool)
            lines += make(scope, nest, in_loop, can_return)
        if in_loop and self.rng.random() < 0.3 and "control_flow" in self.enabled:
            self.tags.add("control_flow")
            cond = f"{self.expr('S', scope, 1)} > {const(self.rng, -0.5, 0.5)}"
            lines += [f"if {cond}:", f"    {self.rng.choice(['break', 'continue'])}"]
        return lines or ["pass"]

    # ------------------------------------------------------------------ simple statements

    def assign_new(self, scope, nest, in_loop, can_return):
        ty = self.rng.choice(NUMERIC + ("S", "V"))
        name = self.fresh("v")
        text = self.expr(ty, scope, EXPR_DEPTH)
        scope.names[name] = ty
        return [f"{name} = {text}"]

    def rebind(self, scope, nest, in_loop, can_return):
        ty = self.rng.choice(NUMERIC)
        names = scope.rebindable(ty)
        if not names:
            return self.assign_new(scope, nest, in_loop, can_return)
        name = self.rng.choice(names)
        return [f"{name} = ({name} * 0.5 + {self.expr(ty, scope, EXPR_DEPTH - 1)})"]

    def augmented(self, scope, nest, in_loop, can_return):
        names = scope.rebindable("S")
        if not names:
            return self.assign_new(scope, nest, in_loop, can_return)
        self.tags.add("expressions")
        op = self.rng.choice(["+=", "-=", "*="])
        rhs = self.expr("S", scope, EXPR_DEPTH - 1)
        if op == "*=":
            rhs = f"math.cos({rhs})"
        return [f"{self.rng.choice(names)} {op} {rhs}"]

    def accumulator_block(self, scope, nest, in_loop, can_return):
        """In-place augmented assignment on an array the function just created
        (Python writes into it; nothing else can see it)."""
        self.tags.add("expressions")
        ty = self.rng.choice(ARRAYS)
        acc = self.fresh("acc")
        lines = [f"{acc} = {self.expr(ty, scope, EXPR_DEPTH - 1)} * 1.0"]
        for _ in range(self.rng.randint(1, 3)):
            op = self.rng.choice(["+=", "-=", "*="])
            rhs = self.expr(self.rng.choice([ty, "S"]), scope, EXPR_DEPTH - 1)
            lines.append(f"{acc} {op} {rhs}")
        scope.names[acc] = ty
        return lines

    def container_stmt(self, scope, nest, in_loop, can_return):
        self.tags.add("containers")
        form = self.rng.randrange(7)
        lists = scope.rebindable("L")
        dicts = scope.rebindable("D")
        if form == 0 or (form in (1, 2) and not lists):
            name = self.fresh("xs")
            items = [self.expr("S", scope, 2) for _ in range(self.rng.randint(1, 3))]
            scope.names[name] = "L"
            return [f"{name} = [{', '.join(items)}]"]
        if form == 1:
            return [f"{self.rng.choice(lists)}.append({self.expr('S', scope, 2)})"]
        if form == 2:
            return [
                f"{self.rng.choice(lists)}.extend([{self.expr('S', scope, 2)}, {self.expr('S', scope, 1)}])"
            ]
        if form == 3 or (form == 4 and not dicts):
            name = self.fresh("d")
            line = f"{name} = {{'a': {self.expr('S', scope, 2)}, 'b': {self.expr('S', scope, 2)}}}"
            scope.names[name] = "D"
            return [line]
        if form == 4:
            d = self.rng.choice(dicts)
            return [f"{d}['{self.rng.choice('abc')}'] = {self.expr('S', scope, 2)}"]
        if form == 5:
            a, b = self.fresh("u"), self.fresh("u")
            ta, tb = self.rng.choice(NUMERIC), self.rng.choice(NUMERIC)
            line = f"{a}, {b} = {self.expr(ta, scope, 2)}, {self.expr(tb, scope, 2)}"
            if self.rng.random() < 0.4:
                c = self.fresh("u")
                line = f"{a}, *{c}, {b} = ({self.expr(ta, scope, 1)}, {self.expr('S', scope, 1)}, {self.expr('S', scope, 1)}, {self.expr(tb, scope, 1)})"
                scope.names[c] = "L"
            scope.names[a], scope.names[b] = ta, tb
            return [line]
        name = self.fresh("vs")
        line = f"{name} = [{self.expr('V', scope, 2)}, {self.expr('V', scope, 2)}]"
        scope.names[name] = "LV"
        return [line]

    def closure_def(self, scope, nest, in_loop, can_return):
        if self.nesting:  # zygote_py refuses conditionally defined nested functions
            return self.assign_new(scope, nest, in_loop, can_return)
        self.tags.add("closures")
        name = self.fresh("g")
        arg, ret = self.rng.choice([("S", "S"), ("V", "V"), ("V", "S"), ("M", "W")])
        inner = scope.copy()
        p = self.fresh("p")
        inner.names[p] = arg
        # the closure reads outer names; freeze them (see Scope.frozen)
        body = self.expr(ret, inner, EXPR_DEPTH - 1)
        for n in scope.names:
            if n in body:
                scope.frozen.add(n)
        scope.names[name] = fn_type(arg, ret)
        if self.rng.random() < 0.5:
            return [f"{name} = lambda {p}: {body}"]
        return [f"def {name}({p}):", f"    return {body}"]

    # ------------------------------------------------------------------ control flow

    def condition(self, scope) -> str:
        e = self.expr("S", scope, 2)
        t = const(self.rng, -0.5, 0.5)
        return self.rng.choice(
            [
                f"{e} > {t}",
                f"{e} < {t}",
                f"not {e} > {t}",
                f"{e} > {t} and {self.expr('S', scope, 1)} < 0.8",
                f"{t} < {e} < 5.0",
            ]
        )

    def if_stmt(self, scope, nest, in_loop, can_return):
        self.tags.add("control_flow")
        branches, lines = [], []
        n_branches = self.rng.choice([1, 2, 2, 3])
        has_else = returns = False
        for k in range(n_branches):
            inner = scope.copy()
            if k == n_branches - 1 and k > 0 and self.rng.random() < 0.7:
                lines.append("else:")
                has_else = True
            else:
                lines.append(f"{'if' if k == 0 else 'elif'} {self.condition(scope)}:")
            self.nesting += 1
            body = self.body(inner, self.rng.randint(1, 3), nest - 1, in_loop, can_return)
            self.nesting -= 1
            if can_return and self.rng.random() < 0.15:
                body = body + [f"return {self.expr('S', inner, 2)}"]
                returns = True
            lines += indent(body)
            branches.append(inner)
        if has_else and not returns:
            scope.merge_branches(branches)
        else:
            for b in branches:
                scope.frozen |= b.frozen
        return lines

    def for_range(self, scope, nest, in_loop, can_return):
        self.tags.add("control_flow")
        i = self.fresh("i")
        bound = self.int_expr(scope) if self.rng.random() < 0.5 else str(self.rng.randint(1, 4))
        rng_text = self.rng.choice(
            [f"range({bound})", f"range(1, {bound} + 1)", f"range({bound}, 0, -1)"]
        )
        return self.loop(scope, nest, f"for {i} in {rng_text}:", {i: "I"}, can_return)

    def for_iter(self, scope, nest, in_loop, can_return):
        self.tags.add("iterators")
        a, b = self.fresh("t"), self.fresh("t")
        lists = scope.of_type("L")
        dicts = scope.of_type("D")
        forms = [
            (f"for {a} in {self.expr('V', scope, 1)}:", {a: "S"}),
            (f"for {a} in {self.expr('M', scope, 1)}:", {a: "V"}),
            (
                f"for {a}, {b} in zip({self.expr('V', scope, 1)}, {self.expr('V', scope, 1)}):",
                {a: "S", b: "S"},
            ),
            (f"for {b}, {a} in enumerate({self.expr('W', scope, 1)}):", {a: "S", b: "I"}),
            (f"for {a} in ({self.expr('S', scope, 1)}, {self.expr('S', scope, 1)}):", {a: "S"}),
        ]
        if lists:
            lst = self.rng.choice(lists)
            forms += [(f"for {a} in reversed({lst}):", {a: "S"}), (f"for {a} in {lst}:", {a: "S"})]
        if dicts:
            d = self.rng.choice(dicts)
            forms += [
                (f"for {b}, {a} in {d}.items():", {a: "S"}),
                (f"for {a} in {d}.values():", {a: "S"}),
            ]
        head, targets = self.rng.choice(forms)
        # never append to the list being iterated: the loop would not end
        iterated = [n for n in lists if f" {n}:" in head or f"({n})" in head]
        return self.loop(scope, nest, head, targets, can_return, iterated)

    def loop(self, scope, nest, head, targets, can_return, iterated=()):
        inner = scope.copy()
        inner.names.update(targets)
        inner.frozen.update(iterated)
        carried = scope.rebindable("S") + scope.rebindable("V")
        body = []
        if carried and self.rng.random() < 0.8:
            c = self.rng.choice(carried)
            body.append(f"{c} = {c} * 0.5 + {self.expr(scope.names[c], inner, 2)}")
        self.nesting += 1
        body += self.body(inner, self.rng.randint(1, 3), nest - 1, True, can_return)
        self.nesting -= 1
        lines = [head] + indent(body)
        if self.rng.random() < 0.15:
            self.tags.add("control_flow")
            names = scope.rebindable("S")
            stmt = f"{names[0]} = {names[0]} + 0.5" if names else "pass"
            lines += ["else:", f"    {stmt}"]
        scope.frozen |= inner.frozen
        return lines

    def while_loop(self, scope, nest, in_loop, can_return):
        self.tags.add("control_flow")
        k = self.fresh("k")
        limit = self.rng.randint(1, 4)
        cond = f"{k} < {limit}"
        if self.rng.random() < 0.4:
            cond += f" and {self.expr('S', scope, 1)} < 3.0"
        inner = scope.copy()
        inner.names[k] = "I"
        inner.frozen.add(k)
        carried = scope.rebindable("S")
        body = [f"{k} += 1"]
        if carried:
            c = self.rng.choice(carried)
            body.append(f"{c} = {c} * 0.9 + {self.expr('S', inner, 2)}")
        self.nesting += 1
        body += self.body(inner, self.rng.randint(1, 2), nest - 1, True, can_return)
        self.nesting -= 1
        scope.frozen |= inner.frozen
        scope.names[k] = "I"
        scope.frozen.add(k)
        return [f"{k} = 0", f"while {cond}:"] + indent(body)


def literal_of(rng, ty: str, class_name: str) -> str:
    """Source text of an argument value of type `ty`."""
    if ty == "S":
        return repr(round(rng.uniform(-1.0, 1.0), 3))
    if ty in ARRAYS:
        return array_literal(rng, ty)
    if ty == "I":
        return str(rng.randint(1, 3))
    if ty == "L":
        return f"[{', '.join(const(rng) for _ in range(rng.randint(1, 3)))}]"
    if ty == "LV":
        return f"[{array_literal(rng, 'V')}, {array_literal(rng, 'V')}]"
    if ty == "D":
        return f"{{'a': {const(rng)}, 'b': {const(rng)}}}"
    if ty == "T":
        return f"({const(rng)}, {array_literal(rng, 'V')})"
    if ty == "O":
        return f"{class_name}({array_literal(rng, 'M')}, {array_literal(rng, 'W')})"
    if ty == "LO":
        return f"[{literal_of(rng, 'O', class_name)}, {literal_of(rng, 'O', class_name)}]"
    raise ValueError(ty)
