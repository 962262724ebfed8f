"""Complex numbers in a real loss: complex arguments and complex intermediates.

The gradient of a real L with respect to a complex z = x + iy is dL/dx - i dL/dy
(autograd's and JAX's convention, docs/complex.md); finite_diff.py checks it in
the real and the imaginary direction of every complex entry.  Real arguments
that pass through complex intermediates (np.exp(1j * x)) get real gradients.
"""

import numpy as np

from . import Case, rand, rfloat


def crand(*shape: int, seed: int) -> np.ndarray:
    """A complex128 array, real and imaginary parts uniform in [-1, 1)."""
    return rand(*shape, seed=seed) + 1j * rand(*shape, seed=seed + 1000)


def cfloat(seed: int) -> complex:
    return complex(rfloat(seed), rfloat(seed + 1000))


W = crand(4, seed=90)  # a complex constant read from a global


# --- non-holomorphic functions of a complex argument


def abs_of_complex(z):
    return np.abs(z)


def builtin_abs_of_complex(z):
    return abs(z) * 2.0


def squared_modulus(z):
    return np.sum(np.real(z * np.conj(z)))


def angle_of_complex(z):
    return np.angle(z)


def angle_in_degrees(z):
    return np.sum(np.angle(z, deg=True))


def real_and_imag_parts(z):
    return np.sum(np.real(z) ** 2 * np.imag(z))


def real_and_imag_attributes(z):
    return np.sum(z.real * z.imag ** 3)


def conj_method(z):
    return np.real(np.sum(z.conj() * z * (0.5 - 2j)))


def complex_var_and_std(z):
    return np.var(z) + np.std(z) + z.var() * 0.5


def complex_norm(z):
    return np.linalg.norm(z)


# --- holomorphic functions inside a real loss


def holomorphic_chain(z):
    w = np.exp(z) * np.sin(z) / (z + 2.0) - np.sqrt(z + 3.0) + np.tanh(z) * np.cos(z)
    return np.real(np.sum(w * W))


def logs_and_powers(z):
    return np.abs(np.sum(np.log(z + 2.0) + z ** 2 + z ** 1.5 + np.square(z) * np.log1p(z + 1.0)))


def complex_power_exponent(z, p):
    return np.real(np.sum((z + 2.0) ** p))


def matmul_and_sum(A, v):
    return np.sum(np.abs(A @ v)) + np.real(np.mean(A.T @ np.conj(v)))


def shapes_and_indexing(z):
    m = np.reshape(z, (2, 2))
    picked = m[0, :] * m[:, 1] + np.concatenate([z[:1], z[3:]])
    return np.sum(np.abs(np.transpose(m) @ picked)) + np.real(np.cumsum(z)[-1])


# --- complex intermediates of real arguments


def unit_circle(x):
    return np.abs(np.exp(1j * x)) + np.real(np.exp(1j * x)) * np.imag(np.exp(2j * x))


def phase_of_rotation(x, y):
    return np.angle((x + 1j * y) * np.exp(0.3j))


def real_through_complex_array(x):
    z = x.astype(complex) * W
    return np.sum(np.abs(z) ** 2 + np.angle(z))


def complex_loop(x, n):
    z = 1.0 + 0j
    for _ in range(n):
        z = z * (x + 0.5j)
    return np.abs(z)


def helper_makes_complex(x):
    return np.abs(_rotate(x)) + np.real(_rotate(x) ** 2)


def _rotate(x):
    return x * np.exp(0.7j)


def fft_power(x):
    spectrum = np.fft.fft(x)
    return np.sum(np.abs(spectrum))


CASES = [
    Case(abs_of_complex, (cfloat(1),)),
    Case(abs_of_complex, (np.complex128(cfloat(2)),), tag="numpy-scalar"),
    Case(builtin_abs_of_complex, (cfloat(3),)),
    Case(squared_modulus, (cfloat(4),)),
    Case(squared_modulus, (crand(3, seed=5),), tag="array"),
    Case(angle_of_complex, (cfloat(6),)),
    Case(angle_in_degrees, (crand(3, seed=7),)),
    Case(real_and_imag_parts, (crand(4, seed=8),)),
    Case(real_and_imag_attributes, (crand(2, 3, seed=9),)),
    Case(conj_method, (crand(3, seed=10),)),
    Case(complex_var_and_std, (crand(5, seed=11),)),
    Case(complex_norm, (crand(2, 3, seed=12),)),
    Case(holomorphic_chain, (crand(4, seed=13),)),
    Case(logs_and_powers, (crand(3, seed=14),)),
    Case(complex_power_exponent, (crand(3, seed=15), cfloat(16))),
    Case(matmul_and_sum, (crand(3, 3, seed=17), crand(3, seed=18))),
    Case(shapes_and_indexing, (crand(4, seed=19),)),
    Case(unit_circle, (rfloat(20),)),
    Case(phase_of_rotation, (rfloat(21), rfloat(22))),
    Case(real_through_complex_array, (rand(4, seed=23),)),
    Case(complex_loop, (rfloat(24), 3)),
    Case(helper_makes_complex, (rfloat(25),)),
]


def complex_items_of_a_real_array(x, idx):
    s = 0.0
    for i in range(3):
        s = s + np.abs(x[i] * np.exp(1j * x[i]) + 1.0) + np.real(np.sum(x[idx] * 1j * x[i]))
    return s


CASES.append(Case(complex_items_of_a_real_array, (rand(4, seed=26), np.array([0, 2, 2]))))


def array_literal_with_a_complex_entry(x):
    v = np.array([x, 1j, x * x]) * np.exp(1j * x)
    return np.sum(np.abs(v) ** 2 + np.imag(v))


CASES.append(Case(array_literal_with_a_complex_entry, (rfloat(27),)))
