"""Every op a cotangent can reach has an adjoint handler, looked up by opcode; an op
without one is refused with an InternalError at the user's line, never a silent zero."""

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp
from zygote_py.ad import reverse
from zygote_py.errors import InternalError


def _scaled_sin(x):
    y = np.sin(x) * 3.0
    return y


def test_an_op_without_an_adjoint_is_an_internal_error_naming_the_op_and_line(monkeypatch):
    def fresh(x):  # its own function object: no cached gradient to reuse
        y = np.sin(x) * 3.0
        return y

    monkeypatch.delitem(reverse.ADJOINT_HANDLERS, "call")
    with pytest.raises(InternalError) as info:
        zp.gradient(fresh, 0.4)
    err = info.value
    assert isinstance(err, zp.ZygoteError)
    assert "'call'" in err.message
    assert err.loc is not None and err.loc.filename == __file__
    assert err.loc.line == fresh.__code__.co_firstlineno + 1
    assert "y = np.sin(x) * 3.0" in str(err)


def test_with_the_table_intact_the_same_function_differentiates():
    x = 0.4
    (g,) = zp.gradient(_scaled_sin, x)
    assert g == pytest.approx(3.0 * np.cos(x), rel=1e-12)
    assert_gradient_matches(g, numerical_gradient(_scaled_sin, (x,))[0], x, "x")


@pytest.mark.parametrize("opcode", ["call", "callv", "method", "getattr", "global", "cell",
                                    "closure", "tuple", "list", "dict", "unpack", "append",
                                    "extend", "setitem", "if", "for", "while"])
def test_every_op_that_can_carry_a_cotangent_has_a_handler(opcode):
    assert callable(reverse.ADJOINT_HANDLERS[opcode])
