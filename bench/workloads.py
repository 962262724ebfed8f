"""The five benchmark workloads, written as plain NumPy.

These function bodies are what the NumPy-primal baseline times, what
zygote_py and tangent-ad differentiate, and what the hand-written reference
gradients below are checked against.  The peers that need their own array
module (autograd, jax, torch) re-state the same bodies in their idiom in
``bench/systems/``; every system is checked against ``reference_grad``.

Data comes from fixed seeds so every process builds identical inputs.  Data
that is not differentiated (the MLP batch, the RNN input sequence) lives in
module globals that the functions read, so a system that differentiates every
positional argument (``zp.gradient(f, *args)``) wastes no work on it.
"""

import itertools

import numpy as np

SEED = 0

# Constants read as globals by mlp_loss and rnn_loss; set by make_data().
x_batch = None  # (128, 784) MLP input batch
y_onehot = None  # (128, 10) one-hot MLP labels
xs = None  # (50, 16, 32) RNN input sequence


# --------------------------------------------------------------------------
# The workloads (plain NumPy; keep them free of tricks: they are the subject)
# --------------------------------------------------------------------------


def scalar_loop(x):
    for _ in range(1000):
        x = np.sin(x) * x + 0.5 * np.cos(x) / (1 + x * x)
    return x


def mlp_loss(W1, b1, W2, b2, W3, b3):
    h1 = np.tanh(x_batch @ W1 + b1)
    h2 = np.tanh(h1 @ W2 + b2)
    logits = h2 @ W3 + b3
    z = logits - np.max(logits, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.sum(y_onehot * logp) / 128.0


def rnn_loss(W_h, W_x, b):
    h = np.zeros((xs.shape[1], W_h.shape[0]))
    for t in range(xs.shape[0]):
        h = np.tanh(h @ W_h.T + xs[t] @ W_x.T + b)
    return np.sum(h**2)


def elementwise(x):
    return np.sum(np.sin(x) * np.exp(-(x**2)) + np.log1p(x * x))


def small_ops(x):
    for _ in range(200):
        x = np.tanh(x * 1.01 + 0.1)
    return np.sum(x)


FUNCTIONS = {
    "scalar_loop": scalar_loop,
    "mlp": mlp_loss,
    "rnn": rnn_loss,
    "elementwise": elementwise,
    "small_ops": small_ops,
}
NAMES = list(FUNCTIONS)

# Names of the differentiated positional arguments, per workload (tables, docs).
ARG_NAMES = {
    "scalar_loop": ("x",),
    "mlp": ("W1", "b1", "W2", "b2", "W3", "b3"),
    "rnn": ("W_h", "W_x", "b"),
    "elementwise": ("x",),
    "small_ops": ("x",),
}

DESCRIPTIONS = {
    "scalar_loop": "x: Python float; 1000 x (x = sin(x)*x + 0.5*cos(x)/(1+x*x)); d/dx",
    "mlp": "784-256-256-10 tanh MLP, batch 128, log-softmax cross-entropy; grads of 6 params",
    "rnn": "tanh RNN, 50 steps, hidden 128, input 32, batch 16; loss sum(h**2); grads W_h, W_x, b",
    "elementwise": "x: 1e6 float64; sum(sin(x)*exp(-x**2) + log1p(x*x))",
    "small_ops": "x: 10 float64; 200 x (x = tanh(1.01*x + 0.1)); sum(x)",
}


# --------------------------------------------------------------------------
# Data (fixed seeds; sets the module globals the functions read)
# --------------------------------------------------------------------------


def make_data(name):
    """Build the inputs of workload ``name``; returns the tuple of
    differentiated arguments and sets the constant globals it reads.

    Returns a dict: ``args`` (tuple of the differentiated arguments) and
    ``consts`` (dict of the non-differentiated data, for peers that pass it
    explicitly)."""
    global x_batch, y_onehot, xs
    rng = np.random.default_rng(SEED)
    if name == "scalar_loop":
        # A Python float, not an array: the workload is about per-op overhead.
        return {"args": (0.7,), "consts": {}}
    if name == "mlp":
        sizes = [784, 256, 256, 10]
        params = []
        for fan_in, fan_out in itertools.pairwise(sizes):
            params.append(rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in))
            params.append(0.1 * rng.standard_normal(fan_out))
        x_batch = rng.standard_normal((128, 784))
        y_onehot = np.eye(10)[rng.integers(0, 10, size=128)]
        return {"args": tuple(params), "consts": {"x": x_batch, "y": y_onehot}}
    if name == "rnn":
        hidden, inp, batch, steps = 128, 32, 16, 50
        # Scaled below 1/sqrt(hidden) so 50 steps neither saturate nor vanish.
        W_h = 0.9 * rng.standard_normal((hidden, hidden)) / np.sqrt(hidden)
        W_x = rng.standard_normal((hidden, inp)) / np.sqrt(inp)
        b = 0.1 * rng.standard_normal(hidden)
        xs = rng.standard_normal((steps, batch, inp))
        return {"args": (W_h, W_x, b), "consts": {"xs": xs}}
    if name == "elementwise":
        return {"args": (rng.standard_normal(1_000_000),), "consts": {}}
    if name == "small_ops":
        return {"args": (rng.standard_normal(10),), "consts": {}}
    raise KeyError(f"unknown workload {name!r}; known: {', '.join(NAMES)}")


# --------------------------------------------------------------------------
# Reference gradients: hand-derived NumPy, independent of every AD system
# --------------------------------------------------------------------------


def _ref_scalar_loop(x, steps=1000):
    # Forward-mode chain rule along the loop: one derivative per step.
    dx = 1.0
    for _ in range(steps):
        s, c, d = np.sin(x), np.cos(x), 1 + x * x
        dstep = c * x + s + 0.5 * (-s * d - c * 2 * x) / (d * d)
        x = s * x + 0.5 * c / d
        dx = dx * dstep
    return (float(dx),)


def _ref_mlp(W1, b1, W2, b2, W3, b3):
    h1 = np.tanh(x_batch @ W1 + b1)
    h2 = np.tanh(h1 @ W2 + b2)
    logits = h2 @ W3 + b3
    z = logits - np.max(logits, axis=1, keepdims=True)
    p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
    dlogits = (p - y_onehot) / 128.0
    da2 = (dlogits @ W3.T) * (1 - h2**2)
    da1 = (da2 @ W2.T) * (1 - h1**2)
    return (x_batch.T @ da1, da1.sum(0), h1.T @ da2, da2.sum(0), h2.T @ dlogits, dlogits.sum(0))


def _ref_rnn(W_h, W_x, b):
    hs = [np.zeros((xs.shape[1], W_h.shape[0]))]
    for t in range(xs.shape[0]):
        hs.append(np.tanh(hs[-1] @ W_h.T + xs[t] @ W_x.T + b))
    dW_h, dW_x, db = np.zeros_like(W_h), np.zeros_like(W_x), np.zeros_like(b)
    dh = 2 * hs[-1]
    for t in reversed(range(xs.shape[0])):
        da = dh * (1 - hs[t + 1] ** 2)
        dW_h += da.T @ hs[t]
        dW_x += da.T @ xs[t]
        db += da.sum(0)
        dh = da @ W_h
    return (dW_h, dW_x, db)


def _ref_elementwise(x):
    e = np.exp(-(x**2))
    return (np.cos(x) * e - 2 * x * np.sin(x) * e + 2 * x / (1 + x * x),)


def _ref_small_ops(x, steps=200):
    ys = []
    for _ in range(steps):
        x = np.tanh(x * 1.01 + 0.1)
        ys.append(x)
    g = np.ones_like(x)
    for y in reversed(ys):
        g = g * (1 - y**2) * 1.01
    return (g,)


_REFERENCES = {
    "scalar_loop": _ref_scalar_loop,
    "mlp": _ref_mlp,
    "rnn": _ref_rnn,
    "elementwise": _ref_elementwise,
    "small_ops": _ref_small_ops,
}


def reference_grad(name, args):
    """The exact gradient of workload ``name`` at ``args`` (tuple, one per arg)."""
    return _REFERENCES[name](*args)


# --------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------

# float64 everywhere; the systems differ only in summation order and in the
# form of the derivative formulas (e.g. 1 - tanh^2 vs 1/cosh^2), so agreement
# to ~1e-12 is typical; 1e-7 leaves room for 1000-step products.
RTOL = 1e-7


def compare(name, got, ref=None, args=None):
    """Compare a system's gradient with the reference.

    ``got`` is a sequence of array-likes (one per differentiated arg).
    Returns ``(ok, max_rel_err, message)``; the relative error of each arg is
    ``||got - ref|| / ||ref||`` so tiny or huge gradients are judged alike."""
    if ref is None:
        ref = reference_grad(name, args)
    if got is None or len(got) != len(ref):
        n = None if got is None else len(got)
        return False, float("inf"), f"expected {len(ref)} gradients, got {n}"
    worst = 0.0
    for i, (g, r) in enumerate(zip(got, ref)):
        if g is None:
            return False, float("inf"), f"gradient {i} is None (zero), expected nonzero"
        g = np.asarray(g, dtype=np.float64)
        r = np.asarray(r, dtype=np.float64)
        if g.shape != r.shape:
            return False, float("inf"), f"gradient {i} has shape {g.shape}, expected {r.shape}"
        denom = max(np.linalg.norm(r), np.finfo(float).tiny)
        err = float(np.linalg.norm(g - r) / denom)
        if not np.isfinite(err):
            return False, float("inf"), f"gradient {i} is not finite"
        worst = max(worst, err)
    if worst > RTOL:
        return False, worst, f"max relative error {worst:.2e} > {RTOL:.0e}"
    return True, worst, "ok"


def _scalar_loop_steps(x, steps):
    for _ in range(steps):
        x = np.sin(x) * x + 0.5 * np.cos(x) / (1 + x * x)
    return x


def _small_ops_steps(x, steps):
    for _ in range(steps):
        x = np.tanh(x * 1.01 + 0.1)
    return np.sum(x)


# The two loops contract to a fixed point, so their full-length gradients are
# ~1e-40..1e-120: correct, but far below what finite differences resolve.  The
# references' per-step formulas are therefore checked on a few steps.
_FD_SHORT = {
    "scalar_loop": (lambda x: _scalar_loop_steps(x, 4), lambda x: _ref_scalar_loop(x, 4)),
    "small_ops": (lambda x: _small_ops_steps(x, 4), lambda x: _ref_small_ops(x, 4)),
}


def check_reference_fd(name, args, directions=3, eps=1e-6, rtol=1e-5):
    """Validate ``reference_grad`` against central finite differences.

    Uses directional derivatives ``(f(x+eps v) - f(x-eps v)) / (2 eps)`` along
    random directions ``v``: one pair of evaluations per direction instead of
    two per parameter (the MLP has 270k parameters).  Returns
    ``(ok, max_rel_err, message)``."""
    if name in _FD_SHORT:
        f, ref_fn = _FD_SHORT[name]
        ref = ref_fn(*args)
    else:
        f, ref = FUNCTIONS[name], reference_grad(name, args)
    rng = np.random.default_rng(SEED + 1)
    worst = 0.0
    for _ in range(directions):
        vs = [rng.standard_normal(np.shape(a)) for a in args]
        vs = [float(v) if np.ndim(a) == 0 else v for v, a in zip(vs, args)]
        plus = f(*[a + eps * v for a, v in zip(args, vs)])
        minus = f(*[a - eps * v for a, v in zip(args, vs)])
        fd = (plus - minus) / (2 * eps)
        exact = sum(float(np.sum(np.asarray(r) * v)) for r, v in zip(ref, vs))
        err = abs(fd - exact) / max(abs(exact), 1e-12)
        worst = max(worst, float(err))
    if worst > rtol:
        return False, worst, f"reference vs finite differences: rel err {worst:.2e} > {rtol:.0e}"
    return True, worst, "ok"


if __name__ == "__main__":
    # `python bench/workloads.py`: self-check the reference gradients.
    for wl in NAMES:
        a = make_data(wl)["args"]
        print(wl, check_reference_fd(wl, a), "primal =", FUNCTIONS[wl](*a))
