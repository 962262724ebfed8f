"""`for k in d: d[k] = ...`: a loop over a dict's keys (or `d.keys()`) that writes existing
keys reads what Python's reads (the keys do not change), so it is followed; a new key
(Python: RuntimeError at the loop's next step), a loop over the values or items, and an
argument iterated directly that turns out not to be a dict are refused
(frontend/lower_containers.py: _keys_read, keys_guard_suffices, guard_existing_key;
runtime/containers.require_existing_key).  These were all refused before."""

import numpy as np
import pytest

import zygote_py as zp
from write_checks import check_jvp_writes, check_writes, fd_gradient

X = np.array([0.7, -1.3, 2.1])


def scale_values(x):
    d = {"a": x[0], "b": x[1] * x[2]}
    for k in d:
        d[k] = d[k] * 2.0 + x[2]
    return d["a"] * d["b"]


def scale_values_in_place(x):
    d = {"a": x[:2] * 1.0, "b": x[1:] ** 2}
    for k in d.keys():  # noqa: SIM118 (the keys view is what is tested)
        d[k] *= x[0]
    return np.sum(d["a"] * d["b"])


def scale_item_of_item(x):
    d = {"a": x * 1.0, "b": x ** 2}
    for k in d:
        d[k][1:] = d[k][:2] * x[0]
    return np.sum(d["a"]) * np.sum(d["b"])


def sgd_step(x, params):  # the common training loop over a dict of parameters
    for k in params:
        params[k] = params[k] - 0.1 * x * params[k]
    return params["w"] * params["b"]


def nested_keys_loops(x):
    d = {"a": x[0], "b": x[1]}
    for k in d:
        for j in d:
            d[k] = d[k] + d[j] * x[2]
    return d["a"] + 2.0 * d["b"]


@pytest.mark.parametrize("f", [scale_values, scale_values_in_place, scale_item_of_item,
                               nested_keys_loops])
def test_writes_of_existing_keys_inside_a_keys_loop(f):
    check_writes(f, X)


@pytest.mark.parametrize("f", [scale_values, scale_values_in_place, nested_keys_loops])
def test_forward_mode_follows_a_keys_loop(f):
    check_jvp_writes(f, X)


def test_hessian_through_a_keys_loop():
    h = zp.hessian(scale_values, X)
    expected = np.stack([fd_gradient(lambda y, i=i: zp.gradient(scale_values, y)[0][i], [X], 0)
                         for i in range(3)])
    np.testing.assert_allclose(h, expected, rtol=1e-5, atol=1e-6)


def test_an_argument_dict_updated_over_its_keys():
    params = {"w": 1.5, "b": -0.4}
    value, (gx, gp) = zp.withgradient(sgd_step, 0.3, params)
    assert params == pytest.approx({"w": 1.5 * 0.97, "b": -0.4 * 0.97})  # the caller sees it
    assert value == pytest.approx(1.5 * 0.97 * -0.4 * 0.97)
    # d/dx (1 - 0.1x)^2 w b = -0.2 (1 - 0.1x) w b; d/dw = (1 - 0.1x)^2 b
    assert gx == pytest.approx(-0.2 * 0.97 * 1.5 * -0.4)
    assert gp["w"] == pytest.approx(0.97 ** 2 * -0.4)
    assert gp["b"] == pytest.approx(0.97 ** 2 * 1.5)


def adds_a_key(x):
    d = {"a": x[0]}
    for k in d:
        d[k + "2"] = d[k] * x[1]
    return d["a"]


def argument_adds_a_key(x, params):
    for k in params:
        params[k + "2"] = params[k] * x
    return params["w"]


def argument_array_rows(x, rows):
    for r in rows:
        rows[1] = r * x
    return np.sum(rows)


def values_loop_inside_keys_loop(x):
    d = {"a": x[0], "b": x[1]}
    for k in d:
        for v in d.values():
            d[k] = v * x[2]
    return d["a"] + d["b"]


def test_a_new_key_inside_a_keys_loop_is_refused():
    with pytest.raises(zp.MutationError, match="added to a dict while a for loop iterates"):
        zp.gradient(adds_a_key, X)
    with pytest.raises(zp.MutationError, match="added to a dict while a for loop iterates"):
        zp.gradient(argument_adds_a_key, 0.3, {"w": 1.0})


def test_an_argument_that_is_not_a_dict_is_refused_while_running():
    # the loop reads rows of the array, which the write changes ahead of it
    with pytest.raises(zp.MutationError, match="written while a for loop iterates"):
        zp.gradient(argument_array_rows, 0.5, np.ones((3, 2)))


def test_a_values_loop_inside_a_keys_loop_is_refused():
    with pytest.raises(zp.MutationError, match="while a for loop iterates"):
        zp.gradient(values_loop_inside_keys_loop, X)
