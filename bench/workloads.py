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
masses = None  # (32,) N-body masses
lstm_xs = None  # (50, 32, 64) one-hot LSTM inputs
lstm_ys = None  # (50, 32, 64) one-hot LSTM targets
tf_x = None  # (8, 64, 128) transformer-block input


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


def scalar_loop_n(x, n):
    # W1 with its trip count passed as an argument (n = 1000 in W1n, 10^6 in W9).
    for _ in range(n):
        x = np.sin(x) * x + 0.5 * np.cos(x) / (1 + x * x)
    return x


def nbody_accel(pos):
    # Softened pairwise gravity; the diagonal (a body on itself) has d = 0.
    d = pos[None, :, :] - pos[:, None, :]
    r2 = np.einsum("ijk,ijk->ij", d, d) + 0.01
    return np.einsum("ij,ijk,j->ik", r2**-1.5, d, masses)


def nbody(pos, vel):
    dt = 0.01
    acc = nbody_accel(pos)
    for _ in range(50):
        pos = pos + dt * vel + (0.5 * dt * dt) * acc
        acc_next = nbody_accel(pos)
        vel = vel + (0.5 * dt) * (acc + acc_next)
        acc = acc_next
    return np.sum(pos**2) + 0.5 * np.sum(masses[:, None] * vel**2)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def lstm_loss(Wx, Wh, b, Wy, by):
    hidden = Wh.shape[0]
    h = np.zeros((lstm_xs.shape[1], hidden))
    c = np.zeros((lstm_xs.shape[1], hidden))
    loss = 0.0
    for t in range(lstm_xs.shape[0]):
        z = lstm_xs[t] @ Wx + h @ Wh + b
        i = sigmoid(z[:, :hidden])
        f = sigmoid(z[:, hidden : 2 * hidden])
        o = sigmoid(z[:, 2 * hidden : 3 * hidden])
        g = np.tanh(z[:, 3 * hidden :])
        c = f * c + i * g
        h = o * np.tanh(c)
        logits = h @ Wy + by
        m = logits - np.max(logits, axis=1, keepdims=True)
        logp = m - np.log(np.sum(np.exp(m), axis=1, keepdims=True))
        loss = loss - np.sum(lstm_ys[t] * logp)
    return loss / (lstm_xs.shape[0] * lstm_xs.shape[1])


def layer_norm(x, gain, bias):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.mean((x - mu) ** 2, axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * gain + bias


def transformer_loss(Wq, Wk, Wv, Wo, W1, b1, W2, b2, g1, c1, g2, c2):
    batch, seq, width = tf_x.shape
    heads = 4
    dh = width // heads
    x = tf_x
    h = layer_norm(x, g1, c1)
    q = np.transpose(np.reshape(h @ Wq, (batch, seq, heads, dh)), (0, 2, 1, 3))
    k = np.transpose(np.reshape(h @ Wk, (batch, seq, heads, dh)), (0, 2, 1, 3))
    v = np.transpose(np.reshape(h @ Wv, (batch, seq, heads, dh)), (0, 2, 1, 3))
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(dh)
    s = s - np.max(s, axis=-1, keepdims=True)
    a = np.exp(s)
    a = a / np.sum(a, axis=-1, keepdims=True)
    o = np.reshape(np.transpose(a @ v, (0, 2, 1, 3)), (batch, seq, width))
    x = x + o @ Wo
    h = layer_norm(x, g2, c2)
    u = h @ W1 + b1
    u = 0.5 * u * (1.0 + np.tanh(0.7978845608028654 * (u + 0.044715 * u**3)))
    x = x + u @ W2 + b2
    return np.mean(x**2)


# The Hessian problems of bench/forward.py (not gradient workloads: run.py never runs them).
hess_x = None  # (32, 6) inputs of hessian_mlp100
hess_y = None  # (32, 3) its targets


def hessian_mlp100(theta):
    # a 6-10-3 tanh MLP (no output bias), its 100 parameters in one flat vector
    W1 = np.reshape(theta[:60], (6, 10))
    b1 = theta[60:70]
    W2 = np.reshape(theta[70:100], (10, 3))
    out = np.tanh(hess_x @ W1 + b1) @ W2
    return np.mean((out - hess_y) ** 2)


def hessian_recurrence50(x):
    # W1's body, 50 steps, on a float
    for _ in range(50):
        x = np.sin(x) * x + 0.5 * np.cos(x) / (1 + x * x)
    return x


def make_hessian_data(name):
    """(the point, the constants) of a Hessian problem; sets the globals it reads."""
    global hess_x, hess_y
    rng = np.random.default_rng(SEED)
    if name == "mlp100":
        theta = 0.5 * rng.standard_normal(100)
        hess_x, hess_y = rng.standard_normal((32, 6)), rng.standard_normal((32, 3))
        return theta, {"X": hess_x, "Y": hess_y}
    return 0.7, {}


HESSIAN_FUNCTIONS = {"mlp100": hessian_mlp100, "recurrence50": hessian_recurrence50}


FUNCTIONS = {
    "scalar_loop": scalar_loop,
    "mlp": mlp_loss,
    "rnn": rnn_loss,
    "elementwise": elementwise,
    "small_ops": small_ops,
    "scalar_loop_n": scalar_loop_n,
    "nbody": nbody,
    "lstm": lstm_loss,
    "transformer": transformer_loss,
    "long_loop": scalar_loop_n,
}
NAMES = list(FUNCTIONS)
DEFAULT = [name for name in NAMES if name != "long_loop"]  # run.py's default set
# The workloads of the first table (W1-W5) and the larger programs (W1n, W6-W9).
LABELS = {
    "scalar_loop": "W1", "mlp": "W2", "rnn": "W3", "elementwise": "W4", "small_ops": "W5",
    "scalar_loop_n": "W1n", "nbody": "W6", "lstm": "W7", "transformer": "W8", "long_loop": "W9",
}
# Workloads whose gradient is checked against central finite differences along
# random directions (no hand-derived reference; see ``check_fd``).
FD_CHECKED = {"nbody", "lstm", "transformer"}
# Positional arguments after the differentiated ones, passed to every system
# but not differentiated (the trip count of W1n and W9).


# Names of the differentiated positional arguments, per workload (tables, docs).
ARG_NAMES = {
    "scalar_loop": ("x",),
    "mlp": ("W1", "b1", "W2", "b2", "W3", "b3"),
    "rnn": ("W_h", "W_x", "b"),
    "elementwise": ("x",),
    "small_ops": ("x",),
    "scalar_loop_n": ("x",),
    "nbody": ("pos", "vel"),
    "lstm": ("Wx", "Wh", "b", "Wy", "by"),
    "transformer": ("Wq", "Wk", "Wv", "Wo", "W1", "b1", "W2", "b2", "g1", "c1", "g2", "c2"),
    "long_loop": ("x",),
}

DESCRIPTIONS = {
    "scalar_loop": "x: Python float; 1000 x (x = sin(x)*x + 0.5*cos(x)/(1+x*x)); d/dx",
    "mlp": "784-256-256-10 tanh MLP, batch 128, log-softmax cross-entropy; grads of 6 params",
    "rnn": "tanh RNN, 50 steps, hidden 128, input 32, batch 16; loss sum(h**2); grads W_h, W_x, b",
    "elementwise": "x: 1e6 float64; sum(sin(x)*exp(-x**2) + log1p(x*x))",
    "small_ops": "x: 10 float64; 200 x (x = tanh(1.01*x + 0.1)); sum(x)",
    "scalar_loop_n": "W1 with n = 1000 passed as an argument: f(x, n); d/dx",
    "nbody": "32 bodies, velocity Verlet, 50 steps, pairwise forces by broadcasting and einsum; "
    "grads of pos, vel",
    "lstm": "character LSTM, hidden 128, vocabulary 64, sequence 50, batch 32, softmax "
    "cross-entropy at every step; grads of 5 params",
    "transformer": "pre-norm transformer block, batch 8, sequence 64, width 128, 4 heads, "
    "GELU MLP of width 512; loss mean(x**2); grads of 12 params",
    "long_loop": "W1 with n = 1,000,000 passed as an argument; time and peak memory",
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
    global x_batch, y_onehot, xs, masses, lstm_xs, lstm_ys, tf_x
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
    if name in ("scalar_loop_n", "long_loop"):
        n = 1000 if name == "scalar_loop_n" else 1_000_000
        return {"args": (0.7,), "consts": {}, "extra": (n,)}
    if name == "nbody":
        masses = 0.5 + rng.random(32)
        pos = rng.standard_normal((32, 3))
        vel = 0.1 * rng.standard_normal((32, 3))
        return {"args": (pos, vel), "consts": {"masses": masses}}
    if name == "lstm":
        vocab, hidden, steps, batch = 64, 128, 50, 32
        lstm_xs = np.eye(vocab)[rng.integers(0, vocab, size=(steps, batch))]
        lstm_ys = np.eye(vocab)[rng.integers(0, vocab, size=(steps, batch))]
        args = (rng.standard_normal((vocab, 4 * hidden)) / np.sqrt(vocab),
                rng.standard_normal((hidden, 4 * hidden)) / np.sqrt(hidden),
                np.zeros(4 * hidden),
                rng.standard_normal((hidden, vocab)) / np.sqrt(hidden),
                np.zeros(vocab))
        return {"args": args, "consts": {"xs": lstm_xs, "ys": lstm_ys}}
    if name == "transformer":
        batch, seq, width, mlp = 8, 64, 128, 512
        tf_x = rng.standard_normal((batch, seq, width))

        def dense(n_in, n_out):
            return rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)

        args = (dense(width, width), dense(width, width), dense(width, width), dense(width, width),
                dense(width, mlp), 0.1 * rng.standard_normal(mlp), dense(mlp, width),
                0.1 * rng.standard_normal(width),
                1.0 + 0.1 * rng.standard_normal(width), 0.1 * rng.standard_normal(width),
                1.0 + 0.1 * rng.standard_normal(width), 0.1 * rng.standard_normal(width))
        return {"args": args, "consts": {"x": tf_x}}
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


def _ref_scalar_loop_n(x, n=None):
    return _ref_scalar_loop(x, 1000 if n is None else n)


_REFERENCES = {
    "scalar_loop": _ref_scalar_loop,
    "mlp": _ref_mlp,
    "rnn": _ref_rnn,
    "elementwise": _ref_elementwise,
    "small_ops": _ref_small_ops,
    "scalar_loop_n": lambda x: _ref_scalar_loop(x, 1000),
    "long_loop": lambda x: _ref_scalar_loop(x, 1_000_000),
}


def reference_grad(name, args):
    """The exact gradient of workload ``name`` at ``args`` (tuple, one per arg)."""
    return _REFERENCES[name](*args)


def call_args(name, data):
    """The positional arguments of workload ``name``'s NumPy function."""
    return tuple(data["args"]) + tuple(data.get("extra", ()))


def check_fd(name, args, got, directions=3, eps=1e-6, rtol=1e-6):
    """Check a gradient ``got`` of an FD-checked workload against central finite
    differences of the NumPy function along random directions."""
    f = FUNCTIONS[name]
    rng = np.random.default_rng(SEED + 2)
    worst = 0.0
    for _ in range(directions):
        vs = [rng.standard_normal(np.shape(a)) for a in args]
        fd = (f(*[a + eps * v for a, v in zip(args, vs)])
              - f(*[a - eps * v for a, v in zip(args, vs)])) / (2 * eps)
        exact = sum(float(np.sum(np.asarray(g, dtype=np.float64) * v)) for g, v in zip(got, vs))
        worst = max(worst, abs(fd - exact) / max(abs(fd), 1e-12))
    if worst > rtol:
        return False, worst, f"gradient vs finite differences: rel err {worst:.2e} > {rtol:.0e}"
    return True, worst, "ok"


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
    if ref is None and name in FD_CHECKED:
        n_args = len(ARG_NAMES[name])
        if got is None or len(got) != n_args or any(g is None for g in got):
            return False, float("inf"), f"expected {n_args} gradients, got {got!r:.80}"
        bad = [i for i, (g, a) in enumerate(zip(got, args)) if np.shape(g) != np.shape(a)]
        if bad:
            return False, float("inf"), f"gradient {bad[0]} has the wrong shape"
        return check_fd(name, args, got)
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
    if name in FD_CHECKED:  # no hand-derived reference: each system is checked by FD
        return True, 0.0, "ok"
    name = "scalar_loop" if name in ("scalar_loop_n", "long_loop") else name
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
        d = make_data(wl)
        print(wl, check_reference_fd(wl, d["args"]), "primal =", FUNCTIONS[wl](*call_args(wl, d)))
