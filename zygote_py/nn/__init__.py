"""zygote_py.nn: layers, losses, optimisers and a training loop, in the style of Flux.

Layers are plain Python objects holding NumPy arrays; zygote_py differentiates
their `__call__` like any user code.  Batch first: x is (in,) or (batch, in).

    import zygote_py as zp
    from zygote_py import nn

    model = nn.Chain(nn.Dense(64, 32, nn.relu, rng=0), nn.Dense(32, 10, rng=1))
    loss = lambda m, x, y: nn.logitcrossentropy(m(x), y)
    opt = nn.Adam(1e-3)
    nn.train(loss, model, nn.DataLoader((X, Y), 32), opt, epochs=5)

See docs/nn.md.
"""

from .activations import (elu, gelu, identity, leaky_relu, logsigmoid, logsoftmax, relu,
                          sigmoid, softmax, softplus, tanh)
from .data import DataLoader, onecold, onehot
from .init import (glorot_normal, glorot_uniform, kaiming_normal, kaiming_uniform, normal, ones,
                   orthogonal, uniform, zeros)
from .io import load, load_state_dict, save, state_dict
from .layers import Chain, Dense, Dropout, Embedding, LayerNorm, testmode, trainmode
from .losses import (binarycrossentropy, crossentropy, huber, logitbinarycrossentropy,
                     logitcrossentropy, mae, mse)
from .optimisers import Adam, AdamW, Descent, Momentum, Nesterov, Optimiser, RMSProp
from .recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, Recur, Recurrence, RNNCell
from .training import EarlyStopping, train
from .tree import leaf_gradients, named_arrays

__all__ = [
    "GRU", "LSTM", "RNN", "Adam", "AdamW", "Chain", "DataLoader", "Dense", "Descent", "Dropout",
    "EarlyStopping", "Embedding", "GRUCell", "LSTMCell", "LayerNorm", "Momentum", "Nesterov",
    "Optimiser", "RMSProp", "RNNCell", "Recur", "Recurrence", "binarycrossentropy", "crossentropy", "elu",
    "gelu", "glorot_normal", "glorot_uniform", "huber", "identity", "kaiming_normal",
    "kaiming_uniform", "leaf_gradients", "leaky_relu", "load", "load_state_dict",
    "logitbinarycrossentropy", "logitcrossentropy", "logsigmoid", "logsoftmax", "mae", "mse",
    "named_arrays", "normal", "onecold", "onehot", "ones", "orthogonal", "relu", "save",
    "sigmoid", "softmax", "softplus", "state_dict", "tanh", "testmode", "train", "trainmode",
    "uniform", "zeros",
]
