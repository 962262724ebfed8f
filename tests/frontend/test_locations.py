"""Source locations are in characters, as a user counts them, not in the UTF-8 bytes
Python's parser records (zygote_py/frontend/source.py: loc_of): the same on a line of
ASCII, told apart on a line with other characters before the node."""

import ast
import linecache

import pytest

from zygote_py.frontend.source import loc_of

LINES = [
    'def f(x):\n',
    '    s = "héllo wörld"; y = x ** 2\n',
    '    z = x ** 3\n',
]


@pytest.fixture
def filename():
    name = "<test_locations>"
    linecache.cache[name] = (sum(map(len, LINES)), None, LINES, name)
    yield name
    del linecache.cache[name]


def _powers(source: str):
    return [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.BinOp)]


def test_a_node_after_other_characters_is_located_in_characters(filename):
    after_accents, _ = _powers("".join(LINES))
    line = LINES[1]
    assert after_accents.col_offset == line.encode().index(b"x ** 2")  # bytes, from the parser
    loc = loc_of(filename, after_accents)
    assert (loc.line, loc.col, loc.end_col) == (2, line.index("x ** 2"), line.index("x ** 2") + 6)
    assert loc.col == after_accents.col_offset - 2  # two 2-byte characters before it


def test_a_node_on_an_ascii_line_keeps_its_column(filename):
    _, plain = _powers("".join(LINES))
    loc = loc_of(filename, plain)
    assert (loc.line, loc.col, loc.end_col) == (3, 8, 14)


def test_a_column_past_the_end_of_the_line_read_stops_at_its_end(filename):
    # (a file edited since it was parsed: the line now read is shorter)
    node = _powers("def f(x):\n" + " " * 60 + "y = x ** 2\n")[0]
    assert loc_of(filename, node).col == len(LINES[1])  # in characters
    node = _powers("def f(x):\n    (\n" + " " * 40 + "x ** 4)\n")[0]
    assert loc_of(filename, node).col == len(LINES[2])
