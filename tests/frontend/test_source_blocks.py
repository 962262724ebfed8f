"""The def's own lines, read without tokenizing them where the code positions tell where
the def ends (zygote_py/frontend/source.py: _fast_block), give the node the whole file's
parse gives, line and column numbers included, for every way a def may end; and the same
where Python records no positions (3.10) or where they cannot tell."""

import ast
import sys

import pytest
import source_block_cases as cases

from zygote_py.frontend import source

FUNCTIONS = [cases.one_line, cases.trailing_pass, cases.trailing_string,
             cases.dedented_continuation, cases.multi_line_string, cases.decorated.__wrapped__,
             cases.Holder.only_a_docstring, cases.Holder.method, cases.with_nested_lambda,
             cases.last_in_file]


def _from_the_whole_file(fn):
    with open(fn.__code__.co_filename) as file:
        tree = ast.parse(file.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == fn.__name__ and \
                (node.decorator_list[0].lineno if node.decorator_list else node.lineno) == \
                fn.__code__.co_firstlineno:
            return node
    raise AssertionError(fn)


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__qualname__)
@pytest.mark.parametrize("positions", [True, False])
def test_the_block_parses_to_the_files_node(fn, positions, monkeypatch):
    if not positions:
        monkeypatch.setattr(source, "_last_code_line", lambda code: None)
    code = fn.__code__
    node = source._def_from_block(code, code.co_filename, fn.__globals__)
    assert node is not None
    assert ast.dump(node, include_attributes=True) == \
        ast.dump(_from_the_whole_file(fn), include_attributes=True)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="co_positions is new in 3.11")
def test_the_fast_block_stops_at_the_last_instruction_only_where_nothing_follows():
    with open(cases.__file__) as file:
        lines = file.readlines()
    # a string after the return makes no instruction: the fast block cannot tell, getblock does
    assert source._fast_block(cases.trailing_string.__code__, lines) is None
    assert source._fast_block(cases.dedented_continuation.__code__, lines)[-1] == "1.0)\n"
    assert source._fast_block(cases.last_in_file.__code__, lines)[-1].strip() == "return x - 1.0"
    assert source._fast_block(cases.Holder.method.__code__, lines)[-1].strip().startswith(
        "return inner(x)")
    # the abstract method's docstring is all of it: cut at its first line, which does not
    # parse alone, so _def_from_block falls back to getblock
    assert source._fast_block(cases.Holder.only_a_docstring.__code__, lines) is not None
