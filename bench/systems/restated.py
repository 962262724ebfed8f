"""The larger workloads (W1n, W6 N-body, W7 LSTM, W8 transformer, W9 long loop)
restated once for the peers that need their own array module.

``build(ops)`` returns the functions written against ``ops``, a small namespace that
names the few calls whose spelling differs between autograd/JAX (NumPy's) and PyTorch
(``amax(dim=, keepdim=)``, ``permute``).  Every function is the NumPy source of
``workloads.py`` op for op; the data that is not differentiated (masses, the LSTM's
one-hot sequences, the transformer's input) comes as trailing arguments.
"""

from types import SimpleNamespace

NAMES = ("scalar_loop_n", "nbody", "lstm", "transformer", "long_loop")


def numpy_like(xp):
    """The namespace for autograd.numpy or jax.numpy."""
    return SimpleNamespace(
        XP=xp,
        ZEROS=xp.zeros,
        MAXK=lambda x, axis: xp.max(x, axis=axis, keepdims=True),
        SUMK=lambda x, axis: xp.sum(x, axis=axis, keepdims=True),
        MEANK=lambda x, axis: xp.mean(x, axis=axis, keepdims=True),
        PERMUTE=xp.transpose,
        RESHAPE=xp.reshape,
        SWAP=xp.swapaxes,
    )


def torch_like(torch):
    """The namespace for PyTorch (float64 tensors)."""
    return SimpleNamespace(
        XP=torch,
        ZEROS=lambda shape: torch.zeros(shape, dtype=torch.float64),
        MAXK=lambda x, axis: torch.amax(x, dim=axis, keepdim=True),
        SUMK=lambda x, axis: torch.sum(x, dim=axis, keepdim=True),
        MEANK=lambda x, axis: torch.mean(x, dim=axis, keepdim=True),
        PERMUTE=torch.permute,
        RESHAPE=torch.reshape,
        SWAP=torch.swapaxes,
    )


def build(ops):
    """The larger workloads written against ``ops`` (see ``numpy_like``/``torch_like``)."""
    XP, ZEROS, MAXK, SUMK, MEANK = ops.XP, ops.ZEROS, ops.MAXK, ops.SUMK, ops.MEANK
    PERMUTE, RESHAPE, SWAP = ops.PERMUTE, ops.RESHAPE, ops.SWAP

    def scalar_loop_n(x, n):
        for _ in range(n):
            x = XP.sin(x) * x + 0.5 * XP.cos(x) / (1 + x * x)
        return x

    def nbody_accel(pos, masses):
        d = pos[None, :, :] - pos[:, None, :]
        r2 = XP.einsum("ijk,ijk->ij", d, d) + 0.01
        return XP.einsum("ij,ijk,j->ik", r2**-1.5, d, masses)

    def nbody(pos, vel, masses):
        dt = 0.01
        acc = nbody_accel(pos, masses)
        for _ in range(50):
            pos = pos + dt * vel + (0.5 * dt * dt) * acc
            acc_next = nbody_accel(pos, masses)
            vel = vel + (0.5 * dt) * (acc + acc_next)
            acc = acc_next
        return XP.sum(pos**2) + 0.5 * XP.sum(masses[:, None] * vel**2)

    def sigmoid(z):
        return 1.0 / (1.0 + XP.exp(-z))

    def lstm_loss(Wx, Wh, b, Wy, by, xs, ys):
        hidden = Wh.shape[0]
        h = ZEROS((xs.shape[1], hidden))
        c = ZEROS((xs.shape[1], hidden))
        loss = 0.0
        for t in range(xs.shape[0]):
            z = xs[t] @ Wx + h @ Wh + b
            i = sigmoid(z[:, :hidden])
            f = sigmoid(z[:, hidden : 2 * hidden])
            o = sigmoid(z[:, 2 * hidden : 3 * hidden])
            g = XP.tanh(z[:, 3 * hidden :])
            c = f * c + i * g
            h = o * XP.tanh(c)
            logits = h @ Wy + by
            m = logits - MAXK(logits, 1)
            logp = m - XP.log(SUMK(XP.exp(m), 1))
            loss = loss - XP.sum(ys[t] * logp)
        return loss / (xs.shape[0] * xs.shape[1])

    def layer_norm(x, gain, bias):
        mu = MEANK(x, -1)
        var = MEANK((x - mu) ** 2, -1)
        return (x - mu) / XP.sqrt(var + 1e-5) * gain + bias

    def transformer_loss(Wq, Wk, Wv, Wo, W1, b1, W2, b2, g1, c1, g2, c2, x):
        batch, seq, width = x.shape
        heads = 4
        dh = width // heads
        h = layer_norm(x, g1, c1)
        q = PERMUTE(RESHAPE(h @ Wq, (batch, seq, heads, dh)), (0, 2, 1, 3))
        k = PERMUTE(RESHAPE(h @ Wk, (batch, seq, heads, dh)), (0, 2, 1, 3))
        v = PERMUTE(RESHAPE(h @ Wv, (batch, seq, heads, dh)), (0, 2, 1, 3))
        s = q @ SWAP(k, -1, -2) / dh**0.5
        s = s - MAXK(s, -1)
        a = XP.exp(s)
        a = a / SUMK(a, -1)
        o = RESHAPE(PERMUTE(a @ v, (0, 2, 1, 3)), (batch, seq, width))
        x = x + o @ Wo
        h = layer_norm(x, g2, c2)
        u = h @ W1 + b1
        u = 0.5 * u * (1.0 + XP.tanh(0.7978845608028654 * (u + 0.044715 * u**3)))
        x = x + u @ W2 + b2
        return XP.mean(x**2)

    return {
        "scalar_loop_n": scalar_loop_n,
        "nbody": nbody,
        "lstm": lstm_loss,
        "transformer": transformer_loss,
        "long_loop": scalar_loop_n,
    }


def const_args(name, data):
    """The non-differentiated trailing arguments of the restated workload ``name``."""
    return tuple(data["consts"].values()) + tuple(data.get("extra", ()))
