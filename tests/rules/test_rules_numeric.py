"""Every derivative rule against central finite differences (table in rule_specs.py)."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from rule_harness import check
from rule_specs import SPECS

import zygote_py.rules  # noqa: F401  (registers the rules)


@pytest.mark.parametrize("spec", SPECS, ids=[s.id for s in SPECS])
def test_rule_matches_finite_differences(spec):
    assert check(spec, seed=0) > 0 or spec.note


@pytest.mark.parametrize("spec", SPECS[::7], ids=[s.id for s in SPECS[::7]])
def test_rule_other_seed(spec):
    check(spec, seed=1)
