"""zp.jvp over the whole end-to-end corpus (tests/corpus): every case's directional
derivative along random tangents matches central finite differences, or forward mode
refuses it clearly (the iterator builtins it does not follow yet: the list below, so a
new refusal fails the test).  A complex argument moves along a complex direction: the
tangent is the R-linear derivative (docs/complex.md)."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
from corpus import all_cases

import zygote_py as zp

EPS = 1e-6

# (corpus id prefix) -> why forward mode refuses it
REFUSED = {
    "iterators.reversed_bound_to_a_name": "next()", "iterators.iter_and_next": "next()",
    "iterators.next_": "next()", "iterators.enumerate_of_zip_after_next": "next()",
    "iterators.zip_header_over_a_started_iterator": "next()",
    "iterators.pairs_from_one_iterator": "zip of an iterator",
    "iterators.sorted_": "sorted()", "iterators.chain_of_lists": "itertools.chain",
    "iterators.product_of_small_lists": "itertools.product",
    "iterators.accumulate_running_total": "itertools.accumulate",
    "recursion.deep_damped": "500 levels: forward mode takes about four Python frames a call",
    "built_objects.": "objects built and written inside the function: not followed yet",
    "writes.": "in-place writes into arrays: not followed yet",
}


class _NoTangent(Exception):
    """An argument this test does not know how to perturb."""


def tangent_for(x, rng):
    if x is None or isinstance(x, (bool, str, int)):
        return None
    if isinstance(x, float):
        return float(rng.standard_normal())
    if isinstance(x, np.ndarray):
        if x.dtype.kind == "c":
            return rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape)
        return rng.standard_normal(x.shape) if x.dtype.kind == "f" else None
    if type(x) is list:
        return [tangent_for(v, rng) for v in x]
    if type(x) is tuple:
        return tuple(tangent_for(v, rng) for v in x)
    if type(x) is dict:
        return {k: tangent_for(v, rng) for k, v in x.items()}
    if isinstance(x, (complex, np.complexfloating)):
        return complex(rng.standard_normal(), rng.standard_normal())
    if hasattr(x, "__dict__") and not isinstance(x, type) and not callable(x):
        return {k: tangent_for(v, rng) for k, v in vars(x).items()}
    raise _NoTangent


def moved(x, t, step):
    if t is None:
        return x
    if type(x) is list:
        return [moved(a, b, step) for a, b in zip(x, t)]
    if type(x) is tuple:
        return tuple(moved(a, b, step) for a, b in zip(x, t))
    if type(x) is dict:
        return {k: moved(v, t.get(k), step) for k, v in x.items()}
    if hasattr(x, "__dict__") and isinstance(t, dict):
        out = copy.copy(x)
        for k, v in vars(x).items():
            setattr(out, k, moved(v, t.get(k), step))
        return out
    return x + step * t


CASES = all_cases()


@pytest.mark.parametrize("ident, case", CASES, ids=[i for i, _ in CASES])
def test_jvp_of_corpus_case(ident, case):
    rng = np.random.default_rng(0)
    try:
        tangents = [tangent_for(a, rng) if case.wrt is None or i in case.wrt else None
                    for i, a in enumerate(case.args)]
    except _NoTangent:
        pytest.skip("an argument this test cannot perturb")
    refused = next((why for prefix, why in REFUSED.items() if ident.startswith(prefix)), None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            y, dy = zp.jvp(case.func, copy.deepcopy(case.args), tangents)
        except zp.ZygoteError:
            assert refused is not None, f"{ident}: refused, and not in the list of refusals"
            return
        plus = case.func(*[moved(a, t, EPS) for a, t in zip(copy.deepcopy(case.args), tangents)])
        minus = case.func(*[moved(a, t, -EPS) for a, t in zip(copy.deepcopy(case.args), tangents)])
    fd = (_numbers(plus) - _numbers(minus)) / (2 * EPS)
    scale = max(1.0, float(np.max(np.abs(fd))))
    np.testing.assert_allclose(_numbers(dy), fd, rtol=1e-4, atol=1e-6 * scale)


def _numbers(value):
    """A result (or tangent) as an array of floats, or of complex numbers where it holds any."""
    array = np.asarray(value)
    return array.astype(complex if array.dtype.kind == "c" else float)
