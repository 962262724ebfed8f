"""Standalone modules (zygote-py grad) of functions that update a module-level list or dict
in place by its name (`LOG.append(v)`: claimed by the function, runtime/outside_containers.py).

The module copies the user's function and the global it updates (with the items the
global held before the example run, which generating the module leaves untouched); the
module's gradient claims its copy at its entry and updates it in place as zp.gradient
updates the user's.  Each gradient is compared with zp.gradient's (from the same state)
and with central differences; the module's global after the call holds what one plain
call leaves.  The modules then run where zygote_py cannot be imported.  What zygote_py
refuses while running, the module refuses in the same words."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import zygote_py as zp
from tests.aot import claim_cases as cases
from zygote_py.aot.builder import NotStandalone
from zygote_py.aot.module import standalone_module

X = np.array([0.3, -0.7, 1.1])
H = 1e-6
# name -> (the argument, the global(s) of the module it updates)
EXAMPLES = {
    "every_list_update": (0.7, "LOG"),
    "appends_in_a_loop_then_calls_a_reader": (0.7, "LOG"),
    "passes_the_list_on": (0.7, "LOG"),
    "claims_in_a_called_function": (0.7, "LOG"),
    "array_items": (X, "ARRAYS"),
    "writes_into_an_array_item": (X, "ARRAYS"),
    "every_dict_update": (X, "CACHE"),
}


def _load(text: str, name: str):
    module = types.ModuleType(name)  # (not compiled under this file's __future__ imports)
    exec(compile(text, f"<{name}>", "exec", dont_inherit=True), module.__dict__)
    return module


def _same(got, want):
    """The same items, in the same order, of the same types, with the same bits."""
    assert type(got) is type(want), (got, want)
    if isinstance(want, dict):
        assert list(got) == list(want)
        for key in want:
            _same(got[key], want[key])
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            _same(g, w)
    elif isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and np.array_equal(got, want), (got, want)
    else:
        assert got == want, (got, want)


def _copy_state(module, name):
    """What the module's global holds now, as the cases module's reset() would hold it."""
    value = getattr(module, name)
    return list(value) if isinstance(value, list) else dict(value)


@pytest.fixture(scope="module")
def modules():
    out = {}
    for name, (x, _) in EXAMPLES.items():
        cases.reset()
        before = cases.state()
        out[name] = standalone_module(getattr(cases, name), args=(x,))
        _same(cases.state(), before)  # generating the module changed nothing of the user's
    return out


def _central_differences(fn, x):
    x = np.asarray(x, dtype=float)
    out = np.zeros(x.shape)
    for index in np.ndindex(*x.shape):
        step = np.zeros(x.shape)
        step[index] = H
        cases.reset()
        up = fn(x + step if x.shape else float(x + step))
        cases.reset()
        down = fn(x - step if x.shape else float(x - step))
        out[index] = (up - down) / (2 * H)
    return out


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_the_module_updates_its_global_as_zygote_py_updates_the_users(modules, name):
    x, held = EXAMPLES[name]
    fn = getattr(cases, name)
    module = _load(modules[name], name)
    cases.reset()
    _same(getattr(module, held), getattr(cases, held))  # its copy starts where the user's was
    y, (g,) = getattr(module, f"value_and_grad_{name}")(x)
    after = _copy_state(module, held)
    cases.reset()
    plain = fn(x)
    _same(after, getattr(cases, held))  # what one plain call leaves
    assert y == pytest.approx(plain, rel=1e-12)
    cases.reset()
    (want,) = zp.gradient(fn, x)
    np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g, _central_differences(fn, x), rtol=1e-6, atol=1e-7)
    if name in ("every_list_update", "every_dict_update"):
        return  # (a second call would remove an item that is gone, in Python too)
    # a second call starts from what the first left, as in the process
    again = _load(modules[name], name)
    getattr(again, f"grad_{name}")(x)
    cases.reset()
    fn(x)
    (g2,) = getattr(again, f"grad_{name}")(x)
    (want2,) = zp.gradient(fn, x)
    np.testing.assert_allclose(g2, want2, rtol=1e-12, atol=1e-12)
    _same(_copy_state(again, held), getattr(cases, held))


def test_a_pullback_module_runs_its_back_as_often_as_it_is_called():
    cases.reset()
    module = _load(standalone_module(cases.every_list_update, args=(0.7,), mode="pullback"), "pb")
    y, back = module.pullback_every_list_update(0.7)
    after = list(module.LOG)
    cases.reset()
    want_y, want_back = zp.pullback(cases.every_list_update, 0.7)
    assert y == pytest.approx(want_y, rel=1e-12)
    assert back(2.0) == back(2.0) == pytest.approx(want_back(2.0), rel=1e-12)
    assert module.LOG == after  # each back puts back what the forward left
    with pytest.raises(Exception, match="also held by something else") as info:
        module.pullback_every_list_update(0.7)  # the kept back still holds the list
    assert type(info.value).__name__ == "_zp_MutationError"
    del back, want_back


def test_what_zygote_py_refuses_while_running_the_module_refuses(modules):
    module = _load(modules["every_list_update"], "held")
    held = module.LOG  # a second reference: it would see the new items without derivatives
    with pytest.raises(Exception, match=r"claim_cases\.py:\d+:\d+: the list 'LOG', which this "
                                        "function updates in place, is also held") as info:
        module.grad_every_list_update(0.7)
    assert type(info.value).__name__ == "_zp_MutationError"
    assert module.LOG is held and len(held) == 3  # refused before any update
    del held
    cases.reset()
    text = standalone_module(cases.records_twice_when_large, args=(0.5,))
    module = _load(text, "twice")
    assert module.grad_records_twice_when_large(0.5) == pytest.approx((1.0,))
    with pytest.raises(Exception, match="already updated with derivatives earlier") as info:
        module.grad_records_twice_when_large(1.5)  # the branch that calls it again
    assert type(info.value).__name__ == "_zp_MutationError"
    cases.reset()
    with pytest.raises(zp.MutationError, match="already updated with derivatives earlier"):
        zp.gradient(cases.records_twice_when_large, 1.5)


def test_a_captured_list_is_refused_at_the_users_line():
    for fn in (cases.LOGGED, cases.calls_a_logger):
        with pytest.raises(NotStandalone, match=r"claim_cases\.py:\d+:\d+: .*updates the captured "
                                                r"list 'history' in place"):
            standalone_module(fn, args=(0.7,))
    assert cases.LOGGED.__closure__[0].cell_contents == []  # the example runs left it as it was


_RUN = """
import json, pickle, sys, types
sys.modules["zygote_py"] = None
sys.path.insert(0, sys.argv[1])
import numpy as np
import claim_cases as cases
X = np.array([0.3, -0.7, 1.1])
results = {}
for name, x in json.loads(sys.argv[3]):
    module = types.ModuleType(name + "_grad")
    exec(compile(open(sys.argv[2] + "/" + name + "_grad.py").read(), name, "exec"), module.__dict__)
    x = X.copy() if x == "X" else x
    y, grads = getattr(module, "value_and_grad_" + name)(x)
    held = [k for k in ("LOG", "CACHE", "ARRAYS") if hasattr(module, k)]
    results[name] = (y, grads, {k: getattr(module, k) for k in held})
assert not any(m == "zygote_py" or m.startswith("zygote_py.") for m in sys.modules if sys.modules[m])
pickle.dump(results, open(sys.argv[4], "wb"))
"""


def test_the_modules_run_without_zygote_py(modules, tmp_path):
    for name in EXAMPLES:
        (tmp_path / f"{name}_grad.py").write_text(modules[name])
    out = tmp_path / "results.pickle"
    spec = [(name, "X" if isinstance(x, np.ndarray) else x) for name, (x, _) in EXAMPLES.items()]
    proc = subprocess.run([sys.executable, "-I", "-c", _RUN, str(Path(__file__).parent), str(tmp_path),
                           json.dumps(spec), str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    results = pickle.loads(out.read_bytes())
    for name, (x, held) in EXAMPLES.items():
        y, grads, globals_after = results[name]
        cases.reset()
        want_y, want = zp.withgradient(getattr(cases, name), x)
        assert y == pytest.approx(want_y, rel=1e-12)
        np.testing.assert_allclose(grads[0], want[0], rtol=1e-12, atol=1e-12, err_msg=name)
        _same(globals_after[held], getattr(cases, held))
