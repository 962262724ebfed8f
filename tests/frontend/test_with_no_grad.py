"""`with zp.no_grad():` inside a differentiated function (frontend/lower_stmt.py:
stmt_With): what the block computes carries no derivative, what it merely rebinds keeps
its own; every other `with` is refused at the user's line."""

from __future__ import annotations

import numpy as np
import pytest

import zygote_py as zp
from tests.frontend import no_grad_cases
from tests.frontend.no_grad_cases import CASES

X = np.array([0.3, -0.7, 1.1])
W = np.array([0.5, 1.5, -0.2])


def _zero_if_none(g):
    return 0.0 if g is None else g


@pytest.mark.parametrize("f, ref", CASES, ids=[f.__name__ for f, _ in CASES])
def test_a_no_grad_block_differentiates_as_stop_gradient_around_what_it_computes(f, ref):
    np.testing.assert_allclose(f(X, W), ref(X, W))  # the block runs as written
    got, want = zp.gradient(f, X, W), zp.gradient(ref, X, W)
    for a, b in zip(got, want):
        np.testing.assert_allclose(_zero_if_none(a), _zero_if_none(b), rtol=1e-12, atol=1e-15)


def test_the_closed_form_of_the_straight_case():
    # f = s * sum(x w) + sum(x x) with s = sum(x w) held constant
    s = np.sum(X * W)
    dx, dw = zp.gradient(no_grad_cases.straight, X, W)
    np.testing.assert_allclose(dx, s * W + 2 * X)
    np.testing.assert_allclose(dw, s * X)
    # without the block, s would carry its derivative too: the block does change the gradient
    tracked = zp.gradient(lambda x, w: np.sum(x * w) ** 2 + np.sum(x * x), X, W)[0]
    assert not np.allclose(tracked, dx)


def test_the_block_leaves_no_backward_code():
    source = zp.grad_source(no_grad_cases.inside_loop, args=(X, W))
    forward, backward = source.split("dy_1 = ")
    assert "= _zp_untracked(np.mean(h" in forward
    assert "np.mean" not in backward and "m_bar" not in backward


PARAM = np.array([[1.0, 2.0], [3.0, 4.0]])


class Holder:
    def __init__(self, W):
        self.W = W


HOLDER = Holder(PARAM)


def params_loss():
    with zp.no_grad():
        norm = np.linalg.norm(HOLDER.W)
        snapshot = HOLDER.W  # an attribute read is untracked too
        same = PARAM  # a name bound to a global's value keeps its derivative
    return np.sum(HOLDER.W * HOLDER.W) / norm + np.sum(snapshot) + 2.0 * np.sum(same)


def test_a_no_grad_block_in_a_params_call():
    grads = zp.gradient(params_loss, zp.params(PARAM))
    np.testing.assert_allclose(grads[PARAM], 2 * PARAM / np.linalg.norm(PARAM) + 2.0)


def two_managers(x):
    with zp.no_grad(), zp.no_grad():
        y = x * 2
    return np.sum(y)


def named(x):
    with zp.no_grad() as ctx:
        y = x * 2
    return np.sum(y)


def without_call(x):
    with zp.no_grad:
        y = x * 2
    return np.sum(y)


def other_manager(x):
    with np.errstate(all="ignore"):
        y = x * 2
    return np.sum(y)


def with_arguments(x):
    with zp.no_grad(True):
        y = x * 2
    return np.sum(y)


@pytest.mark.parametrize("f, message", [
    (two_managers, "several context managers"),
    (named, "binds nothing useful"),
    (without_call, "needs the call"),
    (other_manager, "with blocks are not supported"),
    (with_arguments, "with blocks are not supported"),
])
def test_other_with_statements_are_refused_at_the_users_line(f, message):
    with pytest.raises(zp.UnsupportedSyntax, match=message) as info:
        zp.gradient(f, np.ones(2))
    assert info.value.loc is not None and info.value.loc.filename == __file__
    assert info.value.loc.line == f.__code__.co_firstlineno + 1


def test_outside_differentiated_code_the_block_just_runs():
    with zp.no_grad() as nothing:
        y = np.sum(X)
    assert nothing is None and y == pytest.approx(np.sum(X))


def test_a_write_through_a_view_made_under_no_grad_is_refused_at_the_write():
    with pytest.raises(zp.MutationError, match="no_grad") as err:
        zp.gradient(no_grad_cases.write_through_untracked_view, X, W)
    assert "y[0] = 5.0" in str(err.value)


def test_a_buffer_made_under_no_grad_is_filled_with_derivatives():
    np.testing.assert_allclose(no_grad_cases.fill_untracked_buffer(X, W), no_grad_cases.fill_buffer_ref(X, W))
    got = zp.gradient(no_grad_cases.fill_untracked_buffer, X, W)
    want = zp.gradient(no_grad_cases.fill_buffer_ref, X, W)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12)
