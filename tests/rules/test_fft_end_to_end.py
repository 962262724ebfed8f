"""numpy.fft through zp.gradient: real losses of real and complex arguments through the
transforms, against central finite differences (docs/complex.md's convention).  The
Hermitian weighting of rfft/irfft is where a factor of 2 goes missing, so the real
transforms are checked at even and odd lengths, with n, s, axes and every norm."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp

RNG = np.random.default_rng(3)
NORMS = (None, "ortho", "forward")


def _check(loss, *args, atol=1e-6, rtol=1e-5):
    grads = zp.gradient(loss, *args)
    want = numerical_gradient(loss, args)
    for i, (g, fd, a) in enumerate(zip(grads, want, args)):
        assert_gradient_matches(g, fd, a, f"arg{i}", atol=atol, rtol=rtol)
    return grads


@pytest.mark.parametrize("size", [6, 7])
@pytest.mark.parametrize("norm", NORMS)
def test_power_spectrum_of_a_real_signal(size, norm):
    def loss(x):
        return np.sum(np.abs(np.fft.rfft(x, norm=norm)) ** 2)

    x = RNG.standard_normal(size)
    (g,) = _check(loss, x)
    assert g.dtype == np.float64
    if norm == "ortho":  # Parseval: sum |X_k|^2 over the half spectrum weights inner bins twice
        weights = np.full(size // 2 + 1, 2.0)
        weights[0] = 1.0
        if size % 2 == 0:
            weights[-1] = 1.0
        assert np.allclose(np.sum(weights * np.abs(np.fft.rfft(x, norm="ortho")) ** 2),
                           np.sum(x ** 2))


@pytest.mark.parametrize("n", [None, 5, 8, 11])
def test_filtering_through_rfft_and_irfft(n):
    def loss(x, h):
        spectrum = np.fft.rfft(x, n=n) * h
        return np.sum(np.fft.irfft(spectrum, n=n) ** 2 * np.arange(n or 8))

    length = (n or 8) // 2 + 1
    _check(loss, RNG.standard_normal(8), RNG.standard_normal(length) + 1j * RNG.standard_normal(length))


@pytest.mark.parametrize("norm", NORMS)
def test_irfft_of_a_complex_half_spectrum(norm):
    w = RNG.standard_normal(7)

    def loss(c):
        return np.sum(np.fft.irfft(c, n=7, norm=norm) * w) + np.sum(np.fft.irfft(c, norm=norm) ** 2)

    c = RNG.standard_normal(4) + 1j * RNG.standard_normal(4)
    (g,) = _check(loss, c)
    assert g.dtype == np.complex128


@pytest.mark.parametrize("fn", [np.fft.fft, np.fft.ifft])
def test_complex_transforms_of_a_complex_argument(fn):
    w = RNG.standard_normal(7)

    def loss(z):
        return np.sum(np.abs(fn(z, n=7, norm="ortho")) ** 2 * w) + np.real(np.sum(fn(z)))

    _check(loss, RNG.standard_normal(5) + 1j * RNG.standard_normal(5))


def test_two_dimensional_transforms_with_shifts():
    w = RNG.standard_normal((4, 5))

    def loss(x):
        spectrum = np.fft.fftshift(np.fft.fft2(x))
        back = np.fft.ifft2(np.fft.ifftshift(spectrum * w))
        return np.sum(np.abs(spectrum) * w) + np.sum(np.real(back) ** 2) + np.sum(np.imag(back))

    _check(loss, RNG.standard_normal((4, 5)))


def test_nd_real_round_trip_with_s_and_axes():
    w = RNG.standard_normal((3, 4, 5))

    def loss(x):
        spectrum = np.fft.rfftn(x, s=(6, 5), axes=(0, 2))
        return np.sum(np.fft.irfftn(spectrum * spectrum, s=(3, 5), axes=(0, 2)) * w[:, :, :]) \
            + np.sum(np.abs(np.fft.rfft2(x)) ** 2)

    _check(loss, RNG.standard_normal((3, 4, 5)))


def test_fftn_and_ifftn_of_complex_and_real_arguments():
    def loss(z, x):
        return np.sum(np.abs(np.fft.fftn(z * x, s=(4, 2), axes=(1, 0)))) + \
            np.real(np.sum(np.fft.ifftn(x) * np.conj(z)))

    _check(loss, RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3)),
           RNG.standard_normal((3, 3)))


def test_hermitian_transforms():
    def loss(c, x):
        return np.sum(np.fft.hfft(c, n=7) ** 2) + np.sum(np.abs(np.fft.ihfft(x, norm="ortho")))

    _check(loss, RNG.standard_normal(4) + 1j * RNG.standard_normal(4), RNG.standard_normal(6))


def test_frequencies_are_constants():
    def loss(x):
        freqs = np.fft.fftfreq(x.shape[0], d=0.1)
        return np.sum(np.abs(np.fft.fft(x)) * freqs ** 2) + np.sum(np.fft.rfftfreq(4) * x[:3])

    _check(loss, RNG.standard_normal(6))


def test_out_writes_into_the_named_array_where_numpy_has_it():
    def loss(x):
        buffer = np.empty(4, dtype=complex)
        r = np.fft.fft(x, out=buffer)  # NumPy 2: r is buffer
        return np.sum(np.abs(buffer)) + np.sum(np.abs(r) ** 2) * 0.1

    x = RNG.standard_normal(4)
    if "out" not in inspect.signature(np.fft.fft).parameters:  # NumPy 1.x: no out=
        with pytest.raises(TypeError):
            loss(x)
        return
    _check(loss, x)
