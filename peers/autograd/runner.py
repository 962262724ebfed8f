"""Fetch autograd's sdist, run its test files against the shim, and write the report.

Each test file runs in its own pytest subprocess (a crash or a hang costs one
file, not the run) with the shim directory first on PYTHONPATH, so that
`import autograd` finds the shim, and this checkout's root next, so that
`zygote_py` is the one beside it.  pytest is pointed at an empty ini file:
the sdist's own pytest configuration asks for plugins (xdist, coverage) that
have nothing to do with zygote_py.  autograd's tests are fetched, never
stored in this repository.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from . import report

AUTOGRAD_VERSION = "1.9.1"
HERE = Path(__file__).resolve().parent
SHIM_DIR = HERE / "shim"
REPO_ROOT = HERE.parent.parent

DEFAULT_FILES = (
    "test_core.py", "test_scalar_ops.py", "test_binary_ops.py", "test_numpy.py",
    "test_systematic.py", "test_linalg.py", "test_wrappers.py", "test_builtins.py",
    "test_complex.py", "test_dict.py", "test_list.py", "test_tuple.py", "test_logic.py",
    "test_misc.py", "test_truediv.py", "test_jacobian.py", "test_direct.py", "test_graphs.py",
    "test_fft.py", "test_scipy.py", "test_tests.py",
)
# Left out on purpose: test_vspaces.py (autograd's VSpace classes, internals with no
# zygote_py meaning), test_ufunc_dispatch.py (autograd's boxes inside xarray, which needs
# xarray), test_performance.py (empty), _test_complexity.py (not collected by autograd either).


def fetch_sdist(version: str, cache: Path) -> Path:
    """The sdist archive, downloaded with pip into cache unless already there."""
    cache.mkdir(parents=True, exist_ok=True)
    found = sorted(cache.glob(f"autograd-{version}.tar.gz"))
    if found:
        return found[0]
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                    f"autograd=={version}", "-d", str(cache)], check=True)
    return cache / f"autograd-{version}.tar.gz"


def unpack_tests(sdist: Path, work: Path) -> Path:
    """The sdist's tests/ folder, copied out under work (an unpacked sdist folder is read in place)."""
    if not sdist.exists():
        raise SystemExit(f"{sdist}: no such file or folder")
    if sdist.is_dir():
        tests = sdist / "tests"
        if not tests.is_dir():
            raise SystemExit(f"{sdist} has no tests/ folder")
        return tests
    target = work / "sdist"
    with tarfile.open(sdist) as archive:
        members = [m for m in archive.getmembers() if "/tests/" in f"/{m.name}" and m.isfile()]
        if not members:
            raise SystemExit(f"{sdist} holds no tests/ folder")
        # filter="data" refuses links and absolute paths; Pythons before 3.10.12 lack it
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        archive.extractall(target, members=members, **safe)
    return min(target.glob("*/tests"))


def run_file(tests: Path, name: str, work: Path, timeout: float) -> dict:
    """Run one test file in a pytest subprocess; what it recorded lands in work/{checks,results}."""
    for sub in ("checks", "results", "logs"):
        (work / sub).mkdir(parents=True, exist_ok=True)
    stem = Path(name).stem
    checks, results = work / "checks" / f"{stem}.jsonl", work / "results" / f"{stem}.jsonl"
    for path in (checks, results):
        path.unlink(missing_ok=True)
    empty_ini = work / "empty.ini"
    empty_ini.write_text("[pytest]\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(SHIM_DIR), str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    env["ZP_PEER_CHECKS"], env["ZP_PEER_RESULTS"] = str(checks), str(results)
    command = [sys.executable, "-m", "pytest", "-c", str(empty_ini), "--rootdir", str(tests),
               "-p", "no:cacheprovider", "-p", "zp_peer_plugin", "-q", "-rN", name]
    started = time.monotonic()
    try:
        done = subprocess.run(command, cwd=tests, env=env, capture_output=True, text=True,
                              timeout=timeout, check=False)  # failing tests are the point
        status, output = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as exc:
        status, output = "timeout", f"{exc.stdout or ''}\ntimed out after {timeout:.0f} s"
    (work / "logs" / f"{stem}.log").write_text(output if isinstance(output, str) else str(output))
    return {"file": name, "status": status, "seconds": round(time.monotonic() - started, 1)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m peers.autograd", description=__doc__.split("\n")[0])
    parser.add_argument("--sdist", type=Path, help="autograd sdist (.tar.gz) or unpacked folder; "
                                                    "default: download with pip")
    parser.add_argument("--version", default=AUTOGRAD_VERSION, help="autograd version to download")
    parser.add_argument("--files", nargs="+", default=list(DEFAULT_FILES), help="test files to run")
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "build" / "peers" / "autograd",
                        help="where the logs and report.{md,json} go")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per test file")
    args = parser.parse_args(argv)

    sdist = args.sdist or fetch_sdist(args.version, Path.home() / ".cache" / "zygote_py-peers")
    args.out.mkdir(parents=True, exist_ok=True)
    tests = unpack_tests(sdist.resolve(), args.out)
    runs = []
    for name in args.files:
        if not (tests / name).is_file():
            print(f"{name}: not in {tests}, left out", file=sys.stderr)
            continue
        runs.append(run_file(tests, name, args.out, args.timeout))
        print(f"{name}: pytest exit {runs[-1]['status']} in {runs[-1]['seconds']} s", file=sys.stderr)
    summary = report.build(args.out, runs, source=str(sdist))
    (args.out / "report.json").write_text(report.to_json(summary))
    (args.out / "report.md").write_text(report.to_markdown(summary))
    print(report.to_markdown(summary))
    print(f"written: {args.out / 'report.md'}, {args.out / 'report.json'}", file=sys.stderr)
    return 0
