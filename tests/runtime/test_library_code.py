"""A library function without a rule whose source cannot be differentiated is
reported at the user's call: the callee by its public name, how to add a rule,
and what was found inside the library as the detail."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import numpy as np
import pytest

TESTS = Path(__file__).resolve().parent.parent  # tests/, for error_cases and test_errors
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from error_cases import RAN, library  # noqa: E402
from test_errors import assert_points_at, marked_location  # noqa: E402

import zygote_py as zp  # noqa: E402
from zygote_py.runtime.library_code import is_library_function  # noqa: E402
from zygote_py.rules.registry import qualified_name  # noqa: E402


@pytest.fixture(autouse=True)
def _clear_side_effects():
    RAN.clear()
    yield
    RAN.clear()


def test_stdlib_function_is_reported_at_the_user_call():
    path, line, text = marked_location(library.stdlib_fmean)
    with pytest.raises(zp.NoDerivativeRule) as info:
        zp.gradient(library.stdlib_fmean, 0.5)
    assert_points_at(info.value, path, line, text, check_col=False)
    message = str(info.value)
    assert "statistics.fmean" in message and "@zp.adjoint(fmean)" in message
    assert "statistics.py" in message  # the detail: where in the library
    assert RAN == []


def test_library_calling_library_keeps_the_innermost_detail_once():
    path, line, text = marked_location(library.stdlib_mean_through_helper)
    with pytest.raises(zp.NoDerivativeRule) as info:
        zp.gradient(library.stdlib_mean_through_helper, 0.5)
    assert_points_at(info.value, path, line, text, check_col=False)
    message = str(info.value)
    assert "statistics.mean" in message and message.count("no derivative rule for") == 1
    assert "try/except is not supported at" in message and "statistics.py" in message


def test_scipy_function_is_named_by_its_public_module():
    pytest.importorskip("scipy.stats")
    path, line, text = marked_location(library.scipy_zscore)
    with pytest.raises(zp.NoDerivativeRule) as info:
        zp.gradient(library.scipy_zscore, np.array([1.0, 2.0, 4.0]))
    assert_points_at(info.value, path, line, text, check_col=False)
    assert "scipy.stats.zscore" in str(info.value)


def test_scipy_ufunc_is_named_by_its_module_not_numpy():
    special = pytest.importorskip("scipy.special")
    assert qualified_name(special.gammaln) == "scipy.special.gammaln"
    assert qualified_name(np.sin) == "numpy.sin"


def test_the_users_own_helper_keeps_its_own_location():
    with pytest.raises(zp.UnsupportedSyntax) as info:
        zp.gradient(library.calls_own_helper, 0.5)
    assert info.value.loc.filename.endswith("library.py")
    assert info.value.loc.line == library.own_helper_with_try.__code__.co_firstlineno + 1


def test_library_functions_are_told_from_user_functions():
    assert is_library_function(statistics.fmean)
    assert is_library_function(zp.gradient)
    assert not is_library_function(library.own_helper_with_try)
    assert not is_library_function(len)  # no Python code at all


def test_nested_gradients_and_hessians_at_the_users_call():
    """Review A1: zp.gradient, zp.pullback and (since third derivatives) zp.hessian called
    inside a differentiated function are differentiated, not refused with a line inside
    zygote_py."""
    from runtime import nested_api_cases as cases

    assert np.isclose(zp.gradient(cases.derivative_of_inner, 0.3)[0],
                      2 * np.cos(0.3) - 0.3 * np.sin(0.3))
    assert np.isclose(zp.gradient(cases.pullback_inside, 0.3)[0],
                      np.cos(0.3) * 0.3 + np.sin(0.3))
    # the third derivative of x sin x: -3 sin x - x cos x
    assert np.isclose(zp.gradient(cases.hessian_inside, 0.3)[0],
                      -3 * np.sin(0.3) - 0.3 * np.cos(0.3))
