"""Random programs over objects built in the call (runtime/built_objects.py): a few
objects, each built from an input, then a random sequence of method calls that
write attributes (their results used or not), direct writes, reads kept in
variables, property reads and helper calls, inside loops and branches.  Each
program's value is checked against plain Python and its gradient against central
differences.  `python -m pytest tests/runtime/test_built_objects_random.py
--objects-programs N` is not needed: raise PROGRAMS here to search further."""

import random
import textwrap

import numpy as np
import pytest
from corpus.finite_diff import numerical_gradient

import zygote_py as zp

PROGRAMS = int(__import__("os").environ.get("ZP_OBJECT_PROGRAMS", "25"))

PRELUDE = '''
import numpy as np


class Cell:
    scale = 0.5

    def __init__(self, a, b):
        self.a = a
        self.b = b

    def bump(self, v):
        self.a = self.a + v * self.b

    def swap(self):
        self.a, self.b = self.b, self.a
        return self

    def grow(self, k):
        self.b *= k
        return self.b

    @property
    def both(self):
        return self.a * self.b + self.scale


def poke(cell, v):
    cell.b = cell.b - v


def twice(cell):
    cell.bump(cell.b)
    return cell
'''

STATEMENTS = [
    "{o}.bump({e})",
    "{o}.swap()",
    "t = t + {o}.grow({k})",
    "{o}.a = {e} * {o}.b",
    "{o}.b += {e}",
    "t = t * 0.5 + {o}.both",
    "r = {o}.a",
    "poke({o}, {e})",
    "t = t + r * {o}.b",
    "held = [{o}, t]\n{pad}held[0].bump(held[1])",
    "{o} = {o}.swap()",
    "{o} = Cell({e}, {o}.a)",
    "t = t + twice({o}).a",
]
EXPRESSIONS = ["x", "y", "x * y", "np.sin(x)", "t", "r", "0.3", "{o}.a", "{o}.b"]


def _program(rng: random.Random) -> str:
    objects = ["c0", "c1"][: rng.randint(1, 2)]
    lines = ["r = x", "t = 0.0"]
    lines += [f"{o} = Cell({rng.choice(['x', 'y', '0.7'])}, {rng.choice(['y', 'x * 2.0', '1.1'])})"
              for o in objects]

    def statement(pad=""):
        o = rng.choice(objects)
        expr = rng.choice(EXPRESSIONS).format(o=rng.choice(objects))
        return rng.choice(STATEMENTS).format(o=o, e=expr, k=rng.choice(["1.5", "0.5", "x"]),
                                             pad=pad)

    for _ in range(rng.randint(3, 7)):
        shape = rng.random()
        if shape < 0.2:
            lines.append(f"for i in range({rng.randint(1, 3)}):")
            lines += ["    " + statement("    ") for _ in range(rng.randint(1, 2))]
        elif shape < 0.35:
            lines.append(f"if {rng.choice(['x', 'y'])} > 0.0:")
            lines.append("    " + statement("    "))
            lines.append("else:")
            lines.append("    " + statement("    "))
        else:
            lines.append(statement())
    reads = " + ".join(f"{o}.a * {o}.b" for o in objects)
    lines.append(f"return t + r + {reads}")
    return "def f(x, y):\n" + textwrap.indent("\n".join(lines), "    ") + "\n"


def _load(source: str, tmp_path, index: int):
    path = tmp_path / f"objects_program_{index}.py"
    path.write_text(PRELUDE + "\n\n" + source)
    namespace = {"__name__": f"objects_program_{index}", "__file__": str(path)}
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102
    return namespace["f"]


@pytest.mark.parametrize("seed", range(PROGRAMS))
def test_random_object_program(seed, tmp_path):
    rng = random.Random(seed)
    source = _program(rng)
    f = _load(source, tmp_path, seed)
    x, y = 0.3 + 0.1 * (seed % 5), -0.4 + 0.07 * (seed % 7)
    want_value = f(x, y)
    value, grads = zp.withgradient(f, x, y)
    assert np.isclose(value, want_value, rtol=1e-12, atol=1e-12), source
    want = numerical_gradient(f, (x, y))
    for got, fd in zip(grads, want):
        assert np.isclose(0.0 if got is None else got, fd, rtol=1e-5, atol=1e-6), \
            f"{source}\ngot {grads}, finite differences {want}"
