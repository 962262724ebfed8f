"""End-to-end gradients of the corpus (tests/corpus/*.py) against finite differences.

For every case `(f, args)` of every corpus module:
  - `zp.gradient(f, *args)` matches central finite differences in float64 for
    every float, every element of every float array, and inside tuples, lists,
    dicts and objects; each gradient has its argument's type and shape (float ->
    float, ndarray -> same-shape ndarray, container -> same container, object ->
    dict of attributes, int / bool / str -> None; None also stands for zero);
  - `zp.withgradient` returns f(*args) and the same gradients;
  - `zp.pullback`'s `back(1.0)` is the gradient, `back(2.0)` twice it, and
    `back` can be called again and again;
  - differentiating does not modify the arguments.
Also: lambdas written right here in the test, and `print` running exactly
once per gradient call.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from corpus import Case, all_cases, rand
from corpus.control_flow import print_side_effect
from corpus.finite_diff import (
    ATOL,
    RTOL,
    assert_gradient_matches,
    as_real,
    assert_trees_close,
    kind_of,
    numerical_gradient,
    to_scalar,
    tree_map,
)

import zygote_py as zp

CASES = all_cases()
IDS = [ident for ident, _ in CASES]
ALL = [case for _, case in CASES]


def _atol(value: float) -> float:
    return ATOL * max(1.0, abs(value))


def _check_against_fd(case: Case, grads) -> None:
    args = case.args
    assert isinstance(grads, tuple), f"gradient must return a tuple, got {type(grads).__name__}"
    assert len(grads) == len(args), f"{len(grads)} gradients for {len(args)} arguments"
    y = to_scalar(case.func(*args))
    fd = numerical_gradient(case.func, args, case.wrt)
    for i, (g, want, arg) in enumerate(zip(grads, fd, args)):
        assert_gradient_matches(g, want, as_real(arg), f"arg{i}", atol=_atol(y), rtol=RTOL)


def _unchanged(before, after, path="args") -> None:
    """Arguments were not written to (arrays compared by value, objects by vars)."""
    if isinstance(before, np.ndarray):
        assert np.array_equal(before, after), f"{path} was modified"
    elif isinstance(before, (tuple, list)):
        for i, (b, a) in enumerate(zip(before, after)):
            _unchanged(b, a, f"{path}[{i}]")
    elif isinstance(before, dict):
        assert set(before) == set(after), f"{path}: keys changed"
        for k in before:
            _unchanged(before[k], after[k], f"{path}[{k!r}]")
    elif kind_of(before) == "object":
        _unchanged(vars(before), vars(after), path)
    else:
        assert before == after, f"{path} was modified"


# --------------------------------------------------------------------------- corpus


def test_corpus_is_large_enough():
    funcs = {(ident.split(".")[0], case.func) for ident, case in CASES}
    assert len(funcs) >= 110


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_case_is_well_formed(case: Case):
    """Plain Python, no zygote_py: the function runs and returns a real scalar."""
    y1 = to_scalar(case.func(*case.args))
    y2 = to_scalar(case.func(*case.args))
    assert math.isfinite(y1) and y1 == y2


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_gradient_matches_finite_differences(case: Case):
    args = copy.deepcopy(case.args)
    grads = zp.gradient(case.func, *args)
    _unchanged(case.args, args)
    _check_against_fd(case, grads)


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_withgradient_returns_value_and_same_grads(case: Case):
    args = copy.deepcopy(case.args)
    value, grads = zp.withgradient(case.func, *args)
    expected = to_scalar(case.func(*case.args))
    assert to_scalar(value) == pytest.approx(expected, rel=1e-12, abs=1e-300)
    assert_trees_close(grads, zp.gradient(case.func, *args), "withgradient grads")
    _unchanged(case.args, args)


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_pullback_scales_and_is_reusable(case: Case):
    args = copy.deepcopy(case.args)
    y, back = zp.pullback(case.func, *args)
    assert to_scalar(y) == pytest.approx(to_scalar(case.func(*case.args)), rel=1e-12, abs=1e-300)
    g1 = back(1.0)
    assert_trees_close(g1, zp.gradient(case.func, *args), "back(1.0)")
    g2 = back(2.0)
    assert_trees_close(g2, tree_map(lambda v: 2.0 * v, g1), "back(2.0)", rtol=1e-12)
    assert_trees_close(back(1.0), g1, "back(1.0) again")
    _unchanged(case.args, args)


# --------------------------------------------------------------------------- lambdas
# Each lambda on a line of its own: the compiler locates a lambda's source by line.

LAMBDAS = [
    (lambda x: x**3 - 2.0 * x, (0.7,)),
    (lambda x, y: math.sin(x) * y + y**2, (0.3, -1.2)),
    (lambda a: np.sum(np.tanh(a) ** 2), (rand(4, seed=1),)),
    (lambda W, x: np.sum((W @ x) ** 2), (rand(2, 3, seed=2), rand(3, seed=3))),
    (lambda x, n: x**n if n > 1 else -x, (1.3, 3)),
]


@pytest.mark.parametrize("func, args", LAMBDAS, ids=[f"lambda{i}" for i in range(len(LAMBDAS))])
def test_lambda_defined_in_test(func, args):
    _check_against_fd(Case(func, args), zp.gradient(func, *args))


def test_lambda_closing_over_test_local():
    scale = 2.5
    w = rand(3, seed=4)
    f = lambda a: np.sum(np.sin(a) * w) * scale
    a = rand(3, seed=5)
    (g,) = zp.gradient(f, a)
    np.testing.assert_allclose(g, np.cos(a) * w * scale, rtol=1e-10)


# --------------------------------------------------------------------------- side effects


def test_print_runs_once_per_gradient_call(capsys):
    capsys.readouterr()
    (g,) = zp.gradient(print_side_effect, 1.25)
    assert g == pytest.approx(2.5)
    assert capsys.readouterr().out == "value: 1.25\n"
    zp.gradient(print_side_effect, 1.25)  # a second (cached) call runs the primal again
    assert capsys.readouterr().out == "value: 1.25\n"
    zp.withgradient(print_side_effect, 0.5)
    assert capsys.readouterr().out == "value: 0.5\n"


def test_pullback_runs_the_primal_once_and_back_does_not_rerun_it(capsys):
    capsys.readouterr()
    _, back = zp.pullback(print_side_effect, 1.5)
    assert capsys.readouterr().out == "value: 1.5\n"
    assert back(1.0)[0] == pytest.approx(3.0)
    assert back(2.0)[0] == pytest.approx(6.0)
    assert capsys.readouterr().out == ""


# --------------------------------------------------------------------------- the checker itself


def test_finite_differences_against_hand_derivatives():
    """The numerical gradient (no zygote_py involved) of functions with known derivatives."""

    def f(x, a, t, d, n):
        return x**3 * np.sum(np.sin(a)) + t[0] * t[1] + d["w"] * len(d["s"]) + n

    x, a = 0.7, rand(3, seed=6)
    t, d = (1.5, -0.25), {"w": 2.0, "s": "abc"}
    gx, ga, gt, gd, gn = numerical_gradient(f, (x, a, t, d, 4))
    assert gx == pytest.approx(3 * x**2 * np.sum(np.sin(a)), rel=1e-8)
    np.testing.assert_allclose(ga, x**3 * np.cos(a), rtol=1e-8)
    assert gt == pytest.approx((t[1], t[0]), rel=1e-8)
    assert gd["w"] == pytest.approx(3.0, rel=1e-8) and gd["s"] is None
    assert gn == pytest.approx(1.0, rel=1e-8)  # an explicit int is differentiated as a real
    (gi,) = numerical_gradient(lambda v: np.sum(v**2), (np.arange(3),))
    np.testing.assert_allclose(gi, [0.0, 2.0, 4.0], atol=1e-6)
    assert numerical_gradient(lambda b, x: x * b, (True, 2.0))[0] is None


def test_checker_rejects_wrong_gradients():
    a = rand(3, seed=7)
    fd = numerical_gradient(lambda v: np.sum(v**2), (a,))[0]
    assert_gradient_matches(2 * a, fd, a, "ok")
    with pytest.raises(AssertionError):
        assert_gradient_matches(2 * a + 1e-3, fd, a, "wrong value")
    with pytest.raises(AssertionError):
        assert_gradient_matches((2 * a)[None], fd, a, "wrong shape")
    with pytest.raises(AssertionError):
        assert_gradient_matches(list(2 * a), fd, a, "wrong type")
    with pytest.raises(AssertionError):
        assert_gradient_matches(1.0, None, 3, "int gets a gradient")
    assert_gradient_matches(None, np.zeros(3), a, "None is zero")
