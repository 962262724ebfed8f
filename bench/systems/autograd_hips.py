"""HIPS autograd: tracing reverse mode over ``autograd.numpy``.

The workloads are restated with ``autograd.numpy as anp`` (autograd's idiom:
the same NumPy code, a different import).  Parameters are packed in a tuple
and differentiated with ``autograd.grad`` w.r.t. argument 0, as autograd's
own examples do; the data are further, non-differentiated arguments.
"""

from systems import restated

PACKAGE = "autograd"


def version():
    from importlib.metadata import version as dist_version

    return dist_version("autograd")


def _functions():
    import autograd.numpy as anp

    def scalar_loop(x):
        for _ in range(1000):
            x = anp.sin(x) * x + 0.5 * anp.cos(x) / (1 + x * x)
        return x

    def mlp_loss(params, x, y):
        W1, b1, W2, b2, W3, b3 = params
        h1 = anp.tanh(x @ W1 + b1)
        h2 = anp.tanh(h1 @ W2 + b2)
        logits = h2 @ W3 + b3
        z = logits - anp.max(logits, axis=1, keepdims=True)
        logp = z - anp.log(anp.sum(anp.exp(z), axis=1, keepdims=True))
        return -anp.sum(y * logp) / 128.0

    def rnn_loss(params, xs):
        W_h, W_x, b = params
        h = anp.zeros((xs.shape[1], W_h.shape[0]))
        for t in range(xs.shape[0]):
            h = anp.tanh(h @ W_h.T + xs[t] @ W_x.T + b)
        return anp.sum(h**2)

    def elementwise(x):
        return anp.sum(anp.sin(x) * anp.exp(-(x**2)) + anp.log1p(x * x))

    def small_ops(x):
        for _ in range(200):
            x = anp.tanh(x * 1.01 + 0.1)
        return anp.sum(x)

    return {
        "scalar_loop": scalar_loop,
        "mlp": mlp_loss,
        "rnn": rnn_loss,
        "elementwise": elementwise,
        "small_ops": small_ops,
    }


def prepare(name, data):
    import autograd.numpy as anp
    from autograd import grad

    if name in restated.NAMES:  # the larger workloads: parameters packed in a tuple
        fn = restated.build(restated.numpy_like(anp))[name]
        rest = restated.const_args(name, data)
        g = grad(lambda params, *more: fn(*params, *more))
        return lambda: (lambda: g(tuple(data["args"]), *rest))
    f = _functions()[name]
    args, consts = data["args"], data["consts"]
    if name == "mlp":
        call_args = (tuple(args), consts["x"], consts["y"])
    elif name == "rnn":
        call_args = (tuple(args), consts["xs"])
    else:
        call_args = args

    def make():
        g = grad(f)
        return lambda: g(*call_args)

    return make


def to_numpy(result):
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)
