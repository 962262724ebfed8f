"""Implicit parameters are a plug-in of the reverse transform: the core asks a reads
object (ConstantReads by default) and never tests an implicit flag; the params
feature's ImplicitParamReads makes global and module-data reads inputs."""

import ast
from pathlib import Path

import numpy as np

import zygote_py as zp
from zygote_py.ad import reverse
from zygote_py.ad.reverse.reads import ConstantReads
from zygote_py.calls.implicit import deposit
from zygote_py.compiler import COMPILER

W_READ = np.array([[0.5, -1.0], [2.0, 0.25]])


def scaled(v):
    return W_READ @ v


def loss():
    return np.sum(np.tanh(scaled(np.array([0.3, -0.7]))) ** 2)


def _fd_wrt_global(f, array, step=1e-6):
    out = np.zeros_like(array)
    for index in np.ndindex(array.shape):
        old = array[index]
        array[index] = old + step
        up = f()
        array[index] = old - step
        down = f()
        array[index] = old
        out[index] = (up - down) / (2 * step)
    return out


def _deposits(program):
    return [op for op in program.backward.walk()
            if op.opcode == "call" and op.attrs["fn"] is deposit]


def test_the_core_tests_no_implicit_flag_and_imports_no_params_feature():
    for path in Path(reverse.__file__).parent.glob("*.py"):
        if path.name == "reads.py":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.If, ast.IfExp, ast.While)):
                names = {n.attr for n in ast.walk(node.test) if isinstance(n, ast.Attribute)}
                names |= {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
                assert "implicit" not in names, f"{path.name}:{node.lineno} tests an implicit flag"
            if isinstance(node, ast.ImportFrom):
                imported = {node.module or ""} | {alias.name for alias in node.names}
                assert not imported & {"params", "implicit", "..params", "..implicit"} \
                    and not any("implicit" in name for name in imported), \
                    f"{path.name} imports the params feature"


def test_constant_reads_differentiate_no_global_and_implicit_reads_deposit():
    plain = reverse.ReverseTransform(COMPILER.lowered_ir(scaled), [True]).run()
    assert not _deposits(plain)
    # the one guard: W_READ still holds an array, which the compiled code takes it to be
    assert plain.callees == [] and plain.guards == [("array", scaled.__globals__, "W_READ", None)]
    grads = zp.gradient(loss, zp.params(W_READ))
    assert grads[W_READ].shape == W_READ.shape
    implicit = [entry for key, entry in COMPILER.cache[scaled].items() if key[-1]]
    assert implicit, "the Params gradient builds the implicit variant of the callee"
    for entry in implicit:
        assert len(_deposits(entry.program)) == 1
        assert ("holds", scaled.__globals__, "W_READ", True) in entry.guards


def test_a_params_gradient_through_the_plug_in_matches_finite_differences():
    grads = zp.gradient(loss, zp.params(W_READ))
    expected = _fd_wrt_global(loss, W_READ)
    np.testing.assert_allclose(grads[W_READ], expected, rtol=1e-6, atol=1e-9)
    (gv,) = zp.gradient(scaled_sum, np.array([0.3, -0.7]))
    np.testing.assert_allclose(gv, W_READ.sum(axis=0), rtol=1e-12)


def scaled_sum(v):
    return np.sum(scaled(v))


def test_constant_reads_hooks_are_all_no_ops():
    reads = ConstantReads()
    ir = COMPILER.lowered_ir(scaled)
    (call,) = [op for op in ir.walk() if op.opcode == "call"]
    assert reads.roots(ir) == ([], [])
    assert reads.implicit is False
    assert not reads.may_read_parameters(call)
    assert not reads.adjoint_read(None, call)
    assert not reads.calls_through_dispatch(scaled)
    assert reads.captured_cotangent(None, scaled, None) is None
