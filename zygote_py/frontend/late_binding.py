"""Python's late binding of closures, checked where the compiler cannot follow it.

A nested function (a `def` or a lambda) reads its free variables when it is
*called*, from cells it shares with the enclosing function: in

    fs = [lambda t: t * i for i in range(3)]

every lambda sees the last `i`.  Called directly, a nested function is inlined
at the call with the caller's current values, which is exactly that.  Made into
a value (stored, passed, returned), it becomes a `closure` op over the values
its free variables have at that point.  The two agree unless one of those
variables may be assigned again while the function value still exists: by a
statement after that point, or by a loop around it (its target, or any
assignment in its body, which runs again on the next iteration).  That is
refused (`late_rebinding`), never computed with the earlier value.

A function value passed to a call whose result is used at once as a number
(`if helper(lambda q: q * u, u) > 0:` in a loop) is called before anything can
rebind its variables, and is allowed (`used_at_once`).  The check reads the
source only, so it errs on the side of refusing: an assignment in another nested
scope to a variable of the same name counts too.
"""

from __future__ import annotations

import gast

_LOOPS = (gast.For, gast.While, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


class RebindingIndex:
    """Where each name of one function (and the functions nested in it) is assigned."""

    def __init__(self, root, static_object=None):
        # the object a callee expression names when the function is transformed, or None
        # (Lowerer.static_object): zp.checkpointed is recognised by the object, not its name
        self.static_object = static_object
        self.parents: dict[int, object] = {}
        self.assigned: dict[str, list] = {}
        for parent in gast.walk(root):
            for child in gast.iter_child_nodes(parent):
                self.parents[id(child)] = parent
        for node in gast.walk(root):
            if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
                self.assigned.setdefault(node.id, []).append(node)
            elif isinstance(node, (gast.FunctionDef, gast.ClassDef)) and node is not root:
                self.assigned.setdefault(node.name, []).append(node)

    def ancestors(self, node):
        node = self.parents.get(id(node))
        while node is not None:
            yield node
            node = self.parents.get(id(node))

    def statement_of(self, node):
        """The statement a node belongs to (an assignment takes effect when it ends)."""
        if isinstance(node, gast.stmt):
            return node
        for above in self.ancestors(node):
            if isinstance(above, gast.stmt):
                return above
        return node

    def used_at_once(self, made) -> bool:
        """The function value is an argument of a call of a named function (a helper, not
        a method such as `fs.append`) whose result is consumed as a
        number right there (`if helper(lambda q: q * u, u) > 0`, `s += helper(g)`): the
        callee runs it before anything else can rebind its variables, and cannot keep it
        (writes into containers and objects it did not create are refused) or return
        it (what it returns is added, compared or dropped)."""
        call = self.parents.get(id(made))
        if isinstance(call, gast.keyword):
            call = self.parents.get(id(call))
        if isinstance(call, gast.Call) and self.static_object is not None \
                and _calls_at_once(self.static_object(call.func)) and call.args \
                and call.args[0] is made:
            return True  # zp.checkpointed(f, ...) calls f now; its recomputation in the
            # backward pass uses the values f captured when it was made, as the call did
        if not isinstance(call, gast.Call) or not isinstance(call.func, gast.Name):
            return False  # a method (`fs.append(g)`) may well keep it
        consumer = self.parents.get(id(call))
        if isinstance(consumer, (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Expr)):
            return True
        if isinstance(consumer, gast.Call) and call in consumer.args and _numeric(consumer.func):
            return True  # math.cos(helper(g)), abs(helper(g)): a number comes out
        if isinstance(consumer, (gast.If, gast.While, gast.IfExp, gast.Assert)):
            return consumer.test is call
        return isinstance(consumer, gast.AugAssign) and consumer.value is call

    def rebound_after(self, name: str, made) -> object | None:
        """An assignment to `name` that may run after the function value `made` is made
        (while it may still be called), or None."""
        sites = self.assigned.get(name, ())
        if not sites or self.used_at_once(made):
            return None
        made_at = (made.lineno, made.col_offset)
        loops = [a for a in self.ancestors(made) if isinstance(a, _LOOPS)]
        for site in sites:
            stmt = self.statement_of(site)
            if stmt is not made and any(n is made for n in gast.walk(stmt)):
                return site  # `a = helper(lambda t: t * a)`: the store comes after the lambda
            if (stmt.lineno, stmt.col_offset) > made_at:
                return site
            for loop in loops:
                if any(site is n for n in gast.walk(loop)):
                    return site
        return None


_NUMERIC_BUILTINS = frozenset({"abs", "float", "round"})


def _calls_at_once(obj) -> bool:
    """zp.checkpointed (zygote_py/hooks.py; named here by module, the frontend sits below it)."""
    return getattr(obj, "__module__", None) == "zygote_py.hooks" and \
        getattr(obj, "__name__", None) == "checkpointed"


def _numeric(func) -> bool:
    """A callee that makes a number of its argument: `math.<f>`, a NumPy ufunc
    (`np.sin`), abs, float, round -- never one that could hold a function value."""
    if isinstance(func, gast.Name):
        return func.id in _NUMERIC_BUILTINS
    if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name):
        if func.value.id == "math":
            return True
        if func.value.id in ("np", "numpy"):
            import numpy as np

            return isinstance(getattr(np, func.attr, None), np.ufunc)
    return False
