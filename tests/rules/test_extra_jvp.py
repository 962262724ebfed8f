"""The forward-mode rules of numpy.fft, scipy.signal and the other issue-15 NumPy rules
against central finite differences, over the same spec table as their reverse rules."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from jvp_check import check_jvp
from numpy_extra_specs import EXTRA_SPECS

import zygote_py.rules  # noqa: F401  (registers the rules)

WITH_JVP = [spec for spec in EXTRA_SPECS if spec.rule is not None and spec.rule.jvp is not None]


def test_every_new_rule_has_a_forward_rule():
    missing = sorted({spec.qualname for spec in EXTRA_SPECS if spec.rule.jvp is None})
    assert not missing, missing


@pytest.mark.parametrize("spec", WITH_JVP, ids=[s.id for s in WITH_JVP])
def test_jvp_matches_finite_differences(spec):
    check_jvp(spec, seed=0)
