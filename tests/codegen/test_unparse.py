"""Generated code reads the same on every supported Python: 3.10's ast.unparse put tuple
targets in parentheses, 3.11 does not, and zygote_py prints the 3.11 form everywhere."""

from __future__ import annotations

import ast

import pytest

from zygote_py.codegen.unparse import unparse


@pytest.mark.parametrize("source", [
    "a, b = x",
    "a, = x",
    "a, (b, c) = x",
    "a, *b = x",
    "a = b, c = x",
    "x = (a, b)",
    "x[a, b] = 1",
    "() = x",
    "for a, b in z:\n    y = (a, b)",
    "for a, in z:\n    pass",
    "[1 for a, b in z if a]",
    "return (a, b)",
])
def test_the_same_text_on_every_python(source):
    assert unparse(ast.parse(source)) == source
