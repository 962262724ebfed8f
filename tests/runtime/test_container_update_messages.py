"""A list held in a dict and appended to through it (`d['a'].append(v)`) is refused with a
message that says why (reached through another container) and how to write it instead;
the way the hint shows is differentiated, matching central finite differences."""

import numpy as np
import pytest

import zygote_py as zp


def append_through_the_dict(x):
    d = {"a": [x[0], x[1]], "b": [x[2]]}
    d["a"].append(x[3])
    return sum(sum(v) * len(k) for k, v in d.items())


def store_back_a_new_list(x):
    d = {"a": [x[0], x[1]], "b": [x[2]]}
    d["a"] = d["a"] + [x[3]]
    return sum(sum(v) * len(k) for k, v in d.items()) + d["a"][2] * x[0]


def test_the_refusal_says_why_and_what_to_write():
    with pytest.raises(zp.MutationError, match="reaches through another container") as info:
        zp.gradient(append_through_the_dict, np.ones(4))
    assert "d[k] = d[k] + [v]" in str(info.value)
    assert info.value.loc is not None and info.value.loc.filename == __file__


def test_the_hinted_form_is_differentiated():
    x = np.array([0.7, -0.4, 1.3, 0.25])
    (g,) = zp.gradient(store_back_a_new_list, x)
    h = 1e-6
    fd = np.array([(store_back_a_new_list(x + h * e) - store_back_a_new_list(x - h * e)) / (2 * h)
                   for e in np.eye(4)])
    assert np.allclose(g, fd, atol=1e-6)
