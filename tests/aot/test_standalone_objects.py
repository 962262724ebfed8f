"""Standalone modules (zygote-py grad) build objects, write attributes and update lists
and dicts from outside the call as zygote_py does: each module is written by the builder
at example arguments, imported, and its gradient compared with zp.gradient's and with
central differences (every float leaf of every argument, on fresh copies); the caller's
objects after the module's call hold what a plain call leaves.  The modules then run in
an interpreter where zygote_py cannot be imported.  What is still refused is refused at
the user's line."""

from __future__ import annotations

import copy
import json
import pickle
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import zygote_py as zp
from tests.aot import object_cases as cases
from zygote_py import nn
from zygote_py.aot.builder import NotStandalone
from zygote_py.aot.module import standalone_module

X = np.array([0.3, -0.5, 0.8])
XS = np.array([[0.3, -0.5], [0.1, 0.7], [-0.4, 0.2]])


def _recur():
    m = nn.Recur(nn.RNNCell(2, 3, rng=0))
    m.state = m.init + np.array([0.1, -0.2, 0.3])  # not the init array itself
    return m


# name -> a function making fresh arguments
EXAMPLES = {
    "box_loss": lambda: (X.copy(),),
    "pair_loss": lambda: (X.copy(), 0.7),
    "counter_loss": lambda: (X.copy(), 0.7),
    "stateful_loss": lambda: (cases.Model(np.array([[0.5, -0.2], [0.3, 0.8]]), np.array([0.1, -0.3])),
                              XS.copy()),
    "recur_loss": lambda: (_recur(), XS.copy()),
    "recur_reset_loss": lambda: (_recur(), XS.copy()),
    "list_updates": lambda: ([X + 1.0, X - 2.0], X.copy()),
    "dict_updates": lambda: ({"a": X + 1.0, "z": X * 0.5}, X.copy()),
    "grid_loss": lambda: (X.copy(),),
    "scale_write": lambda: (cases.Scale(), 0.7),
}
RUN_WITHOUT_ZYGOTE_PY = ["box_loss", "pair_loss", "counter_loss", "stateful_loss", "list_updates",
                         "dict_updates", "grid_loss"]


def _load(text: str, name: str):
    module = types.ModuleType(name)  # (not compiled under this file's __future__ imports)
    exec(compile(text, f"<{name}>", "exec", dont_inherit=True), module.__dict__)
    return module


@pytest.fixture(scope="module")
def modules():
    return {name: standalone_module(getattr(cases, name), args=make()) for name, make in EXAMPLES.items()}


# -- the leaves finite differences perturb, and where their gradients are -------------------
def _leaves(x, path=()):
    """Paths to the float leaves of x: ('i', key) steps into lists, tuples and dicts,
    ('a', name) into an object's attributes."""
    if isinstance(x, np.ndarray):
        if x.dtype.kind == "f":
            yield path
    elif type(x) is float:
        yield path
    elif isinstance(x, (list, tuple)):
        for i, v in enumerate(x):
            yield from _leaves(v, (*path, ("i", i)))
    elif isinstance(x, dict):
        for k, v in x.items():
            yield from _leaves(v, (*path, ("i", k)))
    elif hasattr(x, "__dict__") and not isinstance(x, (type, types.FunctionType, types.ModuleType)):
        for k, v in vars(x).items():
            yield from _leaves(v, (*path, ("a", k)))


def _get(x, path):
    for kind, key in path:
        x = getattr(x, key) if kind == "a" else x[key]
    return x


def _set(x, path, value):
    parent, (kind, key) = _get(x, path[:-1]), path[-1]
    if kind == "a":
        setattr(parent, key, value)
    else:
        parent[key] = value


def _gradient_at(g, path):
    """The gradient of the leaf at path: an object's gradient is a dict by attribute."""
    for _, key in path:
        if g is None:
            return None
        g = g.get(key) if isinstance(g, dict) else g[key]
    return g


def _central_differences(fn, make, path, h=1e-6):
    shape = np.shape(_get(make(), path))
    out = np.zeros(shape)
    for idx in np.ndindex(*shape) if shape else [()]:
        values = []
        for step in (h, -h):
            args = list(make())
            leaf = _get(args, path)
            if isinstance(leaf, np.ndarray):
                leaf[idx] += step
            else:
                _set(args, path, leaf + step)
            values.append(fn(*args))
        out[idx] = (values[0] - values[1]) / (2 * h)
    return out


def _assert_same_gradient(got, want, path="grad"):
    if isinstance(want, dict) or isinstance(got, dict):
        assert isinstance(got, dict) and isinstance(want, dict) and got.keys() == want.keys(), path
        for key in want:
            _assert_same_gradient(got[key], want[key], f"{path}[{key!r}]")
    elif isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            _assert_same_gradient(g, w, f"{path}[{i}]")
    elif want is None or got is None:
        assert got is None and want is None, f"{path}: {got!r} vs {want!r}"
    else:
        assert type(got) is type(want), path
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=path)


def _assert_same_state(after, plain):
    """The caller's arguments after the module's call hold what a plain call leaves."""
    for path in _leaves(plain):
        np.testing.assert_allclose(_get(after, path), _get(plain, path), rtol=1e-12, atol=0)
    assert sorted(map(str, _leaves(after))) == sorted(map(str, _leaves(plain)))


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_the_module_gives_zygote_pys_gradient_and_central_differences(modules, name):
    fn, make = getattr(cases, name), EXAMPLES[name]
    module = _load(modules[name], name)
    args = make()
    y, grads = getattr(module, f"value_and_grad_{name}")(*args)
    plain = make()
    assert y == pytest.approx(fn(*plain), rel=1e-12)
    _assert_same_state(args, plain)
    _assert_same_gradient(grads, zp.gradient(fn, *make()))
    paths = list(_leaves(make()))
    assert paths
    for path in paths:
        expected = _central_differences(fn, make, path)
        got = _gradient_at(grads, path)
        got = np.zeros_like(expected) if got is None else got
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7, err_msg=f"{name} {path}")


def test_recur_gradients_reach_the_parameters_the_state_and_the_init(modules):
    m, xs = EXAMPLES["recur_loss"]()
    (m_bar, _) = _load(modules["recur_loss"], "recur_loss").grad_recur_loss(m, xs)
    assert m_bar["state"] is not None and m_bar["init"] is None  # the state it started from
    assert all(m_bar["cell"][k] is not None for k in ("Wi", "Wh", "b"))
    m, xs = EXAMPLES["recur_reset_loss"]()
    (m_bar, _) = _load(modules["recur_reset_loss"], "recur_reset_loss").grad_recur_reset_loss(m, xs)
    assert m_bar["state"] is None and m_bar["init"] is not None  # reset: from m.init


def test_a_pullback_module_runs_its_back_with_a_ledger_of_its_own():
    make = EXAMPLES["stateful_loss"]
    module = _load(standalone_module(cases.stateful_loss, args=make(), mode="pullback"), "pb")
    y, back = module.pullback_stateful_loss(*make())
    y_zp, back_zp = zp.pullback(cases.stateful_loss, *make())
    assert y == pytest.approx(y_zp, rel=1e-12)
    for dy in (2.0, 1.0):  # as often as it is called, each time the same
        _assert_same_gradient(back(dy), back_zp(dy))
    model, xs = make()
    y, back = module.pullback_stateful_loss(model, xs)
    model.state = np.zeros(2)  # changed before its back ran: refused, as in process
    with pytest.raises(Exception, match="Model.state was changed after the forward pass"):
        back(1.0)


def test_a_write_into_a_class_is_refused_at_the_users_line(modules):
    module = _load(modules["scale_write"], "scale_write")
    with pytest.raises(zp.MutationError, match="writes into a type"):
        zp.gradient(cases.scale_write, cases.Scale, 0.7)
    with pytest.raises(Exception, match=r"object_cases\.py:\d+:\d+: assigning to \.factor writes "
                                        r"into a type \(Scale\)") as info:
        module.grad_scale_write(cases.Scale, 0.7)
    assert type(info.value).__name__ == "_zp_MutationError"
    assert cases.Scale.factor == 2.0


def test_without_example_arguments_a_class_built_in_the_call_is_refused_at_its_line():
    with pytest.raises(NotStandalone, match=r"object_cases\.py:\d+:\d+: a call whose callee") as info:
        standalone_module(cases.box_loss)
    assert "b = Box(np.sin(x))" in str(info.value) and "--args" in str(info.value)


def test_the_text_is_deterministic(modules):
    assert standalone_module(cases.counter_loss, args=EXAMPLES["counter_loss"]()) == modules["counter_loss"]


_RUN = """
import json, pickle, sys
sys.modules["zygote_py"] = None
sys.path.insert(0, sys.argv[1])
import object_cases as cases
import numpy as np
X = np.array([0.3, -0.5, 0.8])
XS = np.array([[0.3, -0.5], [0.1, 0.7], [-0.4, 0.2]])
examples = {
    "box_loss": lambda: (X.copy(),),
    "pair_loss": lambda: (X.copy(), 0.7),
    "counter_loss": lambda: (X.copy(), 0.7),
    "stateful_loss": lambda: (cases.Model(np.array([[0.5, -0.2], [0.3, 0.8]]), np.array([0.1, -0.3])),
                              XS.copy()),
    "list_updates": lambda: ([X + 1.0, X - 2.0], X.copy()),
    "dict_updates": lambda: ({"a": X + 1.0, "z": X * 0.5}, X.copy()),
    "grid_loss": lambda: (X.copy(),),
}
results = {}
for name in json.loads(sys.argv[3]):
    namespace = {"__name__": name + "_grad"}
    exec(compile(open(sys.argv[2] + "/" + name + "_grad.py").read(), name, "exec"), namespace)
    results[name] = namespace["value_and_grad_" + name](*examples[name]())
assert not any(m == "zygote_py" or m.startswith("zygote_py.") for m in sys.modules if sys.modules[m])
pickle.dump(results, open(sys.argv[4], "wb"))
"""


def test_the_modules_run_without_zygote_py(modules, tmp_path):
    for name in RUN_WITHOUT_ZYGOTE_PY:
        (tmp_path / f"{name}_grad.py").write_text(modules[name])
    out = tmp_path / "results.pickle"
    proc = subprocess.run([sys.executable, "-I", "-c", _RUN, str(Path(__file__).parent), str(tmp_path),
                           json.dumps(RUN_WITHOUT_ZYGOTE_PY), str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    results = pickle.loads(out.read_bytes())
    for name in RUN_WITHOUT_ZYGOTE_PY:
        y, grads = results[name]
        want_y, want = zp.withgradient(getattr(cases, name), *EXAMPLES[name]())
        assert y == pytest.approx(want_y, rel=1e-12)
        _assert_same_gradient(grads, copy.deepcopy(want), name)
