"""SciPy is optional: zygote_py imports and works without it, does not import it, lists the
same rule table either way, and registers the SciPy rules once the user's code imports SciPy."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str, tmp_path: Path) -> str:
    """Run code as a script file (zygote_py reads the source of the functions it differentiates)."""
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "rules")]))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_zygote_py_works_without_scipy(tmp_path):
    out = _run("""
        import sys
        sys.modules["scipy"] = None  # as if SciPy were not installed: importing it fails
        import numpy as np
        import zygote_py as zp
        from zygote_py.rules import table
        g = zp.gradient(lambda x: np.sum(np.sin(x) * x), np.array([0.1, 0.2]))[0]
        assert np.allclose(g, np.sin([0.1, 0.2]) + np.array([0.1, 0.2]) * np.cos([0.1, 0.2]))
        assert not [n for n in zp.rules.supported() if n.startswith("scipy")]
        assert table.main(["--check"]) == 0  # the same table as with SciPy: its rules are listed absent
        from rule_specs import SPECS  # the rule tests collect: no SciPy specs
        assert not [s for s in SPECS if s.qualname.startswith("scipy")]
        print("ok", len(zp.rules.supported()))
    """, tmp_path)
    assert out.startswith("ok")


def test_importing_zygote_py_does_not_import_scipy(tmp_path):
    pytest.importorskip("scipy")
    out = _run("""
        import sys
        import zygote_py as zp
        assert not [m for m in sys.modules if m == "scipy" or m.startswith("scipy.")]
        import numpy as np
        zp.gradient(lambda x: np.sum(x * x), np.array([1.0]))
        assert "scipy" not in sys.modules
        import scipy.special
        from zygote_py.rules import registry
        rule = registry.function_rule(scipy.special.gammaln)  # registered once SciPy is imported
        assert rule is not None and rule.qualname == "scipy.special.gammaln"
        assert "scipy.stats" not in sys.modules  # only the module the user imported
        print("ok")
    """, tmp_path)
    assert out.strip() == "ok"


def test_supported_lists_the_scipy_rules_when_installed():
    pytest.importorskip("scipy")
    from zygote_py import rules

    names = rules.supported()
    for name in ("scipy.special.logsumexp", "scipy.special.gammaln", "scipy.stats.norm.logpdf",
                 "scipy.stats.multivariate_normal.logpdf", "scipy.stats.rv_continuous_frozen.logpdf",
                 "scipy.linalg.cho_solve", "scipy.linalg.expm"):
        assert name in names, name
    assert len(names) >= 450
