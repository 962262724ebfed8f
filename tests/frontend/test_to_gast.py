"""zygote_py/frontend/to_gast.py gives the tree gast.ast_to_gast gives, node for node, with
the location attributes, for every syntax form: a sample written to hold each of them,
the rule modules of zygote_py, and standard-library modules that use the rest."""

import ast
import inspect
import pathlib
import sys
import textwrap

import gast
import pytest

import zygote_py
from zygote_py.frontend import to_gast as module
from zygote_py.frontend.to_gast import to_gast

SAMPLE = '''
import os.path as osp, sys
from collections import OrderedDict as OD, deque


@decorator(1, key=2)
async def every_form(a, b: int = 1, /, c=2, *args, d, e: "str" = "x", **kwargs) -> None:
    """A docstring."""
    global G
    x = y = a + b - c * d / e // 2 % 3 ** 4 @ m
    x += 1; x -= 1; x *= 2; x @= m; x //= 2; x **= 2; x >>= 1; x <<= 1; x |= 1; x &= 1; x ^= 1
    (p, [q, *r]), s = t
    z: int = 3
    w: float
    del w
    u = -a, +b, ~c, not d
    v = a < b <= c > d >= e == f != g is h is not i in j not in k
    o = a and b or c
    lam = lambda x, *ys, k=1, **kw: (x, ys, k, kw)
    comp = [i for i in range(3) if i if not i], {i for i in s}, {k: v for k, v in d.items()}
    gen = (i async for i in aiter())
    walrus = [(n := i) for i in range(3)]
    fs = f"{a!r:>{width}} {b=} {c:.3f}" + b"bytes" + r"raw" + ...
    sl = a[1:2, ::3, ..., None][:, 1] + a[b:c:d]
    st = {**d, "k": 1}, [*a, *b], (*a,), f(*a, **d)
    ifexp = a if b else c
    await something()
    async with ctx() as (c1, c2), other():
        pass
    async for item in stream():
        continue
    try:
        raise ValueError("x") from None
    except (TypeError, ValueError) as err:
        pass
    except Exception:
        raise
    else:
        pass
    finally:
        pass
    while a:
        break
    else:
        pass
    for i, j in pairs:
        if i:
            pass
        elif j:
            pass
        else:
            pass
    with open(p) as fh:
        yield fh
    yield from gen
    assert a, "message"
    match command:
        case [x, y, *rest] if x:
            pass
        case {"k": v, **others}:
            pass
        case Point(x=0, y=yy) | Point(x=yy, y=0):
            pass
        case (str() as s_) | None:
            pass
        case _:
            pass
    return


class Holder(Base, metaclass=Meta):
    attribute: int = 1

    def method(self):
        nonlocal_user = 1

        def inner():
            nonlocal nonlocal_user
            nonlocal_user += 1
        return inner
'''

TRY_STAR = '''
def groups():
    try:
        pass
    except* ValueError as e:
        pass
'''

TYPE_PARAMS = '''
def first[T: int, *Ts, **P](x: T) -> T:
    type Alias[K] = list[K]
    return x


class Box[T]:
    pass
'''


def _dump(node) -> str:
    return ast.dump(node, include_attributes=True)


def _assert_same(tree: ast.AST) -> None:
    for node in tree.body:
        assert _dump(to_gast(node)) == _dump(gast.ast_to_gast(node)), ast.unparse(node)[:200]


@pytest.mark.parametrize("source", [SAMPLE, TRY_STAR, TYPE_PARAMS], ids=["forms", "try_star", "type_params"])
def test_every_syntax_form_converts_as_gast_does(source):
    if source is TYPE_PARAMS and sys.version_info < (3, 12):
        pytest.skip("type parameters are new in 3.12")
    if source is TRY_STAR and sys.version_info < (3, 11):
        pytest.skip("except* is new in 3.11")
    _assert_same(ast.parse(textwrap.dedent(source)))


def test_the_rule_modules_of_zygote_py_convert_as_gast_does():
    # (the functions converted in every first build; the whole package takes ten seconds)
    files = sorted((pathlib.Path(zygote_py.__file__).parent / "rules").glob("*.py"))
    assert len(files) > 20
    for path in files:
        _assert_same(ast.parse(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("name", ["argparse", "asyncio.tasks", "dataclasses", "inspect", "typing"])
def test_standard_library_modules_convert_as_gast_does(name):
    _assert_same(ast.parse(inspect.getsource(__import__(name, fromlist=["_"]))))


def test_the_trees_are_fresh_gast_nodes():
    node = ast.parse("def f(x):\n    return x + 1\n").body[0]
    converted = to_gast(node)
    assert isinstance(converted, gast.FunctionDef)
    assert isinstance(converted.args.args[0], gast.Name) and isinstance(converted.args.args[0].ctx, gast.Param)
    returned = converted.body[0].value
    assert isinstance(returned, gast.BinOp) and returned is not node.body[0].value
    assert (returned.lineno, returned.col_offset, returned.end_col_offset) == (2, 11, 16)


def test_an_unchecked_gast_version_takes_gasts_own_converter(monkeypatch):
    calls = []
    monkeypatch.setattr(module, "_CHECKED", False)
    monkeypatch.setattr(module.gast, "ast_to_gast", lambda node: calls.append(node) or "gast's")
    node = ast.parse("def f(x):\n    return x\n").body[0]
    assert to_gast(node) == "gast's" and calls == [node]
