"""User classes: methods of a module-level instance, instances passed as
arguments (their gradient is a dict attribute name -> gradient), methods
calling methods, __call__, staticmethod, property, a list of layers."""

import numpy as np

from . import Case, rand, rfloat


class Affine:
    """y = w * x + b on floats."""

    def __init__(self, w, b):
        self.w = w
        self.b = b

    def apply(self, x):
        return self.w * x + self.b

    def twice(self, x):
        return self.apply(self.apply(x))

    @staticmethod
    def square(v):
        return v * v

    @property
    def w_squared(self):
        return self.w**2


class Dense:
    """A dense layer with a tanh; an int attribute that is never differentiated."""

    def __init__(self, W, b, name="dense"):
        self.W = W
        self.b = b
        self.n_out = W.shape[0]
        self.name = name

    def forward(self, x):
        return np.tanh(self.W @ x + self.b)

    def __call__(self, x):
        return self.forward(x) * 2.0


def relu(v):
    return np.maximum(v, 0.0)


class ActivatedLayer:
    """A layer holding its activation function as an instance attribute (review A3(b))."""

    def __init__(self, W):
        self.W = W
        self.activation = relu

    def __call__(self, x):
        return self.activation(x @ self.W)


class ArrayNames:
    """Methods and properties named like ndarray's, meaning something else: the
    user's own, never the ndarray rules (decided by the object, not the name)."""

    def __init__(self, w):
        self.w = w

    def mean(self, x):  # not an average
        return np.sum(self.w * x * x)

    def sum(self, x):
        return np.sum(x) * 3.0 + np.sum(self.w)

    @property
    def T(self):
        return self.w * 2.0

    def reshape(self, x):
        return x * self.w

    def dot(self, x):
        return np.sum(x**3 * self.w)

    @property
    def shape(self):  # ndarray's shape carries no derivative; this one does
        return self.w * self.w

    def argmax(self, x):
        return np.sum(np.sin(x) * self.w)


_AFFINE = Affine(1.7, -0.4)
_DENSE = Dense(rand(3, 4, seed=100), rand(3, seed=101))
_ARRAY_NAMES = ArrayNames(rand(3, seed=102))


def method_of_module_instance(x):
    return _AFFINE.apply(x) ** 2


def method_calls_method(x):
    return _AFFINE.twice(x) * x


def instance_argument(layer, x):
    return layer.apply(x) ** 2 + layer.b


def attribute_reads(layer):
    return layer.w * layer.b + layer.w


def staticmethod_call(x):
    return Affine.square(x) + _AFFINE.square(x + 1.0)


def property_read(layer, x):
    return layer.w_squared * x


def array_layer_argument(layer, x):
    return np.sum(layer.forward(x) ** 2) + layer.n_out * np.sum(layer.b)


def callable_instance(layer, x):
    return np.sum(layer(x))


def module_level_array_layer(x):
    return np.sum(_DENSE(x) ** 2)


def held_activation(layer, x):
    return np.sum(layer(x) ** 2)


def array_named_methods(obj, x):
    return (obj.mean(x) + obj.sum(x) + np.sum(obj.T * x) + np.sum(obj.reshape(x)) + obj.dot(x)
            + np.sum(obj.shape) + obj.argmax(x))


def _array_named_helper(obj, x):
    return obj.mean(x) * obj.dot(x) + np.sum(obj.T)


def array_named_methods_in_helper(obj, x):
    return _array_named_helper(obj, x * 2.0) + x.sum() + np.sum(x.T)


def array_named_methods_of_module_instance(x):
    return _ARRAY_NAMES.mean(x) + np.sum(_ARRAY_NAMES.T * x.reshape(3))


def transposed_attribute(layer, x):
    return np.sum((layer.W.T @ x) ** 2) + np.sum(layer.b.real)


def list_of_layers(layers, x):
    h = x
    for layer in layers:
        h = layer.forward(h)
    return np.sum(h)


CASES = [
    Case(method_of_module_instance, (rfloat(1),)),
    Case(method_calls_method, (rfloat(2),)),
    Case(instance_argument, (Affine(rfloat(3), rfloat(4)), rfloat(5))),
    Case(attribute_reads, (Affine(rfloat(6), rfloat(7)),)),
    Case(staticmethod_call, (rfloat(8),)),
    Case(property_read, (Affine(rfloat(9), 0.5), rfloat(10))),
    Case(array_layer_argument, (Dense(rand(2, 3, seed=11), rand(2, seed=12)), rand(3, seed=13))),
    Case(callable_instance, (Dense(rand(2, 3, seed=14), rand(2, seed=15)), rand(3, seed=16))),
    Case(module_level_array_layer, (rand(4, seed=17),)),
    Case(held_activation, (ActivatedLayer(rand(2, 3, seed=23)), rand(2, seed=24))),
    Case(array_named_methods, (ArrayNames(rand(3, seed=25)), rand(3, seed=26))),
    Case(transposed_attribute, (Dense(rand(3, 2, seed=30), rand(3, seed=31)), rand(3, seed=32))),
    Case(array_named_methods_in_helper, (ArrayNames(rand(3, seed=27)), rand(3, seed=28))),
    Case(array_named_methods_of_module_instance, (rand(3, 1, seed=29),)),
    Case(
        list_of_layers,
        (
            [
                Dense(rand(3, 2, seed=18), rand(3, seed=19)),
                Dense(rand(2, 3, seed=20), rand(2, seed=21)),
            ],
            rand(2, seed=22),
        ),
    ),
]
