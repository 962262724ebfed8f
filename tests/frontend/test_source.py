"""Locating a function's source exactly: defs, methods, nested defs, lambdas on one line."""

import sys

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.compiler import COMPILER
from zygote_py.frontend import source
from zygote_py.frontend.source import find_function_node

# Lambdas on one line with the same parameters are told apart by code positions, which
# CPython records from 3.11 (co_positions); before, the compiler refuses instead of guessing.
needs_positions = pytest.mark.skipif(sys.version_info < (3, 11), reason="co_positions is new in 3.11")


def two_lambdas():
    return (lambda x: x * 2.0), (lambda x: x * 3.0)


def lambda_in_call(f):
    return f


PICKED = lambda_in_call(lambda x: x ** 3)
INNER = (lambda a: (lambda x: x * a))(5.0)


class Layer:
    def __init__(self):
        self.w = 2.0

    def forward(self, x):
        return self.w * np.sin(x)


@needs_positions
def test_two_lambdas_on_one_line_are_told_apart():
    double, triple = two_lambdas()
    assert zp.gradient(double, 1.0) == (2.0,)
    assert zp.gradient(triple, 1.0) == (3.0,)


def test_lambdas_on_one_line_are_refused_without_code_positions(monkeypatch):
    # what Python 3.10 gives: no instruction positions, so no way to tell the two apart
    monkeypatch.setattr(source, "_positions", lambda code: [])
    COMPILER.clear()  # compiled entries are shared by code object: find the source afresh
    double, triple = two_lambdas()
    for f in (double, triple):
        with pytest.raises(zp.ZygoteError, match="cannot tell which lambda on line") as info:
            zp.gradient(f, 1.0)
        assert "own line" in info.value.hint


def test_lambda_inside_a_call_and_nested_lambdas():
    assert zp.gradient(PICKED, 2.0) == (12.0,)
    assert zp.gradient(INNER, 1.0) == (5.0,)


def test_method_source_and_real_line_numbers():
    node, filename = find_function_node(Layer.forward)
    assert filename.endswith("test_source.py")
    assert node.lineno == Layer.forward.__code__.co_firstlineno
    layer = Layer()
    (g,) = zp.gradient(layer.forward, 0.3)
    assert np.isclose(g, 2.0 * np.cos(0.3))


def test_nested_def_inside_a_test():
    scale = 4.0

    def inner(x):
        return x * scale

    assert zp.gradient(inner, 1.0) == (4.0,)


def test_source_unavailable_for_exec():
    namespace = {}
    exec("def made(x):\n    return x * x\n", namespace)  # noqa: S102
    with pytest.raises(zp.SourceUnavailable):
        zp.gradient(namespace["made"], 1.0)
