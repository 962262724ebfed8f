"""Less common statement shapes, mixed into StmtWriter (stmts.py).

unpack_helper  `u, w = pair_helper(x)` (a helper returning a tuple)
factory_call   `g = make_k(c)`: a closure made by a module-level factory
lambda_list    `fs = [lambda..., lambda...]` called in a generator
build_list     a list appended to in a loop, then stacked / summed
layers_loop    a loop over a list of Layer objects
container_methods  list and dict methods on a container the function made (insert, pop,
               remove, reverse, sort, del, clear, copy, update, setdefault, d.pop)
iterator_values    iterators bound to names: zip, iter/next, zip(*pairs), enumerate(start=)
mutation_probe writes into arrays, which zygote_py documents it refuses
               (item and slice writes): the only acceptable outcomes are a
               ZygoteError or a right answer
"""

from __future__ import annotations

from .literals import const
from .types import fn_type


class ExtraStmts:
    """Statement producers; each takes (scope, nest, in_loop, can_return)."""

    def unpack_helper(self, scope, nest, in_loop, can_return):
        pairs = [h for h in self.helpers if h[2] == "pair"]
        if not pairs:
            return self.assign_new(scope, nest, in_loop, can_return)
        self.tags.update(("helpers", "containers"))
        name, params, _, _ = self.rng.choice(pairs)
        a, b = self.fresh("u"), self.fresh("u")
        args = ", ".join(self.expr(p, scope, 2) for p in params)
        scope.names[a], scope.names[b] = "S", "V"
        return [f"{a}, {b} = {name}({args})"]

    def factory_call(self, scope, nest, in_loop, can_return):
        factories = [h for h in self.helpers if h[2] == "factory"]
        if not factories or self.nesting:
            return self.assign_new(scope, nest, in_loop, can_return)
        self.tags.update(("helpers", "closures"))
        name = self.rng.choice(factories)[0]
        g = self.fresh("g")
        line = f"{g} = {name}({self.expr('S', scope, 2)})"
        scope.names[g] = fn_type("V", "V")
        return [line]

    def lambda_list(self, scope, nest, in_loop, can_return):
        if self.nesting:
            return self.assign_new(scope, nest, in_loop, can_return)
        self.tags.add("closures")
        fs, p, q, fn = self.fresh("fs"), self.fresh("p"), self.fresh("p"), self.fresh("fn")
        inner_p, inner_q = scope.copy(), scope.copy()
        inner_p.names[p], inner_q.names[q] = "S", "S"
        body_p, body_q = self.expr("S", inner_p, 2), self.expr("S", inner_q, 2)
        for n in scope.names:
            if n in body_p or n in body_q:
                scope.frozen.add(n)
        v = self.fresh("v")
        lines = [
            f"{fs} = [lambda {p}: {body_p}, lambda {q}: {body_q}]",
            f"{v} = sum({fn}({self.expr('S', scope, 1)}) for {fn} in {fs})",
        ]
        scope.names[v] = "S"
        return lines

    def build_list(self, scope, nest, in_loop, can_return):
        self.tags.update(("containers", "control_flow"))
        hs, h, i, out = self.fresh("hs"), self.fresh("h"), self.fresh("i"), self.fresh("v")
        inner = scope.copy()
        inner.names[h], inner.names[i] = "V", "I"
        start = self.expr("V", scope, 2)
        step = self.expr("V", inner, 2)
        finish = self.rng.choice(
            [
                f"np.mean(np.stack({hs}), axis=0)",
                f"sum({hs})",
                f"{hs}[-1]",
                f"np.stack({hs}).T @ np.ones(len({hs}))",
            ]
        )
        scope.names[out] = "V"
        return [
            f"{hs} = []",
            f"{h} = {start}",
            f"for {i} in range({self.rng.randint(1, 4)}):",
            f"    {h} = np.tanh({step})",
            f"    {hs}.append({h})",
            f"{out} = {finish}",
        ]

    def layers_loop(self, scope, nest, in_loop, can_return):
        layers = scope.of_type("LO")
        accs = scope.rebindable("S")
        if not layers or not accs:
            return self.assign_new(scope, nest, in_loop, can_return)
        self.tags.update(("objects", "iterators"))
        layer, acc = self.fresh("layer"), self.rng.choice(accs)
        inner = scope.copy()
        inner.names[layer] = "O"
        call = self.rng.choice(
            [
                f"{layer}({self.expr('V', inner, 1)})",
                f"{layer}.forward({self.expr('V', inner, 1)})",
                f"{layer}.b * {layer}.energy",
            ]
        )
        return [f"for {layer} in {self.rng.choice(layers)}:", f"    {acc} = {acc} + np.sum({call})"]

    def container_methods(self, scope, nest, in_loop, can_return):
        self.tags.add("containers")
        p, q, out = self.fresh("p"), self.fresh("p"), self.fresh("v")
        a, b, c = (self.expr("S", scope, 2) for _ in range(3))
        form = self.rng.randrange(7)
        if form == 0:
            lines = [f"{p} = [{a}, {b}]", f"{p}.insert(0, {c})", f"{out} = {p}[0] * 2.0 + {p}[-1]"]
        elif form == 1:
            lines = [f"{p} = [{a}, {b}, {c}]", f"{out} = {p}.pop() + {p}.pop(0) * 0.5 + sum({p})"]
        elif form == 2:
            lines = [f"{p} = [{a}, {b}, {c}]", f"{p}.reverse()", f"{p}.sort()",
                     f"{out} = {p}[0] - 2.0 * {p}[-1]"]
        elif form == 3:
            lines = [f"{p} = [{a}, {b} * 2.0, {c}]", f"{p}.remove({p}[1])", f"del {p}[0]",
                     f"{out} = sum({p}) + len({p})"]
        elif form == 4:
            lines = [f"{p} = {{'a': {a}, 'b': {b}}}", f"{p}.update(c={c})",
                     f"{p}.setdefault('e', {a})", f"{out} = {p}.pop('a') + sum({p}.values())"]
        elif form == 5:
            lines = [f"{p} = [{a}, {b}]", f"{q} = {p}.copy()", f"{q}[0] = {c}",
                     f"{out} = {q}[0] * {p}[0] + {q}[1]"]
        else:
            lines = [f"{p} = [{a}]", f"{p}.clear()", f"{p}.extend([{b}, {c}])",
                     f"{out} = {p}[0] + {p}[1] * {p}[1]"]
        scope.names[out] = "S"
        return lines

    def iterator_values(self, scope, nest, in_loop, can_return):
        self.tags.add("iterators")
        it, out, t, u = self.fresh("it"), self.fresh("v"), self.fresh("t"), self.fresh("t")
        form = self.rng.randrange(4)
        if form == 0:
            lines = [f"{it} = zip({self.expr('V', scope, 1)}, {self.expr('V', scope, 1)})",
                     f"{out} = sum({t} * {u} for {t}, {u} in {it})"]
        elif form == 1:
            lines = [f"{it} = iter({self.expr('V', scope, 1)})", f"{t} = next({it})",
                     f"{out} = {t} * 2.0 + sum({it})"]
        elif form == 2:
            pairs = f"[({self.expr('S', scope, 1)}, {self.expr('S', scope, 1)}), ({self.expr('S', scope, 1)}, 0.5)]"
            lines = [f"{t}, {u} = zip(*{pairs})", f"{out} = sum({t}) * sum({u})"]
        else:
            lines = [f"{it} = enumerate({self.expr('V', scope, 1)}, start=1)",
                     f"{out} = sum({t} / {u} for {u}, {t} in {it})"]
        scope.names[out] = "S"
        return lines

    def mutation_probe(self, scope, nest, in_loop, can_return):
        self.tags.add("mutation")
        buf, out = self.fresh("buf"), self.fresh("v")
        form = self.rng.randrange(3)
        if form == 0:
            lines = [
                f"{buf} = np.zeros(3)",
                f"{buf}[{self.rng.randrange(3)}] = {self.expr('S', scope, 2)}",
                f"{out} = {buf} * {self.expr('V', scope, 1)}",
            ]
        elif form == 1:
            lines = [
                f"{buf} = {self.expr('V', scope, 1)} * 1.0",
                f"{buf}[1:] += {self.expr('W', scope, 2)}",
                f"{out} = {buf}",
            ]
        else:
            lines = [
                f"{buf} = np.zeros_like({self.expr('V', scope, 1)})",
                f"{buf}[:] = {self.expr('V', scope, 2)}",
                f"{out} = {buf} + {const(self.rng)}",
            ]
        scope.names[out] = "V"
        return lines
