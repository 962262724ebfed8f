"""Splicing rule bodies: a refusal in a rule's body survives dead-code removal.

A rule body refuses a case it has no formula for with a statement
(`_unsupported("np.var(..., where=...)")`, `raise ...`).  Nothing uses its
value, so removing dead code from the spliced copy used to drop it, and the
gradient of np.var(x, where=mask) came back as the unmasked one: a number,
and a wrong one.
"""

import numpy as np
import pytest

import zygote_py as zp

MASK = np.array([True, False, True, True])
X = np.array([1.0, 2.0, 4.0, -0.5])


def masked_var(x):
    return np.var(x, where=MASK)


def masked_std_method(x):
    return x.std(where=MASK)


def masked_max(x):
    return np.max(x, where=MASK, initial=-10.0)


def masked_prod(x):
    return np.prod(x, where=MASK)


@pytest.mark.parametrize("f", [masked_var, masked_std_method, masked_max, masked_prod])
def test_a_rule_refusing_where_refuses_when_spliced(f):
    # refused when the function is transformed (the rule declares where= unsupported),
    # and the spliced body's own refusal is kept as well (never an unmasked gradient)
    with pytest.raises(zp.NoDerivativeRule, match="where=|initial="):
        zp.gradient(f, X)


def test_the_refusal_costs_nothing_when_the_argument_is_left_out():
    """where=None folds the refusing branch away: the gradient is computed."""
    (g,) = zp.gradient(lambda x: np.var(x), X)
    assert np.allclose(g, 2 * (X - X.mean()) / X.size)


def hermitian_svd_of_complex(z):
    return np.sum(np.linalg.svd(z, hermitian=True, compute_uv=False))


def test_a_raise_statement_in_a_rule_body_survives():
    # the complex svd rule's body raises for hermitian=True
    with pytest.raises(zp.ZygoteError, match="hermitian=True"):
        zp.gradient(hermitian_svd_of_complex, np.array([[2.0 + 0j, 0.3 - 0.1j], [0.3 + 0.1j, 1.0 + 0j]]))
