"""map(), filter() and generator expressions compute each item when it is read, as in
Python (frontend/lower_iterators.py).  A for loop, any(), all() or next() reading one
where it is made runs its loop as their own, so effects (a log, print, random numbers, an
attribute write, an append to an argument) happen only for the items read, and an item
that would raise is never computed.  One kept for later is computed when it is made only
where no effect can tell (frontend/item_effects.py), and an item that raises there is a
ZygoteError, never the bare exception of an item Python may never have computed.
Before, every item was computed when the iterator was made: the log held every item, and
`next(1.0 / v * x for v in [1.0, 0.0])` raised ZeroDivisionError."""

import io
import contextlib

import iterator_semantics_cases as cases
import numpy as np
import pytest

import zygote_py as zp

X = 0.7


def central(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


def quiet(f, x):
    """f(x) with its effects (LOG, printing) left out of what the test compares."""
    with contextlib.redirect_stdout(io.StringIO()):
        value = f(x)
    cases.LOG.clear()
    return value


def check_value_and_gradient(f, x=X, jvp=True):
    expected = quiet(f, x)
    value, (grad,) = zp.withgradient(f, x)
    assert value == pytest.approx(expected, rel=1e-12)
    numeric = central(lambda t: quiet(f, t), x)
    assert grad == pytest.approx(numeric, rel=1e-6, abs=1e-8)
    if jvp:
        _, tangent = zp.jvp(f, (x,), (1.0,))
        assert tangent == pytest.approx(numeric, rel=1e-6, abs=1e-8)
    return grad


def effects_of(f, *args):
    cases.LOG.clear()
    f(*args)
    python = list(cases.LOG)
    cases.LOG.clear()
    zp.gradient(f, *args)
    transformed = list(cases.LOG)
    cases.LOG.clear()
    return python, transformed


# -- a for loop reading the iterator -----------------------------------------------------
def test_a_loop_returning_at_the_first_item_computes_only_that_item():
    python, transformed = effects_of(cases.first_of_a_logged_map, X)
    assert python == transformed == [1.0]
    assert check_value_and_gradient(cases.first_of_a_logged_map) == pytest.approx(1.0)


@pytest.mark.parametrize("f", [cases.loop_over_a_filter_and_a_two_source_map,
                               cases.generator_loop_with_break_and_else,
                               cases.generator_variable_stays_in_its_scope,
                               cases.nested_fusions, cases.count_read_partly])
def test_loops_over_map_filter_and_generators(f):
    check_value_and_gradient(f)
    python, transformed = effects_of(f, X)
    assert python == transformed


def test_enumerate_of_a_filter_and_a_generator_counts_the_items_read():
    check_value_and_gradient(cases.enumerate_of_a_logged_filter)
    python, transformed = effects_of(cases.enumerate_of_a_logged_filter, X)
    assert python == transformed == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]


def test_the_loop_reads_items_up_to_its_break():
    assert effects_of(cases.generator_loop_with_break_and_else, X) == ([1.0, 3.0],) * 2
    assert effects_of(cases.nested_fusions, X) == ([1.0, 2.0],) * 2


def test_print_runs_for_the_items_read():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cases.printing_map(X)
    python = out.getvalue()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        zp.gradient(cases.printing_map, X)
    assert out.getvalue() == python == "item 1.0\nitem 2.0\n"
    check_value_and_gradient(cases.printing_map)


def test_random_numbers_are_drawn_for_the_items_read():
    np.random.seed(3)
    expected = cases.random_map(X)
    after_python = np.random.rand()
    np.random.seed(3)
    value, (grad,) = zp.withgradient(cases.random_map, X)
    assert value == expected and np.random.rand() == after_python
    assert grad == 1.0


def test_attribute_writes_happen_for_the_items_read():
    cases.COUNTER.calls = 0
    expected = cases.counting_map(X)
    assert cases.COUNTER.calls == 2
    cases.COUNTER.calls = 0
    value, (grad,) = zp.withgradient(cases.counting_map, X)
    assert value == pytest.approx(expected) and cases.COUNTER.calls == 2
    assert grad == pytest.approx(4.0 * X)  # 2x * x


def test_appends_to_an_argument_happen_for_the_items_read_or_are_refused():
    seen = []
    expected = cases.appending_to_an_argument(X, seen)
    assert seen == [1.0, 2.0]
    seen = []
    try:
        value, grad = zp.withgradient(cases.appending_to_an_argument, X, seen, wrt=0)
    except zp.ZygoteError as err:  # a list argument written inside a loop: refused today
        assert "seen" in str(err) and seen == []  # before anything ran
        return
    assert seen == [1.0, 2.0] and value == pytest.approx(expected)
    assert grad == pytest.approx(2.0)


@pytest.mark.parametrize("f", [cases.log_of_items_never_read, cases.assert_on_items_never_read,
                               cases.user_raise_on_items_never_read])
def test_an_item_never_read_never_raises(f):
    check_value_and_gradient(f)


# -- any(), all(), next() ----------------------------------------------------------------
def test_next_stops_before_a_division_by_zero():
    assert cases.next_skips_a_division_by_zero(2.0) == 2.0
    value, (grad,) = zp.withgradient(cases.next_skips_a_division_by_zero, 2.0)
    assert value == 2.0 and grad == 1.0
    assert zp.jvp(cases.next_skips_a_division_by_zero, (2.0,), (1.0,)) == (2.0, 1.0)


def test_any_and_all_stop_at_the_deciding_item():
    python, transformed = effects_of(cases.any_and_all_short_circuit, X)
    assert python == transformed == [1.0, 2.0, 1.0, 2.0]
    check_value_and_gradient(cases.any_and_all_short_circuit)
    check_value_and_gradient(cases.next_of_a_map_and_a_filter)


@pytest.mark.parametrize("f", [cases.any_in_a_while_condition, cases.readings_inside_expressions])
@pytest.mark.parametrize("x", [0.7, 1.3])
def test_readings_in_conditions_lambdas_and_comprehensions(f, x):
    check_value_and_gradient(f, x)


def test_next_of_an_exhausted_generator_raises_stop_iteration():
    with pytest.raises(StopIteration):
        cases.next_of_an_empty_generator(X)
    with pytest.raises(StopIteration):
        zp.gradient(cases.next_of_an_empty_generator, X)


# -- kept for later ------------------------------------------------------------------------
@pytest.mark.parametrize("f", [cases.kept_pure_map, cases.kept_pure_recursive,
                               cases.kept_pure_generator_zipped, cases.ordinary_pure_code])
def test_pure_iterators_kept_for_later(f):
    check_value_and_gradient(f)


@pytest.mark.parametrize("f, effect", [
    (cases.kept_map_of_a_function_with_an_effect, "a call of counted"),
    (cases.kept_map_of_a_recursive_function_with_an_effect, "a call of repeated_counted"),
    (cases.zip_of_a_generator_read_partly, "a call of logged")])
def test_an_effect_in_an_iterator_kept_for_later_is_refused(f, effect):
    cases.LOG.clear()
    with pytest.raises(zp.ZygoteError, match="may have an effect: " + effect) as info:
        zp.gradient(f, X)
    assert "iterator_semantics_cases.py" in str(info.value) and "hint: read it with a for loop" in str(info.value)
    assert cases.LOG == []  # refused before anything ran


def test_a_method_of_a_list_from_outside_in_an_iterator_kept_for_later_is_refused():
    cases.LOG.clear()
    with pytest.raises(zp.ZygoteError, match=r"\.append\(\) of a list is called while zygote_py computes"):
        zp.gradient(cases.kept_logged_map, X)
    assert cases.LOG == []  # refused before the method ran


def test_an_item_computed_ahead_that_raises_is_an_error_saying_so():
    assert cases.kept_generator_dividing_by_zero(2.0) == 2.0  # Python never computes 1/0
    for run in (lambda: zp.gradient(cases.kept_generator_dividing_by_zero, 2.0),
                lambda: zp.jvp(cases.kept_generator_dividing_by_zero, (2.0,), (1.0,))):
        with pytest.raises(zp.ZygoteError, match="raised ZeroDivisionError.*might never have raised") as info:
            run()
        assert isinstance(info.value.__cause__, ZeroDivisionError)
    # the bracket is closed again: a later call computing ahead works
    check_value_and_gradient(cases.kept_pure_map)


def test_an_error_making_the_iterator_is_pythons_own():
    with pytest.raises(TypeError, match="not iterable"):
        cases.kept_generator_over_a_bad_source(X)
    with pytest.raises(TypeError, match="not iterable"):
        zp.gradient(cases.kept_generator_over_a_bad_source, X)


def test_a_source_read_to_its_end_ahead_is_not_read_again():
    assert cases.drained_source(X) == pytest.approx(X + 4 * X * X)
    with pytest.raises(zp.ZygoteError, match="read to its end already"):
        zp.gradient(cases.drained_source, X)


def test_hessian_through_a_fused_loop():
    h = zp.hessian(cases.loop_over_a_filter_and_a_two_source_map, np.array(X))
    grad = lambda t: zp.gradient(cases.loop_over_a_filter_and_a_two_source_map, t)[0]
    assert float(h) == pytest.approx(central(grad, X), rel=1e-6)


# -- types ---------------------------------------------------------------------------------
def test_iterators_are_instances_of_pythons_types():
    assert cases.isinstance_of_iterators(X) == pytest.approx(X * 14 * 14)
    check_value_and_gradient(cases.isinstance_of_iterators)
    assert check_value_and_gradient(cases.isinstance_of_a_zip) == 1.0


def test_type_and_isinstance_answer_with_pythons_types():
    assert cases.types_of_iterators(X) == pytest.approx(X * 11 * 11 + 3 * X * X)
    check_value_and_gradient(cases.types_of_iterators)


def test_methods_in_an_iterator_kept_for_later_are_decided_by_the_receiver():
    check_value_and_gradient(cases.kept_generator_of_array_methods)
    cases.METER.readings = 0
    assert cases.kept_generator_of_a_users_method(X) == X and cases.METER.readings == 1
    cases.METER.readings = 0
    with pytest.raises(zp.ZygoteError, match=r"\.read\(\) of a Meter is called while zygote_py computes"):
        zp.gradient(cases.kept_generator_of_a_users_method, X)
    assert cases.METER.readings == 0  # refused before the method ran
