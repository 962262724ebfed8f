"""`zygote-py grad`: standalone gradient modules of corpus functions.

The command runs as a subprocess.  To keep the suite fast, one interpreter
runs `zygote_py.cli.main` for every dump (each call is the whole command:
argument parsing, loading the target, writing the file); a few tests run
`python -m zygote_py` itself.  The dumps are then imported by a second fresh
interpreter in which zygote_py cannot be imported at all, their gradients are
taken at the corpus's own arguments (`--args py:CASES[k]...` evaluates them
in the corpus module), and compared with `zp.gradient` to 1e-10.
"""

from __future__ import annotations

import ast
import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from corpus import as_case

import zygote_py as zp

TESTS = Path(__file__).resolve().parent.parent
CORPUS = TESTS / "corpus"

# (corpus module, case id): loops, branches, helpers, closures, recursion, methods,
# while loops, list append, comprehensions, dicts, builtins with rules, models
DUMPED = [
    ("loops", "range_one_arg"), ("loops", "while_growth"), ("loops", "break_when_large"),
    ("loops", "continue_on_even"), ("loops", "nested_loops"), ("loops", "zip_loop"),
    ("control_flow", "piecewise-middle"), ("control_flow", "nested_if-pn"),
    ("control_flow", "several_returns-second"),
    ("calls", "helper_chain"), ("calls", "helper_with_branch"), ("calls", "array_through_helpers"),
    ("calls", "star_args_call_site"), ("calls", "function_as_argument"),
    ("closures", "nested_def_reads_argument"), ("closures", "factory_closure_over_active"),
    ("closures", "lambda_passed_to_helper"), ("closures", "module_level_closure"),
    ("recursion", "rec_power"), ("recursion", "mutual_recursion"), ("recursion", "tree_product"),
    ("classes", "instance_argument"), ("classes", "list_of_layers"), ("classes", "callable_instance"),
    ("classes", "property_read"), ("classes", "method_of_module_instance"),
    ("containers", "append_then_stack"), ("containers", "dict_items_loop"),
    ("comprehensions", "list_comprehension_sum"), ("comprehensions", "max_of_generator"),
    ("arithmetic", "builtin_min_max"), ("models", "rnn"), ("models", "mlp_batch_cross_entropy"),
    ("classes", "held_activation"),  # a callable held by the instance: review A3(b)
    ("classes", "array_named_methods"), ("classes", "array_named_methods_in_helper"),
    ("classes", "transposed_attribute"),  # ndarray attribute rules resolved while running
    # iterators as values and updates of created containers (their forms are copied in)
    ("iterators", "map_of_a_lambda_over_two_lists"), ("iterators", "next_then_loop_over_the_rest"),
    ("iterators", "dict_of_zip"), ("container_methods", "dict_pop_used"),
    ("container_methods", "list_sort_in_place"),
    ("operator_overloading", "metric_methods"),  # an object's operators, by Python's protocol
    ("edge_calls", "r_directive"),  # np.r_[...] indexing: operator.getitem's rule, while running
    ("writes", "fill_loop"), ("writes", "views_and_out"),  # writes into arrays (runtime/writes.py)
]
if sys.version_info < (3, 11):
    # a lambda passed as a value is rebuilt from its code, which before 3.11 carries no
    # qualified name to find it by: the module writer refuses it (docs/limitations.md)
    DUMPED.remove(("closures", "lambda_passed_to_helper"))


def _case(module_name: str, ident: str):
    """(function, k, case) for the corpus case `module.ident` (ident = name or name-tag)."""
    module = __import__(f"corpus.{module_name}", fromlist=["CASES"])
    for k, entry in enumerate(module.CASES):
        case = as_case(entry)
        if case.name == ident:
            return case.func, k, case
    raise LookupError(ident)


def _job(module_name: str, ident: str) -> tuple[str, list[str], str]:
    fn, k, case = _case(module_name, ident)
    module = __import__(f"corpus.{module_name}", fromlist=["CASES"])
    field = ".args" if not isinstance(module.CASES[k], tuple) else "[1]"
    spec = ",".join(f"py:CASES[{k}]{field}[{i}]" for i in range(len(case.args)))
    out = f"{module_name}_{ident.replace('-', '_')}.py"
    return out, ["grad", f"{CORPUS / module_name}.py:{fn.__name__}", "--args", spec], ident


_BATCH = """
import json, sys
from zygote_py.cli.main import main
codes = [main(argv + ["-o", out]) for out, argv in json.loads(sys.argv[1])]
print(json.dumps(codes))
"""

# a fresh interpreter in which `import zygote_py` fails, however it is installed
_RUN_DUMPS = """
import importlib.util, json, pickle, sys
sys.modules["zygote_py"] = None
sys.path.insert(0, sys.argv[1])                # the tests folder: the corpus, for its arguments
results = {}
for out, module_name, k, func in json.loads(sys.argv[3]):
    spec = importlib.util.spec_from_file_location(out[:-3], sys.argv[2] + "/" + out)
    dump = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dump)
    corpus = __import__("corpus." + module_name, fromlist=["CASES"])
    entry = corpus.CASES[k]
    args = entry[1] if isinstance(entry, tuple) else entry.args
    results[out] = getattr(dump, "grad_" + func)(*args)
assert not any(m == "zygote_py" or m.startswith("zygote_py.") for m in sys.modules if sys.modules[m])
pickle.dump(results, open(sys.argv[4], "wb"))
"""


def _generate(jobs, folder: Path, cwd=None, env=None) -> list[int]:
    folder.mkdir(parents=True, exist_ok=True)
    payload = json.dumps([[str(folder / out), argv] for out, argv, _ in jobs])
    proc = subprocess.run([sys.executable, "-c", _BATCH, payload], capture_output=True, text=True,
                          cwd=cwd or TESTS.parent, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def dumps(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dumps")
    jobs = [_job(m, i) for m, i in DUMPED]
    codes = _generate(jobs, folder)
    assert codes == [0] * len(jobs), dict(zip([j[2] for j in jobs], codes))
    return folder, jobs


def _assert_close(got, want, path="grad"):
    if isinstance(want, dict) or isinstance(got, dict):
        got, want = got or {}, want or {}
        for key in set(got) | set(want):
            _assert_close(got.get(key), want.get(key), f"{path}[{key!r}]")
    elif isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want), f"{path}: {got!r} vs {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            _assert_close(g, w, f"{path}[{i}]")
    elif want is None or got is None:
        assert got is None and want is None, f"{path}: {got!r} vs {want!r}"
    else:
        assert type(got) is type(want), f"{path}: {type(got).__name__} vs {type(want).__name__}"
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10, err_msg=path)


def test_dumps_run_without_zygote_py_and_match_gradient(dumps, tmp_path):
    folder, jobs = dumps
    assert len(jobs) >= 20
    table = []
    for (module_name, ident), (out, _, _) in zip(DUMPED, jobs):
        fn, k, _ = _case(module_name, ident)
        table.append([out, module_name, k, fn.__name__])
        imported = {alias.name.split(".")[0] for node in ast.walk(ast.parse((folder / out).read_text()))
                    if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
        imported |= {node.module.split(".")[0] for node in ast.walk(ast.parse((folder / out).read_text()))
                     if isinstance(node, ast.ImportFrom) and node.module}
        assert imported <= set(sys.stdlib_module_names) | {"numpy"}, (out, imported)
    results = tmp_path / "results.pickle"
    proc = subprocess.run([sys.executable, "-I", "-c", _RUN_DUMPS, str(TESTS), str(folder), json.dumps(table),
                           str(results)], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    got = pickle.loads(results.read_bytes())
    for (module_name, ident), (out, _, _) in zip(DUMPED, jobs):
        fn, _, case = _case(module_name, ident)
        _assert_close(got[out], zp.gradient(fn, *case.args), out)


def test_output_is_deterministic_across_processes_and_working_folders(dumps, tmp_path):
    folder, jobs = dumps
    subset = [jobs[i] for i in (0, 9, 15, 18, 21, 23, 31)]
    # the same targets, by paths relative to another working folder, with another hash seed
    relative = [(out, [argv[0], os.path.relpath(argv[1], CORPUS), *argv[2:]], ident)
                for out, argv, ident in subset]
    env = dict(os.environ, PYTHONHASHSEED="12345")
    again = tmp_path / "again"
    assert _generate(relative, again, cwd=CORPUS, env=env) == [0] * len(subset)
    for out, _, _ in subset:
        assert (again / out).read_bytes() == (folder / out).read_bytes(), out
        assert str(TESTS) not in (again / out).read_text()  # no absolute paths


@pytest.mark.skipif(shutil.which("ruff") is None and not (Path(sys.executable).parent / "ruff").exists(),
                    reason="ruff is not installed")
def test_dumps_pass_ruff_with_default_rules(dumps):
    folder, _ = dumps
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    proc = subprocess.run([ruff, "check", "--isolated", "--no-cache", str(folder)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_dump_reads_like_a_module(dumps):
    folder, _ = dumps
    text = (folder / "recursion_rec_power.py").read_text()
    assert text.startswith('"""Gradient of `rec_power` from corpus/recursion.py')
    assert "grads = grad_rec_power(x, n)" in text
    for section in ("The differentiated function", "Generated pullbacks and gradient", "Entry points"):
        assert f"# {section}" in text
    assert "def rec_power(x, n):" in text and "def grad_rec_power(x, n):" in text
    assert "# grad of: return x * rec_power(x, n - 1)  corpus/recursion.py:10" in text
