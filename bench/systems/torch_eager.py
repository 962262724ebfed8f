"""PyTorch eager: float64 leaf tensors with ``requires_grad`` and ``.backward()``.

The workloads are restated with ``torch.sin`` etc., op for op as in the NumPy
source (the MLP keeps its explicit max-subtracted log-softmax rather than
``torch.log_softmax`` so every system computes the same thing).  Each
gradient call clears ``.grad`` first, as a training step's ``zero_grad``
would, then runs forward and ``backward``.
"""

from systems import restated

PACKAGE = "torch"


def version():
    import torch

    return torch.__version__


def _functions():
    import torch

    def scalar_loop(x):
        for _ in range(1000):
            x = torch.sin(x) * x + 0.5 * torch.cos(x) / (1 + x * x)
        return x

    def mlp_loss(W1, b1, W2, b2, W3, b3, x, y):
        h1 = torch.tanh(x @ W1 + b1)
        h2 = torch.tanh(h1 @ W2 + b2)
        logits = h2 @ W3 + b3
        z = logits - torch.amax(logits, dim=1, keepdim=True)
        logp = z - torch.log(torch.sum(torch.exp(z), dim=1, keepdim=True))
        return -torch.sum(y * logp) / 128.0

    def rnn_loss(W_h, W_x, b, xs):
        h = torch.zeros((xs.shape[1], W_h.shape[0]), dtype=torch.float64)
        for t in range(xs.shape[0]):
            h = torch.tanh(h @ W_h.T + xs[t] @ W_x.T + b)
        return torch.sum(h**2)

    def elementwise(x):
        return torch.sum(torch.sin(x) * torch.exp(-(x**2)) + torch.log1p(x * x))

    def small_ops(x):
        for _ in range(200):
            x = torch.tanh(x * 1.01 + 0.1)
        return torch.sum(x)

    return {
        "scalar_loop": scalar_loop,
        "mlp": mlp_loss,
        "rnn": rnn_loss,
        "elementwise": elementwise,
        "small_ops": small_ops,
    }


def prepare(name, data):
    import os

    import torch

    if os.environ.get("BENCH_THREADS"):  # run.py --threads N
        torch.set_num_threads(int(os.environ["BENCH_THREADS"]))

    leaves = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in data["args"]]
    if name in restated.NAMES:
        f = restated.build(restated.torch_like(torch))[name]
        consts = [torch.from_numpy(c) for c in data["consts"].values()] + list(data.get("extra", ()))
    else:
        f = _functions()[name]
        consts = [torch.from_numpy(c) for c in data["consts"].values()]

    def grad_fn():
        for p in leaves:
            p.grad = None
        f(*leaves, *consts).backward()
        return tuple(p.grad for p in leaves)

    def make():
        return grad_fn

    return make


def to_numpy(result):
    return tuple(r.detach().numpy() for r in result)
