"""codegen/tracebacks.py: an error raised by the user's own code while the generated code
runs shows the user's file, line and function in its traceback, after the generated frame
that ran it; in particular for an error in a returned expression (which the generated code
computes on a line of its own) and through each entry point (gradient, params, jacobian).
These run on every supported Python (.ci/run), whose traceback objects differ."""

from __future__ import annotations

import traceback

import numpy as np
import pytest

import zygote_py as zp


def _index_past_the_end(v):
    w = v * 2.0
    return w[5]


def returns_a_bad_index(x):
    y = np.sin(x)
    return _index_past_the_end(y) * 3.0


class Layer:
    def __init__(self):
        self.W = np.ones((2, 2))

    def __call__(self, x):
        h = self.W @ x
        return np.sum(h) + {"a": 1.0}["b"]


def _user_frames(err):
    """(line, function, source text) of the traceback's frames in this file, outermost first."""
    return [(f.lineno, f.name, f.line) for f in traceback.extract_tb(err.__traceback__)
            if f.filename == __file__]


HELPER_RETURN = (_index_past_the_end.__code__.co_firstlineno + 2, "_index_past_the_end",
                 "return w[5]")
CALLER_RETURN = (returns_a_bad_index.__code__.co_firstlineno + 2, "returns_a_bad_index",
                 "return _index_past_the_end(y) * 3.0")


@pytest.mark.parametrize("entry", [
    lambda: zp.gradient(returns_a_bad_index, np.ones(3)),
    lambda: zp.pullback(returns_a_bad_index, np.ones(3)),
    lambda: zp.jacobian(_index_past_the_end, np.ones(3)),
])
def test_an_error_in_a_returned_expression_names_that_line(entry):
    with pytest.raises(IndexError) as info:
        entry()
    frames = _user_frames(info.value)
    assert frames[-1] == HELPER_RETURN  # the line that failed, not the statement before it
    if CALLER_RETURN in frames:
        assert frames.index(CALLER_RETURN) < frames.index(HELPER_RETURN)


def test_the_caller_of_a_helper_is_shown_before_it():
    with pytest.raises(IndexError) as info:
        zp.gradient(returns_a_bad_index, np.ones(3))
    assert _user_frames(info.value)[-2:] == [CALLER_RETURN, HELPER_RETURN]


def test_an_error_in_a_method_under_implicit_params_names_the_method():
    layer = Layer()
    with pytest.raises(KeyError) as info:
        zp.gradient(lambda: layer(np.ones(2)), zp.params(layer.W))
    line = Layer.__call__.__code__.co_firstlineno + 2
    assert _user_frames(info.value)[-1] == (line, "__call__", 'return np.sum(h) + {"a": 1.0}["b"]')


def test_the_error_itself_is_unchanged():
    with pytest.raises(IndexError, match="index 5 is out of bounds") as info:
        zp.gradient(returns_a_bad_index, np.ones(3))
    assert type(info.value) is IndexError


def pads_by_its_maximum(x):
    padded = np.pad(x, (1, 2), mode="maximum")  # (mode='edge' has a rule now)
    return np.sum(padded ** 2)


def test_a_rule_refusing_its_arguments_is_a_no_derivative_rule_at_the_users_line():
    # np.pad's rule refuses mode='maximum' when it runs: that was a bare NotImplementedError
    with pytest.raises(zp.NoDerivativeRule, match=r"no derivative rule for np.pad\(mode='maximum'\)") as info:
        zp.gradient(pads_by_its_maximum, np.array([1.0, 2.0]))
    assert info.value.loc is not None
    assert info.value.loc.line == pads_by_its_maximum.__code__.co_firstlineno + 1
    assert "@zp.adjoint" in info.value.hint
    with pytest.raises(zp.NoDerivativeRule, match="no derivative rule for np.pad"):
        zp.jvp(pads_by_its_maximum, (np.array([1.0, 2.0]),), (np.ones(2),))
