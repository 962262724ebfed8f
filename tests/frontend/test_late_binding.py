"""Late binding of closures (zygote_py/frontend/late_binding.py): a nested function made
into a value is either right (value and gradient equal plain Python and central
differences) or refused with an UnsupportedSyntax that names the variable; and a
nested function defined on some paths only (in a branch, after an early return,
in a loop) works where it is used."""

import pytest
from corpus.finite_diff import numerical_gradient
from frontend import late_binding_cases as cases

import zygote_py as zp

RIGHT = [
    cases.default_binds_each_value,
    cases.made_after_the_last_assignment,
    cases.called_directly_after_a_rebinding,
    cases.def_in_a_loop_called_in_the_body,
    cases.def_after_an_early_return,
    cases.lambda_in_both_branches,
    cases.def_used_inside_its_branch,
    cases.def_in_one_branch_used_after,
    cases.lambda_capturing_nested_functions,
    cases.lambda_passed_to_a_helper_in_a_loop,
    cases.lambda_into_a_helper_inside_a_math_call,
]
REFUSED = [
    (cases.lambdas_in_a_loop, "'i'"),
    (cases.lambdas_in_a_comprehension, "'i'"),
    (cases.closure_stored_then_rebound, "'a'"),
    (cases.def_stored_in_a_loop, "'a'"),
    (cases.def_in_a_loop_read_after_it, "'a'"),
    (cases.lambda_returned_by_a_helper_in_a_loop, "'u'"),
    (cases.lambda_into_a_helper_inside_np_array, "'u'"),
]


@pytest.mark.parametrize("f", RIGHT, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [0.7, -0.4])
def test_right_as_python_computes_it(f, x):
    value, (grad,) = zp.withgradient(f, x)
    assert value == pytest.approx(f(x), rel=1e-12, abs=1e-12)
    assert grad == pytest.approx(numerical_gradient(f, (x,))[0], rel=1e-6, abs=1e-8)


def test_mutually_recursive_nested_functions_as_values_are_refused():
    with pytest.raises(zp.UnsupportedSyntax, match="'g' captures the nested function 'h', which refers back"):
        zp.gradient(cases.mutually_recursive_nested_functions, 0.7)


@pytest.mark.parametrize("f,name", REFUSED, ids=lambda v: getattr(v, "__name__", ""))
def test_a_capture_python_would_read_later_is_refused(f, name):
    with pytest.raises(zp.UnsupportedSyntax, match=f"reads {name} when it is called .*late binding"):
        zp.gradient(f, 0.7)
