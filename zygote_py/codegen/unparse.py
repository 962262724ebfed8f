"""`unparse`: ast.unparse, printing the same text on every supported Python.

Python 3.10's ast.unparse wraps a tuple target in parentheses (`(a, b) = x`,
`for (a, b) in z`, `[1 for (a, b) in z]`); 3.11 and later print `a, b = x`.
Generated code (golden files, `zygote-py grad` modules, `grad_source`) must not
depend on the interpreter that made it, so the 3.11 form is printed everywhere.
"""

from __future__ import annotations

import ast
import sys


def unparse(node: ast.AST) -> str:
    if sys.version_info >= (3, 11):
        return ast.unparse(node)
    return _Unparser310().visit(node)


if sys.version_info < (3, 11):

    class _Unparser310(ast._Unparser):  # type: ignore[name-defined]  # 3.10's own printer
        """3.10's printer with 3.11's bare tuple targets (nested tuples keep theirs)."""

        def _target(self, target: ast.AST) -> None:
            if isinstance(target, ast.Tuple) and target.elts:
                self.items_view(self.traverse, target.elts)
            else:
                self.traverse(target)

        def visit_Assign(self, node: ast.Assign) -> None:
            self.fill()
            for target in node.targets:
                self._target(target)
                self.write(" = ")
            self.traverse(node.value)
            type_comment = self.get_type_comment(node)
            if type_comment:
                self.write(type_comment)

        def _for_helper(self, fill: str, node: ast.For) -> None:
            self.fill(fill)
            self._target(node.target)
            self.write(" in ")
            self.traverse(node.iter)
            with self.block(extra=self.get_type_comment(node)):
                self.traverse(node.body)
            if node.orelse:
                self.fill("else")
                with self.block():
                    self.traverse(node.orelse)

        def visit_comprehension(self, node: ast.comprehension) -> None:
            self.write(" async for " if node.is_async else " for ")
            self.set_precedence(ast._Precedence.TUPLE, node.target)  # type: ignore[attr-defined]
            self._target(node.target)
            self.write(" in ")
            self.set_precedence(ast._Precedence.TEST.next(), node.iter, *node.ifs)  # type: ignore[attr-defined]
            self.traverse(node.iter)
            for if_clause in node.ifs:
                self.write(" if ")
                self.traverse(if_clause)
