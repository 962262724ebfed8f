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

The check reads the source only, so it errs on the side of refusing: an
assignment in another nested scope to a variable of the same name counts too.
"""

from __future__ import annotations

import gast

_LOOPS = (gast.For, gast.While, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


class RebindingIndex:
    """Where each name of one function (and the functions nested in it) is assigned."""

    def __init__(self, root):
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

    def rebound_after(self, name: str, made) -> object | None:
        """An assignment to `name` that may run after the function value `made` is made
        (while it may still be called), or None."""
        sites = self.assigned.get(name, ())
        if not sites:
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
