"""The SciPy rules' forward rules (their `jvp=`) against central finite differences, on the
arguments of the first spec of each rule in rule_specs.py (jvp_harness.py, which pairs
frozen distributions' object tangents and complex values); every rule's forward rule is
checked in test_jvp_rules.py too."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from jvp_harness import check_jvp
from rule_specs import SPECS

# solve_ivp returns an OdeResult, which this harness does not pair: its forward rule is
# checked with the other issue-15 additions (test_extra_jvp.py)
CHECKED_ELSEWHERE = {"scipy.integrate.solve_ivp"}


def _first_spec_per_rule():
    seen = set()
    for spec in SPECS:
        rule = spec.rule
        if rule is not None and rule.jvp is not None and rule.qualname not in seen \
                and rule.qualname.startswith("scipy.") and rule.qualname not in CHECKED_ELSEWHERE:
            seen.add(rule.qualname)
            yield spec


WITH_JVP = list(_first_spec_per_rule())


@pytest.mark.parametrize("spec", WITH_JVP, ids=[s.id for s in WITH_JVP])
def test_jvp_matches_finite_differences(spec):
    assert check_jvp(spec, seed=0) > 0 or spec.note
