"""Statement families where users go and the first generator did not: mixed into
StmtWriter (stmts.py) like extra_stmts.py.  Each producer records its family in
`self.tags` (the per-construct table) and returns lines that bind one new name.

array_writes       writes into arrays the function made: an item, a slice, a mask, an
                   augmented item, through an alias, through a view, np.add.at, out=,
                   item writes in a loop
built_objects      objects of the program's own classes built inside f (object_classes
                   below): attributes written by methods and from outside, a property,
                   a dataclass (frozen too), operator dunders, a subclass with super()
closure_forms      a closure returned by a nested function, a closure over a dict, a
                   closure called in a loop
dict_list_ops      dict(zip(...)), dict comprehensions, d.get, |=, update, slicing and
                   concatenating lists, list(array), sorted(d.items()), nested containers
iterator_builtins  map / filter / sorted(key=) / reversed / enumerate over map /
                   itertools.chain as values fed to sum, max, np.stack
while_break        `while True:` with a counter and a data-dependent break, and
                   `while ...: ... else:`
overflow_products  a product that sums over an axis (@, np.dot, np.einsum, np.tensordot,
                   np.inner, np.outer, np.vdot, np.matmul) meeting an overflowed (+inf)
                   entry: either the inf is active (np.exp of an offset expression) and
                   np.where keeps only the finite entries, or it is a constant, the
                   entries that meet it are held at 1 (a zero tangent) and tanh
                   saturates.  Each needs the strong zero of products (reverse mode,
                   resp. forward mode): a zero cotangent or tangent entry against inf.

Like the rest of the generator, values stay bounded and smooth where evaluated;
thresholds are random, and the oracle skips a program that lands on a kink.
"""

from __future__ import annotations

from .literals import const

# the classes `built_objects` uses, written into the module when the family is on
OBJECT_CLASSES = '''
class Point:
    scale_default = 1.5

    def __init__(self, s, v):
        self.s = s
        self.v = v
        self.count = 0

    def scale(self, k):
        self.s = self.s * k
        self.count += 1

    def shift(self, w):
        self.v = self.v + w * self.s

    @property
    def norm(self):
        return self.s * self.s + np.sum(self.v * self.v)

    def value(self):
        return np.sum(np.sin(self.v)) * self.s + self.norm * 0.1 + self.count


class Scaled(Point):
    def __init__(self, s, v, k):
        super().__init__(s * k, v)
        self.k = k

    def value(self):
        return super().value() * self.k + self.s


@dataclass
class Pair:
    a: float
    b: object

    def combine(self):
        return self.a * np.sum(np.cos(self.b))


@dataclass(frozen=True)
class Frozen:
    a: float
    b: float

    def total(self):
        return self.a * 2.0 + self.b * self.a


class Vec:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __add__(self, o):
        return Vec(self.x + o.x, self.y + o.y)

    def __sub__(self, o):
        return Vec(self.x - o.x, self.y - o.y)

    def __mul__(self, k):
        return Vec(self.x * k, self.y * k)

    def __rmul__(self, k):
        return Vec(k * self.x, k * self.y)

    def __neg__(self):
        return Vec(-self.x, -self.y)

    def __matmul__(self, o):
        return self.x * o.x + self.y * o.y

    def __getitem__(self, i):
        return self.x if i == 0 else self.y

    def __call__(self, t):
        return self.x * t + self.y
'''


class FamilyStmts:
    """Statement producers; each takes (scope, nest, in_loop, can_return)."""

    # ------------------------------------------------------------------ array writes

    def array_writes(self, scope, nest, in_loop, can_return):
        self.tags.add("array_writes")
        buf, out, al, i = self.fresh("buf"), self.fresh("v"), self.fresh("al"), self.fresh("i")
        s1, s2 = self.expr("S", scope, 2), self.expr("S", scope, 1)
        v1 = self.expr("V", scope, 2)
        form = self.rng.randrange(9)
        ty = "V"
        if form == 0:
            lines = [f"{buf} = np.zeros(3)", f"{buf}[{self.rng.randrange(3)}] = {s1}",
                     f"{out} = {buf} * {self.expr('V', scope, 1)}"]
        elif form == 1:
            lines = [f"{buf} = {v1} * 1.0", f"{buf}[{buf} > {const(self.rng, -0.5, 0.5)}] = {s1}",
                     f"{out} = {buf} + {buf} * {buf}"]
        elif form == 2:
            lines = [f"{buf} = {v1} * 1.0", f"{buf}[1] += {s1}", f"{buf}[0] *= {s2}",
                     f"{out} = {buf}"]
        elif form == 3:
            lines = [f"{buf} = {v1} * 1.0", f"{al} = {buf}", f"{al}[2] = {s1}",
                     f"{out} = {buf} + {al} * {s2}"]
        elif form == 4:
            lines = [f"{buf} = {self.expr('M', scope, 2)} * 1.0", f"{al} = {buf}[0]",
                     f"{al} *= {s1}", f"{out} = {buf}[0] + {buf}[1] * {al}"]
        elif form == 5:
            lines = [f"{buf} = np.zeros(3)", f"np.add.at({buf}, [0, 2, 0], {v1})",
                     f"{out} = {buf} * {s1}"]
        elif form == 6:
            lines = [f"{buf} = np.empty(3)", f"np.multiply({v1}, {self.expr('V', scope, 1)}, out={buf})",
                     f"{out} = {buf} + {s1}"]
        elif form == 7:
            ty = "M"
            lines = [f"{buf} = np.ones((2, 3))", f"{buf}[:, 1] = {self.expr('W', scope, 2)}",
                     f"{buf}[1, ::2] -= {s1}", f"{out} = {buf}"]
        else:
            lines = [f"{buf} = np.zeros(3)", f"for {i} in range(3):",
                     f"    {buf}[{i}] = {s1} * {i} + {v1}[{i}]", f"{out} = {buf}"]
        scope.names[out] = ty
        return lines

    # ------------------------------------------------------------------ objects built inside

    def built_objects(self, scope, nest, in_loop, can_return):
        if not self.has_object_classes:
            return self.assign_new(scope, nest, in_loop, can_return)
        self.tags.add("built_objects")
        obj, out, q = self.fresh("obj"), self.fresh("v"), self.fresh("obj")
        s1, s2, s3 = (self.expr("S", scope, 2) for _ in range(3))
        v1 = self.expr("V", scope, 2)
        form = self.rng.randrange(7)
        if form == 0:
            lines = [f"{obj} = Point({s1}, {v1})", f"{obj}.scale({s2})", f"{out} = {obj}.value()"]
        elif form == 1:
            lines = [f"{obj} = Point({s1}, {v1})", f"{obj}.s = {obj}.s + {s2}",
                     f"{obj}.shift({self.expr('V', scope, 1)})", f"{out} = {obj}.norm + {obj}.scale_default"]
        elif form == 2:
            lines = [f"{obj} = Scaled({s1}, {v1}, {s2})", f"{obj}.scale({s3})", f"{out} = {obj}.value()"]
        elif form == 3:
            lines = [f"{obj} = Pair({s1}, {v1})", f"{obj}.a = {obj}.a * {s2}", f"{out} = {obj}.combine()"]
        elif form == 4:
            lines = [f"{obj} = Frozen({s1}, {s2})", f"{out} = {obj}.total() + {obj}.b"]
        elif form == 5:
            lines = [f"{obj} = Vec({s1}, {s2}) + 2.0 * Vec({s3}, 0.5)",
                     f"{q} = -({obj} - Vec({s2}, {s1}) * 0.5)",
                     f"{out} = {obj} @ {q} + {obj}[1] + {q}({s3})"]
        else:
            lines = [f"{obj} = [Point({s1}, {v1}), Point({s2}, {v1} * 0.5)]",
                     f"for {q} in {obj}:", f"    {q}.scale({s3})",
                     f"{out} = sum({q}.value() for {q} in {obj})"]
        scope.names[out] = "S"
        return lines

    # ------------------------------------------------------------------ closures

    def closure_forms(self, scope, nest, in_loop, can_return):
        if self.nesting:  # nested functions defined in a branch or loop: see closure_def
            return self.assign_new(scope, nest, in_loop, can_return)
        self.tags.add("closure_forms")
        fn, out, t, i, c = self.fresh("fn"), self.fresh("v"), self.fresh("t"), self.fresh("i"), self.fresh("c")
        inner = scope.copy()
        inner.names[t] = "S"
        body = self.expr("S", inner, 2)
        for n in scope.names:
            if n in body:
                scope.frozen.add(n)
        form = self.rng.randrange(3)
        if form == 0:
            mk = self.fresh("mk")
            lines = [f"def {mk}({c}):", f"    def {fn}({t}):", f"        return {body} * {c}",
                     f"    return {fn}", f"{out} = {mk}({self.expr('S', scope, 1)})({self.expr('S', scope, 1)})"]
        elif form == 1:
            cfg = self.fresh("d")
            lines = [f"{cfg} = {{'w': {self.expr('S', scope, 2)}, 'z': 0.5}}",
                     f"{fn} = lambda {t}: {t} * {cfg}['w'] + {cfg}['z']",
                     f"{out} = {fn}({self.expr('S', scope, 1)}) * {fn}(0.3)"]
        else:
            lines = [f"def {fn}({t}):", f"    return {body}", f"{out} = 0.0",
                     f"for {i} in range({self.rng.randint(1, 3)}):", f"    {out} = {out} * 0.5 + {fn}({out} + {i})"]
        scope.names[out] = "S"
        return lines

    # ------------------------------------------------------------------ dict and list operations

    def dict_list_ops(self, scope, nest, in_loop, can_return):
        self.tags.add("dict_list_ops")
        d, out, k, x = self.fresh("d"), self.fresh("v"), self.fresh("k"), self.fresh("t")
        a, b, c = (self.expr("S", scope, 2) for _ in range(3))
        form = self.rng.randrange(8)
        if form == 0:
            lines = [f"{d} = dict(zip(['a', 'b', 'c'], [{a}, {b}, {c}]))",
                     f"{out} = sum({d}.values()) * {d}.get('b', 0.0) + {d}.get('z', 0.5)"]
        elif form == 1:
            lines = [f"{d} = {{{k}: {x} * 2.0 for {k}, {x} in zip('abc', {self.expr('V', scope, 2)})}}",
                     f"{out} = {d}['a'] + {d}['c'] * {a}"]
        elif form == 2:
            lines = [f"{d} = [{a}, {b}, {c}]", f"{d} = {d}[::-1] + {d}[1:]",
                     f"{out} = sum({d}) + {d}[0] * {d}[-1]"]
        elif form == 3:
            lines = [f"{d} = {{'a': {a}}}", f"{d}.update({{'b': {b}}})", f"{d} |= {{'c': {c}}}",
                     f"{out} = sum({d}.values()) * {d}['b']"]
        elif form == 4:
            lines = [f"{d} = list({self.expr('V', scope, 2)})", f"{d}[1] = {a}",
                     f"{out} = sum({x} * {x} for {x} in {d})"]
        elif form == 5:
            lines = [f"{d} = {{'b': {a}, 'a': {b}, 'c': {c}}}", f"{k} = sorted({d}.items())",
                     f"{out} = {k}[0][1] * 2.0 + {k}[-1][1]"]
        elif form == 6:
            lines = [f"{d} = {{'p': [{a}, {b}], 'q': {{'r': {c}}}}}",
                     f"{d}['p'].append({d}['q']['r'] * 2.0)",
                     f"{out} = {d}['p'][2] * {d}['p'][0] + {d}['q']['r']"]
        else:
            lines = [f"{d} = [[{a}, {b}], [{c}, 1.0]]", f"{k} = [sum(row) for row in {d}]",
                     f"{out} = {k}[0] * {k}[1] + len({d})"]
        scope.names[out] = "S"
        return lines

    # ------------------------------------------------------------------ iterator builtins

    def iterator_builtins(self, scope, nest, in_loop, can_return):
        self.tags.add("iterator_builtins")
        out, t, u, i = self.fresh("v"), self.fresh("t"), self.fresh("t"), self.fresh("i")
        v1, s1 = self.expr("V", scope, 2), self.expr("S", scope, 2)
        items = f"[{s1}, {self.expr('S', scope, 1)}, {self.expr('S', scope, 1)}]"
        form = self.rng.randrange(8)
        if form == 0:
            lines = [f"{out} = sum(map(lambda {t}: {t} * {t} + 0.5 * {t}, {v1}))"]
        elif form == 1:
            lines = [f"{out} = sum(filter(lambda {t}: {t} > {const(self.rng, -0.5, 0.5)}, {items})) + 0.25"]
        elif form == 2:
            srt = self.fresh("srt")
            lines = [f"{srt} = sorted({items}, key=lambda {t}: -{t})", f"{out} = {srt}[0] * 2.0 + {srt}[-1]"]
        elif form == 3:
            lines = [f"{out} = sum({t} * {u} for {t}, {u} in zip({v1}, reversed(list({v1}))))"]
        elif form == 4:
            lines = [f"{out} = sum({i} * {t} for {i}, {t} in enumerate(map(np.sin, {v1})))"]
        elif form == 5:
            lines = [f"{out} = np.sum(np.stack(list(map(lambda {t}: {t} * {s1}, {self.expr('M', scope, 1)}))))"]
        elif form == 6:
            lines = [f"{out} = sum({t} for {t} in itertools.chain({v1}, {self.expr('W', scope, 1)}))"]
        else:
            lines = [f"{out} = max(map(lambda {t}: {t} * 2.0, {items})) + min({items})"]
        scope.names[out] = "S"
        return lines

    # ------------------------------------------------------------------ while loops with break

    # ------------------------------------------------------------------ overflow products

    # (product, the moving operand's type, the inf operand's type, the result's type);
    # the inf operand is a vector of length n meeting the moving operand's axis `axis`
    _OVERFLOW_PRODUCTS = (
        ("{a} @ {e}", "M", 3, 1, "W"), ("np.dot({a}, {e})", "M", 3, 1, "W"),
        ("np.matmul({a}, {e})", "M", 3, 1, "W"), ("np.einsum('ij,j->i', {a}, {e})", "M", 3, 1, "W"),
        ("np.tensordot({a}, {e}, axes=1)", "M", 3, 1, "W"), ("np.inner({a}, {e})", "M", 3, 1, "W"),
        ("{e} @ {a}", "M", 2, 0, "V"), ("np.einsum('i,ij->j', {e}, {a})", "M", 2, 0, "V"),
        ("np.vdot({a}, {e})", "V", 3, 0, "S"), ("np.outer({a}, {e})", "W", 3, None, "M"),
    )

    def overflow_products(self, scope, nest, in_loop, can_return):
        self.tags.add("overflow_products")
        e, a, p, out = self.fresh("e"), self.fresh("a"), self.fresh("p"), self.fresh("v")
        product, a_ty, n, axis, p_ty = self.rng.choice(self._OVERFLOW_PRODUCTS)
        where_inf = self.rng.randrange(n)
        offsets = [0.0] * n
        offsets[where_inf] = 1000.0  # exp(1000 + bounded) is +inf
        moving = self.expr(a_ty, scope, 2)
        if axis is None or self.rng.random() < 0.5:
            # the inf is active; the moving operand is positive (+inf sums, never nan)
            vec = self.expr("V" if n == 3 else "W", scope, 2)
            lines = [f"{e} = np.exp(np.array({offsets}) + {vec})",
                     f"{a} = {moving} * {moving} + 0.5",
                     f"{p} = {product.format(a=a, e=e)}",
                     f"{out} = np.sum(np.where(np.isfinite({p}), {p}, 0.0)) * {const(self.rng, 0.2, 1.0)}"]
        else:
            # the inf is a constant; the entries meeting it are held at 1 (no tangent)
            held = [False] * n
            held[where_inf] = True
            mask = f"np.array({held})" if axis == 1 else f"np.array({held})[:, None]"
            if a_ty == "V":
                mask = f"np.array({held})"
            lines = [f"{e} = np.exp(np.array({offsets}) + {const(self.rng, -0.5, 0.5)})",
                     f"{a} = np.where({mask}, 1.0, {moving})",
                     f"{p} = {product.format(a=a, e=e)}",
                     f"{out} = np.sum(np.tanh({p})) + np.sum({a} * {a}) * {const(self.rng, 0.1, 0.5)}"]
        scope.names[out] = "S"
        return lines

    def while_break(self, scope, nest, in_loop, can_return):
        self.tags.add("while_break")
        k, acc = self.fresh("k"), self.fresh("acc")
        limit = self.rng.randint(1, 4)
        inner = scope.copy()
        inner.names[acc] = "S"
        step = self.expr("S", inner, 2)
        lines = [f"{k} = 0", f"{acc} = {self.expr('S', scope, 2)}"]
        if self.rng.random() < 0.6:
            lines += ["while True:", f"    {k} += 1", f"    {acc} = {acc} * 0.7 + np.sin({step})",
                      f"    if {k} >= {limit} or {acc} > {const(self.rng, 1.0, 2.0)}:", "        break"]
        else:
            lines += [f"while {k} < {limit}:", f"    {k} += 1", f"    {acc} = {acc} * 0.6 + np.cos({step})",
                      f"    if {acc} < {const(self.rng, -2.0, -1.0)}:", "        break",
                      "else:", f"    {acc} = {acc} + 0.5"]
        scope.names[acc] = "S"
        scope.names[k] = "I"
        scope.frozen.add(k)
        return lines
