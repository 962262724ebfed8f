"""Every forward-mode rule (a rule's `jvp=`) against central finite differences, on the
arguments of its rule's specs in rule_specs.py (jvp_harness.py)."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from jvp_harness import check_jvp
from rule_specs import SPECS

WITH_JVP = [spec for spec in SPECS if spec.rule is not None and spec.rule.jvp is not None]


@pytest.mark.parametrize("spec", WITH_JVP, ids=[s.id for s in WITH_JVP])
def test_jvp_matches_finite_differences(spec):
    assert check_jvp(spec, seed=0) > 0 or spec.note
