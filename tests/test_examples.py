"""The examples run on a reduced size (--quick) and learn: the loss falls by a clear
factor, accuracy is far above chance, fitted parameters approach the true ones.
Each runs in a second or two; one is also run as a subprocess, as a user would."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_linear_regression_recovers_weights(capsys):
    out = load("linear_regression").main(["--quick"])
    assert out["history"][-1] < 0.05 * out["history"][0]
    assert out["w_err"] < 0.3 and out["b_err"] < 0.3
    assert "largest error in W" in capsys.readouterr().out


def test_digits_mlp_learns(tmp_path, capsys):
    pytest.importorskip("sklearn")
    plot = tmp_path / "loss.png"
    out = load("digits_mlp").main(["--quick", "--quiet", "--plot", str(plot)])
    assert out["accuracy"] > 0.85  # chance is 0.1
    assert out["history"][-1] < 0.5 * out["history"][0]
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last == f"test accuracy: {out['accuracy']:.3f}"
    if importlib.util.find_spec("matplotlib") is not None:
        assert plot.stat().st_size > 1000 and plot.read_bytes()[:4] == b"\x89PNG"


def test_char_lstm_loss_falls(capsys):
    out = load("char_lstm").main(["--quick"])
    assert out["factor"] > 1.3 and out["last"] < 2.5  # chance level: ln 28 = 3.33
    assert "fell by a factor of" in capsys.readouterr().out


def test_lotka_volterra_fits_parameters(capsys):
    out = load("lotka_volterra").main(["--quick"])
    assert out["history"][-1] < 0.01 * out["history"][0]
    assert out["rel_err"] < 0.15
    np.testing.assert_allclose(out["theta"], [1.5, 1.0, 3.0, 1.0], rtol=0.15)
    assert "fitted alpha" in capsys.readouterr().out


def test_digits_mlp_runs_as_a_command(tmp_path):
    pytest.importorskip("sklearn")
    proc = subprocess.run([sys.executable, str(EXAMPLES / "digits_mlp.py"), "--quick", "--quiet",
                           "--plot", str(tmp_path / "curve.png")],
                          check=False, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    last = proc.stdout.strip().splitlines()[-1]
    assert last.startswith("test accuracy: 0.") and float(last.split(": ")[1]) > 0.85


def test_neural_ode_through_odeint_loss_falls(capsys):
    pytest.importorskip("scipy")
    out = load("neural_ode").main(["--quick"])
    assert out["history"][-1] < 0.1 * out["history"][0]
    assert "each an odeint solve and its adjoint" in capsys.readouterr().out
