"""Programs of the kind SciPy users write, differentiated end to end and checked against
central finite differences: a Gaussian-process marginal likelihood (Cholesky and
triangular solves), an HMM's forward algorithm in log space (logsumexp), black-box
stochastic variational inference with norm.logpdf (frozen and unfrozen), a Bayesian
logistic regression's log joint with multivariate_normal and expit, a Poisson GLM, a
variational autoencoder (MLP encoder and decoder, reparameterised Gaussian, SciPy
log-densities) and a neural ODE fitted through scipy.integrate.odeint."""

from __future__ import annotations

import numpy as np
import pytest
from corpus.finite_diff import assert_gradient_matches, numerical_gradient

import zygote_py as zp

integrate = pytest.importorskip("scipy.integrate")
linalg = pytest.importorskip("scipy.linalg")
special = pytest.importorskip("scipy.special")
stats = pytest.importorskip("scipy.stats")

RNG = np.random.default_rng(11)


def _check(f, *args, rtol=1e-5):
    got = zp.gradient(f, *args)
    for i, (g, n, a) in enumerate(zip(got, numerical_gradient(f, args), args)):
        assert_gradient_matches(g, n, a, f"{f.__name__} argument {i}", rtol=rtol)
    return got


# --- Gaussian-process regression: the negative log marginal likelihood ------------------

X_GP = np.linspace(-2.0, 2.0, 7)
Y_GP = np.sin(X_GP) + 0.1 * RNG.standard_normal(7)


def rbf_kernel(x, log_lengthscale, log_variance):
    d = x[:, None] - x[None, :]
    return np.exp(log_variance) * np.exp(-0.5 * d * d / np.exp(2.0 * log_lengthscale))


def gp_negative_log_marginal_likelihood(params):
    log_lengthscale, log_variance, log_noise = params[0], params[1], params[2]
    k = rbf_kernel(X_GP, log_lengthscale, log_variance) + np.exp(log_noise) * np.eye(len(X_GP))
    chol = linalg.cholesky(k, lower=True)
    alpha = linalg.solve_triangular(chol.T, linalg.solve_triangular(chol, Y_GP, lower=True), lower=False)
    return 0.5 * Y_GP @ alpha + np.sum(np.log(np.diag(chol))) + 0.5 * len(X_GP) * np.log(2.0 * np.pi)


def gp_with_cho_solve(params):
    k = rbf_kernel(X_GP, params[0], params[1]) + np.exp(params[2]) * np.eye(len(X_GP))
    factor = linalg.cho_factor(k)
    return 0.5 * Y_GP @ linalg.cho_solve(factor, Y_GP) + 0.5 * np.log(linalg.det(k))


def test_gp_marginal_likelihood():
    params = np.array([0.1, -0.2, -1.5])
    _check(gp_negative_log_marginal_likelihood, params)
    _check(gp_with_cho_solve, params)
    # the Cholesky and cho_solve formulations are the same function
    np.testing.assert_allclose(zp.gradient(gp_negative_log_marginal_likelihood, params)[0],
                               zp.gradient(gp_with_cho_solve, params)[0], rtol=1e-8)


# --- an HMM's forward algorithm in log space ----------------------------------------------

OBS = np.array([0, 2, 1, 1, 0, 2])


def hmm_log_likelihood(log_pi, log_a, log_b):
    alpha = log_pi + log_b[:, OBS[0]]
    for t in range(1, len(OBS)):
        alpha = special.logsumexp(alpha[:, None] + log_a, axis=0) + log_b[:, OBS[t]]
    return special.logsumexp(alpha)


def test_hmm_forward_algorithm():
    log_pi = special.log_softmax(RNG.standard_normal(3))
    log_a = special.log_softmax(RNG.standard_normal((3, 3)), axis=1)
    log_b = special.log_softmax(RNG.standard_normal((3, 3)), axis=1)
    _check(hmm_log_likelihood, log_pi, log_a, log_b)


def hmm_from_logits(pi_logits, a_logits, b_logits):
    return hmm_log_likelihood(special.log_softmax(pi_logits), special.log_softmax(a_logits, axis=1),
                              special.log_softmax(b_logits, axis=1))


def test_hmm_from_unconstrained_logits():
    _check(hmm_from_logits, RNG.standard_normal(3), RNG.standard_normal((3, 3)), RNG.standard_normal((3, 3)))


# --- black-box stochastic variational inference ------------------------------------------

DATA = 1.5 + 0.7 * RNG.standard_normal(20)
EPS = RNG.standard_normal(16)  # fixed draws: the reparameterised objective is deterministic


def log_joint(theta):
    # theta = (mu, log_sigma) of the model, with priors on both
    mu, log_sigma = theta[..., 0], theta[..., 1]
    prior = stats.norm.logpdf(mu, 0.0, 3.0) + stats.norm.logpdf(log_sigma, 0.0, 1.0)
    like = np.sum(stats.norm.logpdf(DATA[:, None], mu, np.exp(log_sigma)), axis=0)
    return prior + like


def negative_elbo(variational):
    mean, log_std = variational[:2], variational[2:]
    samples = mean + np.exp(log_std) * EPS[:, None] * np.array([1.0, 0.5])
    entropy = np.sum(log_std) + np.log(2.0 * np.pi * np.e)
    return -(np.mean(log_joint(samples)) + entropy)


def negative_elbo_frozen(variational):
    mean, log_std = variational[:2], variational[2:]
    q = stats.norm(mean, np.exp(log_std))
    samples = mean + np.exp(log_std) * EPS[:, None]
    return np.mean(np.sum(q.logpdf(samples), axis=1)) - np.mean(log_joint(samples))


def test_black_box_svi():
    variational = np.array([1.0, -0.3, -1.0, -1.2])
    _check(negative_elbo, variational)
    _check(negative_elbo_frozen, variational)
    # a few steps of gradient descent improve the objective
    v = variational.copy()
    start = negative_elbo(v)
    for _ in range(20):
        v = v - 0.02 * zp.gradient(negative_elbo, v)[0]
    assert negative_elbo(v) < start


# --- Bayesian logistic regression and a Poisson GLM -----------------------------------------

FEATURES = RNG.standard_normal((12, 3))
LABELS = (RNG.random(12) < 0.5).astype(float)
COUNTS = np.array([0.0, 1.0, 3.0, 2.0, 0.0, 5.0, 1.0, 2.0, 4.0, 0.0, 1.0, 3.0])


def logistic_log_joint(w, prior_cov):
    p = special.expit(FEATURES @ w)
    return (stats.multivariate_normal.logpdf(w, np.zeros(3), prior_cov)
            + np.sum(special.xlogy(LABELS, p) + special.xlog1py(1.0 - LABELS, -p)))


def poisson_glm(w, log_scale):
    rate = np.exp(FEATURES @ w + log_scale)
    return np.sum(stats.poisson.logpmf(COUNTS, rate)) + np.sum(stats.gamma.logpdf(np.exp(log_scale), 2.0))


def test_bayesian_logistic_regression_and_poisson_glm():
    a = RNG.standard_normal((3, 3))
    _check(logistic_log_joint, 0.3 * RNG.standard_normal(3), a @ a.T + 3.0 * np.eye(3))
    _check(poisson_glm, 0.2 * RNG.standard_normal(3), 0.1)


# --- a variational autoencoder: MLP encoder and decoder, reparameterised Gaussian -------

X_VAE = (RNG.uniform(size=(6, 5)) > 0.5).astype(float)  # six binary images of five pixels
EPS_VAE = RNG.standard_normal((6, 2))  # the reparameterisation noise, drawn once


def vae_encode(params, x):
    hidden = np.tanh(x @ params["enc_w"] + params["enc_b"])
    out = hidden @ params["enc_out"]
    return out[:, :2], out[:, 2:]  # the posterior's mean and log standard deviation


def vae_decode(params, z):
    hidden = np.tanh(z @ params["dec_w"] + params["dec_b"])
    return hidden @ params["dec_out"]  # Bernoulli logits


def vae_negative_elbo(params):
    mean, log_std = vae_encode(params, X_VAE)
    z = mean + np.exp(log_std) * EPS_VAE
    logits = vae_decode(params, z)
    log_likelihood = np.sum(X_VAE * special.log_expit(logits) + (1.0 - X_VAE) * special.log_expit(-logits),
                            axis=1)
    log_prior = np.sum(stats.norm.logpdf(z), axis=1)
    log_posterior = np.sum(stats.norm.logpdf(z, mean, np.exp(log_std)), axis=1)
    return -np.mean(log_likelihood + log_prior - log_posterior)


def test_variational_autoencoder():
    params = {"enc_w": 0.5 * RNG.standard_normal((5, 3)), "enc_b": 0.1 * RNG.standard_normal(3),
              "enc_out": 0.5 * RNG.standard_normal((3, 4)), "dec_w": 0.5 * RNG.standard_normal((2, 3)),
              "dec_b": 0.1 * RNG.standard_normal(3), "dec_out": 0.5 * RNG.standard_normal((3, 5))}
    (grads,) = _check(vae_negative_elbo, params)
    assert set(grads) == set(params) and all(np.any(grads[k] != 0.0) for k in params)


# --- a neural ODE: an MLP vector field fitted through scipy.integrate.odeint ------------

T_ODE = np.linspace(0.0, 1.0, 4)
Y0_ODE = np.array([1.0, -0.5])
TARGET_ODE = np.stack([np.cos(2.0 * T_ODE), -np.sin(2.0 * T_ODE)], axis=1)


def mlp_field(y, t, w_in, b_in, w_out):
    return w_out @ np.tanh(w_in @ y + b_in)


def neural_ode_loss(w_in, b_in, w_out, y0):
    path = integrate.odeint(mlp_field, y0, T_ODE, args=(w_in, b_in, w_out), rtol=1e-11, atol=1e-11)
    return np.sum((path - TARGET_ODE) ** 2)


def test_neural_ode_through_odeint():
    w_in = 0.5 * RNG.standard_normal((3, 2))
    b_in = 0.1 * RNG.standard_normal(3)
    w_out = 0.5 * RNG.standard_normal((2, 3))
    _check(neural_ode_loss, w_in, b_in, w_out, Y0_ODE, rtol=1e-4)
