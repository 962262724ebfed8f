"""scipy.signal's convolutions through zp.gradient (a small convolutional model, a matched
filter, an image blur with each boundary), against central finite differences; and the
rules' absence, without error, when SciPy cannot be imported."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp

signal = pytest.importorskip("scipy.signal")
RNG = np.random.default_rng(5)


def _check(loss, *args):
    grads = zp.gradient(loss, *args)
    want = numerical_gradient(loss, args)
    for i, (g, fd, a) in enumerate(zip(grads, want, args)):
        assert_gradient_matches(g, fd, a, f"arg{i}", atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("method", ["direct", "fft", "auto"])
def test_one_dimensional_convolutional_layer(mode, method):
    target = RNG.standard_normal(12)

    def loss(x, kernel, bias):
        hidden = np.tanh(signal.convolve(x, kernel, mode=mode, method=method) + bias)
        out = signal.correlate(hidden, kernel[::-1] * 0.5, mode="same", method=method)
        return np.sum((out[:4] - target[:4]) ** 2)

    _check(loss, RNG.standard_normal(9), RNG.standard_normal(4), 0.3)


def test_matched_filter_of_a_complex_signal():
    def loss(z, template):
        return np.max(np.abs(signal.correlate(z, template, mode="valid"))) + \
            np.sum(np.abs(signal.fftconvolve(z, np.conj(template), mode="same")) ** 2)

    _check(loss, RNG.standard_normal(10) + 1j * RNG.standard_normal(10),
           RNG.standard_normal(3) + 1j * RNG.standard_normal(3))


@pytest.mark.parametrize("boundary", ["fill", "wrap", "symm"])
def test_image_blur_with_boundaries(boundary):
    weights = RNG.standard_normal((5, 6))

    def loss(image, kernel, fill):
        blurred = signal.convolve2d(image, kernel, mode="same", boundary=boundary, fillvalue=fill)
        edges = signal.correlate2d(blurred, kernel, mode="same", boundary=boundary)
        return np.sum(blurred * weights) + np.sum(edges ** 2)

    _check(loss, RNG.standard_normal((5, 6)), RNG.standard_normal((3, 2)), 0.7)


def test_fftconvolve_along_one_axis_broadcasts_the_others():
    def loss(batch, kernel):
        return np.sum(signal.fftconvolve(batch, kernel, mode="valid", axes=1) ** 2) + \
            np.sum(signal.oaconvolve(batch, kernel[0:1], axes=-1))

    _check(loss, RNG.standard_normal((3, 8)), RNG.standard_normal((1, 3)))


def test_numpy_convolve_modes_in_a_loss():
    def loss(a, v):
        return sum(np.sum(np.convolve(a, v, mode) ** 2) + np.sum(np.correlate(a, v, mode))
                   for mode in ("full", "same", "valid"))

    _check(loss, RNG.standard_normal(7), RNG.standard_normal(4))


def test_without_scipy_nothing_registers_and_nothing_fails(tmp_path):
    code = ("import sys; sys.modules['scipy'] = None\n"
            "import zygote_py, numpy as np\n"
            "names = zygote_py.rules.supported()\n"
            "assert not [n for n in names if n.startswith('scipy.')], names\n"
            "assert 'numpy.fft.rfft' in names\n"
            "print(zygote_py.gradient(lambda x: np.sum(np.abs(np.fft.rfft(x)) ** 2), np.ones(4)))\n")
    script = tmp_path / "no_scipy.py"
    script.write_text(code)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "array([8., 8., 8., 8.])" in done.stdout  # 2 X_0 d(sum x)/dx, X_0 = 4
