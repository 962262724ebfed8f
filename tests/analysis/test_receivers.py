"""Receiver facts (analysis/receivers.py): which values are certainly arrays or
numbers, so that `x.sum()` and `x.T` may use the ndarray rules; other receivers
are resolved from their type while running."""

import numpy as np
import pytest

import zygote_py as zp
from zygote_py.analysis.receivers import array_values, assumed_array_params, receiver_facts
from zygote_py.compiler import COMPILER
from zygote_py.kinds import ATTRS, COMPLEX, HOLDS_COMPLEX, ITEMS, scalar_kinds
from zygote_py.rules import indexing, linalg, shapes
from zygote_py.runtime import helpers


class Box:
    def __init__(self, w):
        self.w = w

    def sum(self):
        return np.sum(self.w) * 5.0


def reads(x, obj):
    a = x.T
    b = obj.w
    c = np.tanh(x) + 1.0
    d = c[0]
    for i in range(3):
        a = a * 2.0
    return a, b, c, d


def test_kinds_say_scalar_array_or_other_object():
    args = (1.0, 2, np.float64(3.0), np.ones(2), np.int64(4), 1j, Box(1.0), [1.0], "s",
            (np.ones(2), 3.0), [Box(1.0)], [[1.0]], Box("text"), Shadowed(),
            np.ones(2, complex), [1j], Box(2j), (np.ones(2, complex), 1.0))
    # complexity first: a list or an object holding complex values is HOLDS_COMPLEX
    assert scalar_kinds(args) == (True, True, True, False, False, COMPLEX, (ATTRS, "w"), ITEMS,
                                  None, ITEMS, None, None, None, (ATTRS, "b"),
                                  COMPLEX, HOLDS_COMPLEX, HOLDS_COMPLEX, HOLDS_COMPLEX)


class Shadowed:
    """Its instance attribute `w` is shadowed by a property of the class: not an array read."""

    def __init__(self):
        self.__dict__["w"] = np.ones(2)
        self.b = 2.0

    @property
    def w(self):
        return "not the array"


def test_array_values_follow_parameters_numpy_calls_indexing_and_loops():
    ir = COMPILER.fresh_ir(reads)
    known = array_values(ir, (False, None))
    x, obj = ir.params
    assert x.id in known and obj.id not in known
    loop = next(op for op in ir.body.ops if op.opcode == "for")
    assert loop.results[0].id in known  # a = a * 2.0 keeps an array an array
    getattrs = {op.attrs["name"]: op.result for op in ir.body.ops if op.opcode == "getattr"}
    assert getattrs["T"].id in known and getattrs["w"].id not in known
    items = [op.result for op in ir.body.ops
             if op.opcode == "call" and op.attrs["fn"].__name__ == "getitem"]
    assert items and all(v.id in known for v in items)


def test_without_kinds_parameters_are_taken_to_be_arrays():
    ir = COMPILER.fresh_ir(reads)
    known = array_values(ir)
    assert all(p.id in known for p in ir.params)


def sum_method(v):
    return v.sum() * 2.0


@pytest.mark.parametrize("arg,dynamic",
                         [(np.array([1.0, 2.0]), False), (Box(np.array([1.0, 2.0])), True)],
                         ids=["array", "object"])
def test_rule_spliced_for_arrays_dispatched_for_objects(arg, dynamic):
    source = zp.grad_source(sum_method, args=(arg,))
    assert ("_zp_call_method" in source) is dynamic
    (got,) = zp.gradient(sum_method, arg)
    if dynamic:
        np.testing.assert_allclose(got["w"], [10.0, 10.0])
    else:
        np.testing.assert_allclose(got, [2.0, 2.0])


def star_params(x, *rest, **options):
    return x.sum() + rest[0].sum() + options["k"].sum()


def test_star_and_double_star_parameters_are_never_taken_to_be_arrays():
    ir = COMPILER.fresh_ir(star_params)
    x, rest, options = ir.params
    for kinds in ((), (False, False, False)):
        known = array_values(ir, kinds)
        assert x.id in known and rest.id not in known and options.id not in known
    items = [op.result for op in ir.walk() if op.opcode == "call" and op.operands
             and op.operands[0].id in (rest.id, options.id)]
    assert items and not any(v.id in array_values(ir) for v in items)


def star_item_sum(x, *rest):
    return np.sum(x * x) + rest[0].sum()


def test_an_object_among_star_args_gets_its_own_method():
    x, box = np.array([1.0, 2.0]), Box(np.array([3.0, -1.0]))
    source = zp.grad_source(star_item_sum, args=(x, np.ones(2), box))
    assert "_zp_call_method" in source  # rest[0].sum() resolved while running

    def caller(x, box):
        return star_item_sum(x, box, np.ones(2))

    x_bar, box_bar = zp.gradient(caller, x, box)
    np.testing.assert_allclose(x_bar, 2 * x, rtol=1e-12)
    np.testing.assert_allclose(box_bar["w"], [5.0, 5.0], rtol=1e-12)  # Box.sum: 5 * sum(w)


def _helper_mean(p):
    return p.mean()


def receivers_and_helpers(x, p, q, r):
    a = np.sum(x * q)          # x and q reach an operator: their own methods may decide
    b = p.T                    # p's attribute: the ndarray rule if p is an array
    c = _helper_mean(r * 2.0)  # r reaches a Python function through a product
    return a + np.sum(b) + c


def test_assumed_array_params_are_those_a_decision_depends_on():
    ir = COMPILER.fresh_ir(receivers_and_helpers)
    assert assumed_array_params(ir) == [0, 1, 2, 3]


def test_only_parameters_something_depends_on_are_assumed():
    ir = COMPILER.fresh_ir(star_item_sum)
    assert assumed_array_params(ir) == [0]  # x * x; rest is a tuple, never taken to be an array
    ir = COMPILER.fresh_ir(_helper_mean)
    assert assumed_array_params(ir) == [0]


# -- operators and NumPy functions: spliced where every operand is plain ----------


def ordinary_numpy(W1, b1, W2, x, y, scale):
    n = x.shape[0]
    h = np.tanh(x @ W1 + b1) * scale
    z = np.zeros((n, W2.shape[1])) + h @ W2
    logits = z - np.max(z, axis=1, keepdims=True)
    p = np.exp(logits) / np.sum(np.exp(logits), axis=1, keepdims=True)
    return -np.sum(y * np.log(p)) / n + 0.5 * np.sum(W1**2)


def _ordinary_args():
    rng = np.random.default_rng(0)
    return (rng.normal(size=(4, 5)), rng.normal(size=5), rng.normal(size=(5, 3)),
            rng.normal(size=(6, 4)), np.eye(3)[[0, 1, 2, 0, 1, 2]], 0.5)


def test_ordinary_numpy_code_never_dispatches_arithmetic():
    source = zp.grad_source(ordinary_numpy, args=_ordinary_args())
    assert "_zp_call(" not in source and "_zp_call_method(" not in source


def test_shapes_and_constants_are_plain_but_not_arrays():
    ir = COMPILER.fresh_ir(ordinary_numpy)
    arrays, plain = receiver_facts(ir, (False,) * 5 + (True,))
    shapes = [op.result for op in ir.walk() if op.opcode == "getattr"]
    assert shapes and all(v.id in plain and v.id not in arrays for v in shapes)
    tuples = [op.result for op in ir.walk() if op.opcode == "tuple"]
    assert tuples and all(v.id in plain for v in tuples)
    zeros = next(op for op in ir.walk() if op.opcode == "call" and op.attrs["fn"] is np.zeros)
    assert zeros.result.id in arrays  # np.zeros of a plain shape is an array


def sum_of(v, x):
    return np.sum(v) * x + np.sum(x * v)


def test_a_numpy_function_of_an_object_is_not_taken_to_be_an_array():
    ir = COMPILER.fresh_ir(sum_of)
    arrays, plain = receiver_facts(ir, (None, False))
    calls = [op for op in ir.walk() if op.opcode == "call"]
    unknown = [op for op in calls if op.result.id not in plain]
    # np.sum(v), its product with x, x * v and the sum of that: all depend on v's type
    assert len(unknown) == len(calls)
    arrays, plain = receiver_facts(ir, (False, False))
    assert all(op.result.id in arrays for op in calls)


def test_operands_of_operators_are_assumed_arrays_where_nothing_else_decides():
    ir = COMPILER.fresh_ir(sum_of)
    assert assumed_array_params(ir) == [0, 1]


def layers_in_a_list(params, x):
    W1, b1, W2 = params
    h = np.tanh(x @ W1 + b1)
    return np.sum(_dense(h, W2) * params[2][0])


def _dense(h, W):
    return h @ W


def test_a_list_of_arrays_is_specialised_on_and_never_dispatched():
    rng = np.random.default_rng(1)
    params = [rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(4, 2))]
    x = rng.normal(size=(5, 3))
    source = zp.grad_source(layers_in_a_list, args=(params, x))
    assert "_zp_call(" not in source and "_zp_call_method(" not in source
    (g_params, _) = zp.gradient(layers_in_a_list, params, x)
    h = 1e-6
    for k, p in enumerate(params):
        for i in np.ndindex(p.shape):
            up = [q.copy() for q in params]
            down = [q.copy() for q in params]
            up[k][i] += h
            down[k][i] -= h
            fd = (layers_in_a_list(up, x) - layers_in_a_list(down, x)) / (2 * h)
            assert g_params[k][i] == pytest.approx(fd, rel=1e-6, abs=1e-8)
    # a list holding an object is not specialised on: its operators are decided while running
    assert "_zp_call(" in zp.grad_source(layers_in_a_list, args=([Box(1.0), *params[1:]], x))


class Layer:
    def __init__(self, W):
        self.W = W
        self.scale = 2.0

    def __call__(self, x):
        return np.tanh(x @ self.W) * self.scale


def through_layer(layer, x):
    return np.sum(layer.W * layer.scale) + np.sum(x @ layer.W)


def test_array_attributes_of_an_object_argument_are_known():
    layer, x = Layer(np.arange(6.0).reshape(2, 3) / 10), np.array([0.5, -1.0])
    source = zp.grad_source(through_layer, args=(layer, x))
    assert "_zp_call(" not in source  # layer.W and layer.scale: arrays and numbers
    g_layer, g_x = zp.gradient(through_layer, layer, x)
    np.testing.assert_allclose(g_layer["W"], 2.0 + x[:, None] * np.ones(3), rtol=1e-12)
    assert g_layer["scale"] == pytest.approx(np.sum(layer.W))
    np.testing.assert_allclose(g_x, layer.W.sum(axis=1), rtol=1e-12)
    # the same code with an object in W: compiled apart, W's operators decided by W
    odd = Layer(Box(1.0))
    assert "_zp_call(" in zp.grad_source(through_layer, args=(odd, x))


def gradient_helper_calls(g, x, w, idx_source):
    one = helpers.check_scalar(g, None)
    n = helpers.reduced_size(x)
    b = helpers.unbroadcast(g, x)
    e = helpers.expand_reduced(g, x)
    s = helpers.accum(b, e)
    like = shapes.like_input(s, x)
    ga = linalg.matmul_cotangent_a(g, x, w)
    gi = indexing._index_cotangent(g, x, 0)
    unknown = helpers.unbroadcast(g, idx_source)  # idx_source: an object
    return one, n, b, e, s, like, ga, gi, unknown


def test_gradient_code_helpers_give_arrays_when_their_operands_are():
    # forward mode over gradient code (zp.hessian) splices the rules on these results
    fn = COMPILER.lowered_ir(gradient_helper_calls)
    known = array_values(fn, scalar_kinds((np.ones(2), np.ones(2), np.ones((2, 2)), object())))
    returned = fn.body.ops[-1].operands[0].defining_op.operands
    assert [v.id in known for v in returned] == [True] * 8 + [False]

def _heads(x, w):
    batch, width = x.shape  # unpacked, the sizes stay plain: reshape keeps its rule
    y = np.reshape(x @ w, (batch, 2, width // 2))
    return np.sum(np.transpose(y, (1, 0, 2)) ** 2)


def test_sizes_unpacked_from_a_shape_are_plain_and_the_rules_spliced():
    from corpus.finite_diff import numerical_gradient

    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((3, 4)), rng.standard_normal((4, 4))
    source = zp.grad_source(_heads, args=(x, w))
    assert "_zp_call" not in source
    got = zp.gradient(_heads, x, w)
    for g, n in zip(got, numerical_gradient(_heads, (x, w))):
        np.testing.assert_allclose(g, n, rtol=1e-6, atol=1e-8)


def test_numpy_callables_that_make_other_objects_are_not_array_results():
    # NumPy 1.26's np.random.default_rng was taken to return an array, so
    # `rng.shuffle(y)` was an ndarray method call, pure, and dropped from the adjoint
    # (a silently wrong gradient there; refused now, as on NumPy 2)
    from zygote_py.analysis.receivers import _numpy_array_function

    for fn in (np.random.default_rng, np.errstate, np.vectorize, np.finfo, np.dtype,
               np.random.Generator, np.result_type, np.printoptions):
        assert not _numpy_array_function(fn), fn
    for fn in (np.sum, np.float64, np.asarray, np.exp, np.linalg.inv):
        assert _numpy_array_function(fn), fn
