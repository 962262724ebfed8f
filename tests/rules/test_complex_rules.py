"""Rules on complex values (docs/complex.md): every rule declared right for complex
values against finite differences in the real and the imaginary direction, and
every other rule refusing a complex value instead of returning a number.

The gradient of a real loss L at z = x + iy is dL/dx - i dL/dy.  Each declared
rule f is checked through L(z) = Re(sum(f(z) * w)) with a complex w, so the
cotangent reaching the rule is a general complex covector.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp
from zygote_py.rules import complex_rules, registry

NUMPY_2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"
NEEDS_NUMPY_2 = pytest.mark.skipif(not NUMPY_2, reason="var(mean=) and ndarray.mT are new in NumPy 2.0")

RNG = np.random.default_rng(7)


def crand(*shape):
    return RNG.uniform(-1, 1, shape) + 1j * RNG.uniform(-1, 1, shape)


def away(*shape):
    """Complex entries with real part in [1, 2): clear of the branch cuts of log and sqrt."""
    return RNG.uniform(1, 2, shape) + 1j * RNG.uniform(-1, 1, shape)


# (name, function of the complex arguments, arguments): each function of the table below
# returns a complex array, turned into a real loss by _real_loss
HOLOMORPHIC = [
    ("list", lambda a: np.stack(list(a)) * a, (crand(3, 2),)),
    ("tuple", lambda a: np.stack(tuple(a * a)), (crand(2, 3),)),
    ("add", lambda a, b: a + b, (crand(3), crand(3))),
    ("add-broadcast", lambda a, b: np.add(a, b), (crand(2, 3), crand(3))),
    ("sub", lambda a, b: a - np.subtract(b, a), (crand(3), crand(3))),
    ("mul", lambda a, b: a * np.multiply(b, a), (crand(3), crand(3))),
    ("truediv", lambda a, b: a / b + np.divide(b, a), (away(3), away(3))),
    ("neg-pos", lambda a: -a + np.negative(a) * 2 + (+a) + np.positive(a), (crand(3),)),
    ("matmul", lambda a, b: a @ b + np.matmul(b, a), (crand(3, 3), crand(3, 3))),
    ("dot", lambda a, b: np.dot(a, b) + a.dot(b), (crand(3, 3), crand(3))),
    ("exp-log", lambda a: np.exp(a) + np.log(a), (away(3),)),
    ("trig", lambda a: np.sin(a) + np.cos(a) * np.tan(a), (crand(3),)),
    ("hyperbolic", lambda a: np.tanh(a) + np.sinh(a) * np.cosh(a), (crand(3),)),
    ("sqrt-square", lambda a: np.sqrt(a) + np.square(a) + np.reciprocal(a), (away(3),)),
    ("expm1-log1p", lambda a: np.expm1(a) + np.log1p(a), (away(3),)),
    ("exp2-log2-log10", lambda a: np.exp2(a) + np.log2(a) + np.log10(a), (away(3),)),
    ("power-int", lambda a: a ** 3 + np.power(a, 2) + a ** -1, (away(3),)),
    ("power-complex", lambda a, b: a ** b + np.power(a, 1.5), (away(3), crand(3))),
    ("sum-mean", lambda a: np.sum(a, axis=0) * np.mean(a) + a.sum(axis=1).mean(), (crand(3, 3),)),
    ("cumsum-trace", lambda a: np.cumsum(a)[:3] * np.trace(a) + a.cumsum(axis=0)[0] * a.trace(),
     (crand(3, 3),)),
    ("outer", lambda a, b: np.outer(a, b), (crand(3), crand(2))),
    ("shapes", lambda a: np.reshape(a, (3, 2)).T @ np.transpose(a) + a.reshape(6)[:2].sum()
     + np.ravel(a)[1] + a.ravel()[2] + a.flatten()[3], (crand(2, 3),)),
    ("squeeze-expand", lambda a: np.squeeze(np.expand_dims(a, 0)) * a.squeeze()
     + np.broadcast_to(a, (2, 3)), (crand(3),)),
    ("flip-diag", lambda a: np.flip(a) + np.diag(a) + np.diag(np.diag(a)), (crand(3, 3),)),
    ("join-where", lambda a, b: np.concatenate([a, b]) + np.concatenate([np.stack([a, b]).sum(axis=0)] * 2)
     + np.where(np.arange(6) > 2, np.concatenate([a, b]), 2.0 * np.concatenate([b, a])),
     (crand(3), crand(3))),
    ("getitem", lambda a: a[1:, ::-1] * a[0, 1] + a[[0, 0, 1]].sum(), (crand(3, 3),)),
    ("inv", lambda a: np.linalg.inv(a), (crand(3, 3) + 3 * np.eye(3),)),
    ("det", lambda a: np.linalg.det(a), (crand(3, 3) + 2 * np.eye(3),)),
    ("inverse-trig", lambda a: np.arcsin(a) + np.arccos(a) + np.arctan(a), (0.5 * crand(3),)),
    ("inverse-hyperbolic", lambda a: np.arcsinh(a) + np.arctanh(0.5 * a) + np.arccosh(a + 2.0),
     (0.5 * crand(3),)),
    ("kron-tensordot", lambda a, b: np.kron(a, b)[:3, :3] + np.tensordot(a, b, axes=1)
     + np.einsum("ij,jk->ik", a, b) + np.inner(a, b), (crand(3, 3), crand(3, 3))),
    ("tile-repeat-roll", lambda a: np.tile(a, (2, 1))[1:4] + np.repeat(a, 2, axis=0)[:3]
     + np.roll(a, 1, axis=1), (crand(3, 3),)),
    ("prod", lambda a: np.prod(a, axis=0) + a.prod() + np.prod(a * np.array([1, 0, 1])),
     (crand(2, 3),)),
    ("max-min", lambda a: np.max(a, axis=0) * np.min(a) + a.max(axis=1).sum() + a.min()
     + np.amax(a) + np.amin(a, axis=1).sum(), (crand(3, 3),)),
    ("build-arrays", lambda a, b: np.array([a[0], b[1], 1j]) + np.asarray(a) * np.copy(b)
     + np.hstack([a, b])[1:4] + np.vstack([a, b])[1] + np.atleast_1d(a[2])
     + np.column_stack([a, b])[:, 1], (crand(3), crand(3))),
    ("builtin-sum", lambda a, b: sum([a, b * 2.0, a * b]) + sum(a), (crand(3), crand(3))),
    ("axes-triangles", lambda a: np.swapaxes(a, 0, 1) + np.moveaxis(a, 0, -1) + np.triu(a)
     + np.tril(a, -1) + np.diagonal(a)[None, :], (crand(3, 3),)),
    ("transpose-methods", lambda a: a.transpose() @ a.T + a.copy(), (crand(3, 3),)),
    ("sort", lambda a: np.sort(a, axis=0) * a + np.sort(a, axis=None)[:3], (crand(3, 3),)),
]
if NUMPY_2:  # ndarray.mT is new in NumPy 2.0
    HOLOMORPHIC.append(("matrix-transpose", lambda a: a.transpose() @ a.mT, (crand(3, 3),)))


def _loss_fixed(f, args):
    """Re(sum(f(*args) * w)) with w fixed (drawn once, in the output's shape).  One or two
    named parameters: a `*args` loss is another feature (the API's call styles)."""
    out = np.asarray(f(*args))
    w = RNG.uniform(-1, 1, out.shape) + 1j * RNG.uniform(-1, 1, out.shape)
    if len(args) == 1:
        return lambda a: np.real(np.sum(f(a) * w))
    return lambda a, b: np.real(np.sum(f(a, b) * w))


@pytest.mark.parametrize("name,f,args", HOLOMORPHIC, ids=[c[0] for c in HOLOMORPHIC])
def test_declared_rule_matches_finite_differences_in_both_directions(name, f, args):
    loss = _loss_fixed(f, args)
    grads = zp.gradient(loss, *args)
    want = numerical_gradient(loss, args)
    for i, (g, fd, a) in enumerate(zip(grads, want, args)):
        assert_gradient_matches(g, fd, a, f"{name} arg{i}", atol=1e-6, rtol=1e-5)


def test_the_table_covers_the_declared_functions():
    """Every function declared complex-ok as written appears in a row above."""
    import inspect

    text = inspect.getsource(inspect.getmodule(test_the_table_covers_the_declared_functions))
    untested = []
    for fn in complex_rules.HOLOMORPHIC_FUNCTIONS:
        name = getattr(fn, "__name__", "")
        spelled = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
                   operator.neg: "-a", operator.pos: "+a", operator.matmul: "@",
                   operator.getitem: "a[", np.divide: "np.divide", builtins.sum: " sum(",
                   builtins.list: " list(", builtins.tuple: " tuple("}.get(
                       fn, f"np.{name}(")
        if fn in (np.linalg.inv, np.linalg.det):
            spelled = f"np.linalg.{name}("
        if spelled not in text:
            untested.append(name)
    assert not untested


# --- the explicit formulas of the non-holomorphic rules, rule by rule


def _rule_check(f, z):
    loss = _loss_fixed(f, (z,)) if np.iscomplexobj(f(z)) else (lambda v: np.sum(f(v)))
    (got,) = zp.gradient(loss, z)
    (fd,) = numerical_gradient(loss, (z,))
    assert_gradient_matches(got, fd, z, "z", atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("f", [  # one lambda a line: Python 3.10 cannot tell them apart otherwise
    np.abs, np.absolute, abs, np.angle,
    lambda z: np.angle(z, deg=True),
    np.conj, np.conjugate, np.real, np.imag,
    lambda z: z.real,
    lambda z: z.imag,
    lambda z: z.conj(),
    lambda z: z.conjugate(),
    np.var, np.std,
    lambda z: z.var(axis=0),
    lambda z: z.std(ddof=1),
    lambda z: np.var(z, axis=1, keepdims=True),
    np.linalg.norm,
    lambda z: np.linalg.norm(z, axis=0),
    lambda z: np.real(z).astype(complex) * z.astype(np.complex128),
], ids=["abs", "absolute", "builtin-abs", "angle", "angle-deg", "conj", "conjugate", "real",
        "imag", ".real", ".imag", ".conj", ".conjugate", "var", "std", ".var-axis", ".std-ddof",
        "var-keepdims", "norm", "norm-axis", "astype"])
def test_non_holomorphic_rule_matches_finite_differences(f):
    _rule_check(f, crand(3, 2))


def test_abs_at_zero_is_zero_like_the_real_rule():
    (g,) = zp.gradient(lambda z: np.sum(np.abs(z)), np.array([0j, 3 + 4j]))
    assert np.allclose(g, [0j, 0.6 - 0.8j], rtol=0, atol=1e-15) and g[0] == 0


def test_the_convention_pinned_by_autograds_abs_rule():
    """autograd's own abs rule is g * conj(z) / |z| (tests/peers/test_autograd_shim.py)."""
    (g,) = zp.gradient(lambda z: np.abs(z), 0.6 + 0.3j)
    assert type(g) is complex and np.isclose(g, (0.6 - 0.3j) / abs(0.6 + 0.3j))


# --- factorizations and norms of complex matrices (rules/factorizations.py, rules/linalg.py)
# Singular vectors and eigenvectors have arbitrary phases: the losses read |U|, |V|, or
# products in which the phases cancel.

_W = RNG.standard_normal((5, 5))


def _svd_all_parts(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    k = s.shape[0]
    return np.sum(np.abs(u) * _W[:u.shape[0], :k]) + np.sum(s * _W[0, :k]) \
        + np.sum(np.abs(vh) ** 3 * _W[:k, :vh.shape[1]])


def _svd_u_alone(a):
    u, _, _ = np.linalg.svd(a, full_matrices=False)
    return np.sum(np.abs(u) ** 3 * _W[:u.shape[0], :u.shape[1]])


def _svd_truncated_reconstruction(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum(np.abs(u[:, :2] @ np.diag(s[:2]) @ vh[:2]) ** 2 * _W[:a.shape[0], :a.shape[1]])


def _svd_square_full(a):
    u, s, vh = np.linalg.svd(a)
    return np.sum(np.abs(u) * _W[:3, :3]) + np.sum(s ** 2) + np.sum(np.abs(vh) * _W[1:4, :3])


def _singular_values(a):
    return np.sum(np.linalg.svd(a, compute_uv=False) ** 2 * _W[0, :min(a.shape[-2:])])


def _eigh_both(a):
    w, v = np.linalg.eigh(a)
    return np.sum(w * _W[0, :a.shape[0]]) + np.sum(np.abs(v) * _W[:a.shape[0], :a.shape[0]])


def _eigh_upper(a):
    w, v = np.linalg.eigh(a, "U")
    return np.sum(w ** 2) + np.sum(np.abs(v) ** 2 * _W[:a.shape[0], :a.shape[0]])


def _eigvalsh_of_a_hermitian_product(a):
    return np.sum(np.linalg.eigvalsh(a @ np.conj(a.T)) * _W[1, :a.shape[0]])


def _matrix_norms(a):
    return np.linalg.norm(a, "nuc") + np.linalg.norm(a, 2) + np.linalg.norm(a, -2) \
        + np.linalg.norm(a, 1) + np.linalg.norm(a, -np.inf) + np.linalg.norm(a, "fro")


def _vector_norms(z):
    return np.linalg.norm(z, 1) + np.linalg.norm(z, 3) + np.linalg.norm(z, np.inf) \
        + np.linalg.norm(z, -np.inf) + np.linalg.norm(z, 0.5) + np.linalg.norm(z, 0)


def _eig_values_and_vector_moduli(a):
    w, v = np.linalg.eig(a)
    return tuple((w, np.abs(v)))  # tuple() of complex values: structure only


@pytest.mark.parametrize("f,z", [
    (_svd_all_parts, crand(3, 5)), (_svd_all_parts, crand(5, 3)), (_svd_u_alone, crand(3, 4)),
    (_svd_truncated_reconstruction, crand(4, 3)), (_svd_square_full, crand(3, 3)),
    (_singular_values, crand(4, 2)), (_singular_values, crand(2, 3, 3)),
    (_eigh_both, crand(4, 4)), (_eigh_upper, crand(4, 4)), (_eigvalsh_of_a_hermitian_product, crand(3, 4)),
    (_matrix_norms, crand(4, 3)), (_vector_norms, crand(5)),
], ids=["svd-wide", "svd-tall", "svd-u", "svd-truncated", "svd-full-square", "svdvals", "svdvals-batch",
        "eigh", "eigh-upper", "eigvalsh", "matrix-norms", "vector-norms"])
def test_complex_factorizations_and_norms_match_finite_differences(f, z):
    _rule_check(f, z)


_EIG_WEIGHTS = crand(4)


def _eig_loss(a):
    w, modulus = _eig_values_and_vector_moduli(a)
    return np.real(np.sum(w * _EIG_WEIGHTS)) + np.sum(modulus * _W[:4, :4])


def test_eig_values_and_vector_moduli_through_tuple():
    z = crand(4, 4)
    loss = _eig_loss
    (got,) = zp.gradient(loss, z)
    (fd,) = numerical_gradient(loss, (z,))
    assert_gradient_matches(got, fd, z, "z", atol=1e-6, rtol=1e-5)


# --- refusals: a rule not declared for complex values never returns a number


def _max_of_complex(z):
    return np.real(np.sum(np.maximum(z, 0.1)))


def _partition_of_complex(z):
    return np.real(np.partition(z, 1)[0] * 2.0)


def _sign_of_complex(z):
    return np.real(np.sum(np.sign(z) * z))


def _cumprod_of_complex(x):
    return np.sum(np.abs(np.cumprod(x * np.exp(0.5j))))


def _complex_intermediate_into_maximum(x):
    return np.real(np.sum(np.maximum(x * np.exp(0.5j), 0.0)))


def _vdot_conjugates_its_first_operand(x):
    return np.real(np.vdot(np.exp(1j * np.arange(3.0)), x))


@pytest.mark.parametrize("f,arg,callee", [
    (_max_of_complex, crand(3), "numpy.maximum"),
    (_partition_of_complex, crand(3), "numpy.partition"),
    (_sign_of_complex, crand(3), "numpy.sign"),
    (_cumprod_of_complex, RNG.uniform(-1, 1, 4), "numpy.cumprod"),
    (_complex_intermediate_into_maximum, RNG.uniform(-1, 1, 3), "numpy.maximum"),
    (_vdot_conjugates_its_first_operand, RNG.uniform(-1, 1, 3), "numpy.vdot"),
], ids=["maximum", "partition", "sign", "cumprod", "intermediate", "vdot"])
def test_undeclared_rule_refuses_a_complex_value(f, arg, callee):
    with pytest.raises(zp.ZygoteError, match=callee):
        zp.gradient(f, arg)


def test_refusal_names_the_call_site_with_a_caret_and_a_hint():
    with pytest.raises(zp.NoDerivativeRule) as info:
        zp.gradient(_max_of_complex, crand(3))
    text = str(info.value)
    assert "test_complex_rules.py" in text and "np.maximum(z, 0.1)" in text and "^" in text
    assert "complex" in text and "hint" in text


def test_a_real_call_of_the_same_function_still_differentiates():
    """The refusal depends on the argument's kind (part of the compiled entry's key)."""
    x = RNG.uniform(0.2, 1, 3)
    assert np.allclose(zp.gradient(_max_of_complex, x)[0], 1.0)
    with pytest.raises(zp.NoDerivativeRule):
        zp.gradient(_max_of_complex, crand(3))
    assert np.allclose(zp.gradient(_max_of_complex, x)[0], 1.0)


def _apply(fn, z):
    return np.real(np.sum(fn(z, 0.1)))


def test_a_rule_resolved_while_running_refuses_a_complex_value():
    """fn is a value: the rule is applied by the run-time dispatcher, which sees z."""
    with pytest.raises(zp.NoDerivativeRule, match="numpy.maximum"):
        zp.gradient(_apply, np.maximum, crand(3))
    (g,) = zp.gradient(lambda z: _apply(np.add, z), crand(3))
    assert np.allclose(g, 1.0)


def _helper_abs(z):
    return np.abs(z)


def _calls_a_helper_with_a_complex_value(x):
    return np.sum(_helper_abs(x * np.exp(0.3j)))


def test_a_callee_compiled_for_a_complex_argument_uses_the_complex_rule():
    x = RNG.uniform(-1, 1, 3)
    (g,) = zp.gradient(_calls_a_helper_with_a_complex_value, x)
    (fd,) = numerical_gradient(_calls_a_helper_with_a_complex_value, (x,))
    assert np.allclose(g, fd, atol=1e-6)


def test_every_complex_variant_is_registered_on_a_rule():
    variants = [r for r in registry.all_rules() if "complex_vjp" in r.meta]
    names = {r.qualname for r in variants}
    for name in ("numpy.absolute", "numpy.angle", "numpy.conjugate", "numpy.real", "numpy.imag",
                 "numpy.var", "numpy.std", "numpy.linalg.norm", "numpy.ndarray.imag",
                 "numpy.ndarray.real", "numpy.ndarray.conj"):
        assert name in names, name
    assert all(r.complex_ok for r in variants)


# --- a complex form is used wherever a value may be complex, real ones included


def _norms_of_a_global_read(x):
    return np.linalg.norm(x * SCALE, 1) + np.linalg.norm(x * SCALE, np.inf) \
        + np.var(x * SCALE) + np.std(x * SCALE, ddof=1) + np.sum(np.abs(x * SCALE))


def _spreads_about_a_given_mean_of_a_global_read(x):
    return np.var(x * SCALE, mean=0.25) + np.std(x * SCALE, mean=0.5)


def _factorizations_of_a_global_read(x):
    m = np.outer(x, x[::-1]) * SCALE + np.diag(x) + 3.0 * np.eye(4)
    u, s, vh = np.linalg.svd(m)
    w, v = np.linalg.eigh(m)
    return np.sum(np.abs(u) * MIX) + np.sum(s * MIX[0]) + np.sum(np.abs(vh) ** 3 * MIX) \
        + np.sum(np.linalg.svd(m, compute_uv=False) ** 2) + np.sum(w * MIX[1]) \
        + np.sum(np.abs(v) * MIX) + np.sum(np.linalg.eigvalsh(m, "U") * MIX[2]) \
        + np.linalg.norm(m, "nuc") + np.linalg.norm(m, -2) + np.linalg.norm(m, np.inf) \
        + np.linalg.norm(x * SCALE, 3) + np.sum(np.real_if_close(m) * MIX) + np.sum(tuple(x * SCALE))


SCALE = 1.5  # a global: the analysis cannot tell it is real, so the complex forms are used
MIX = RNG.standard_normal((4, 4))


@pytest.mark.parametrize("f", [
    _norms_of_a_global_read,
    pytest.param(_spreads_about_a_given_mean_of_a_global_read, marks=NEEDS_NUMPY_2),
    _factorizations_of_a_global_read,
])
def test_complex_forms_are_right_for_real_values(f):
    x = np.array([0.3, -1.2, 0.7, 0.1])
    (g,) = zp.gradient(f, x)
    (fd,) = numerical_gradient(f, (x,))
    assert np.allclose(g, fd, atol=1e-6)


def _var_about_a_given_mean(z):
    return np.var(z, mean=0.1 + 0.2j) + z.std(mean=np.full(3, 0.3 - 0.1j))


@NEEDS_NUMPY_2
def test_complex_var_and_std_about_a_given_mean():
    _rule_check(_var_about_a_given_mean, crand(3))


def _power_of_a_global_base(p):
    return np.sum(BASES ** p)


BASES = np.array([0.0, 2.0, 0.5])


def test_complex_power_keeps_the_real_rules_zero_base_convention():
    """A global base may be complex to the analysis; for a real one, 0 where it is 0."""
    (g,) = zp.gradient(_power_of_a_global_base, 1.5)
    assert g == pytest.approx(2.0 ** 1.5 * np.log(2.0) + 0.5 ** 1.5 * np.log(0.5))


class _Holder:
    def __init__(self, z):
        self.z = z

    def values(self):
        return self.z


def _maximum_of_what_a_method_returns(holder, x):
    # what a method returns is not known to be an array: np.maximum is dispatched while
    # running, on its plain-operand fast path
    return np.real(np.sum(np.maximum(holder.values() * x, 0.1)))


def test_a_rule_on_the_dispatchers_fast_path_refuses_a_complex_value():
    x = RNG.uniform(0.5, 1, 3)
    with pytest.raises(zp.NoDerivativeRule, match="numpy.maximum"):
        zp.gradient(_maximum_of_what_a_method_returns, _Holder(crand(3)), x)
    # real values through the same path: the rule's number, checked by finite differences
    z = RNG.uniform(0.5, 1, 3)
    holder_bar, x_bar = zp.gradient(_maximum_of_what_a_method_returns, _Holder(z), x)
    (fd_x,) = numerical_gradient(lambda v: _maximum_of_what_a_method_returns(_Holder(z), v), (x,))
    (fd_z,) = numerical_gradient(lambda w: _maximum_of_what_a_method_returns(_Holder(w), x), (z,))
    assert np.allclose(x_bar, fd_x, atol=1e-6) and np.allclose(holder_bar["z"], fd_z, atol=1e-6)


def test_take_along_axis_complex_and_its_hessian():
    # autograd's test_linalg.py::test_eig_real (rev/rev): a gather of complex values, and forward
    # mode over its rule's body (a scatter, rules/rule_helpers.py), against differences
    rng = np.random.default_rng(3)
    z = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    idx = np.array([[0, 2, 2, 1], [1, 1, 0, 0], [2, 0, 1, 2]])
    c = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))

    def f(a):
        return np.real(np.sum(np.take_along_axis(a, idx, axis=0) ** 2 * c))

    (g,) = zp.gradient(f, z)
    h = 1e-6
    for i in np.ndindex(z.shape):
        e = np.zeros(z.shape)
        e[i] = h
        # the covector convention: df = Re(g dz)
        assert np.isclose(np.real(g[i]), (f(z + e) - f(z - e)) / (2 * h), atol=1e-6)
        assert np.isclose(-np.imag(g[i]), (f(z + 1j * e) - f(z - 1j * e)) / (2 * h), atol=1e-6)
    x = rng.standard_normal(4)

    def through_complex(a):
        taken = np.take_along_axis(a * (1 + 2j), np.array([1, 1, 3, 0]), axis=0)
        return np.sum(np.abs(taken) ** 2 * np.arange(1, 5))

    def real_cubed(a):
        return np.sum(np.take_along_axis(a, np.array([1, 1, 3, 0]), axis=0) ** 3)

    for fn in (through_complex, real_cubed):
        hess = zp.hessian(fn, x)
        numeric = np.stack([(zp.gradient(fn, x + h * e)[0] - zp.gradient(fn, x - h * e)[0]) / (2 * h)
                            for e in np.eye(4)], axis=-1)
        np.testing.assert_allclose(hess, numeric, atol=1e-6)


@pytest.mark.parametrize("product", ["tensordot", "outer", "inner"])
def test_complex_hessians_through_the_bilinear_products(product):
    # autograd's test_systematic.py test_tensordot_1 / test_outer with c16 arguments (fwd/fwd):
    # forward mode over a complex gradient runs the products' cotangent helpers
    rng = np.random.default_rng(1)

    def c(*shape):
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)

    w3, w34, c24, c33 = c(3), c(3, 4), c(2, 4), c(3, 3)
    f, z = {
        "tensordot": (lambda u: np.real(np.sum(np.tensordot(u, w34, axes=([1], [0])) ** 2 * c24)),
                      c(2, 3)),
        "outer": (lambda u: np.real(np.sum(np.outer(u, w3) ** 2 * c33)), c(3)),
        "inner": (lambda u: np.real(np.inner(u, w3) ** 3), c(3)),
    }[product]
    v = c(*z.shape)
    h = 1e-6
    numeric = (zp.gradient(f, z + h * v)[0] - zp.gradient(f, z - h * v)[0]) / (2 * h)
    np.testing.assert_allclose(zp.hvp(f, z, v), numeric, atol=1e-6)
