"""Run one system on the requested workloads and print the results as JSON.

Spawned by ``run.py`` (one process per system and workload, so each first
call is made in a fresh process), but usable alone for debugging::

    python bench/worker.py --system jax_jit --workloads mlp,rnn --quick

For each workload: build the data (untimed), time the first gradient call
(the system's one-time setup plus the call), check that gradient against the
reference, then time the steady state (warm-up, median of repeats).  Nothing
a system does can crash the worker: every failure becomes a result with
status ``fails`` and its reason.  The last line of stdout is
``BENCH_JSON <json>``; anything a library prints before it is ignored.
"""

import argparse
import importlib
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# bench/ for `workloads`, `timing`, `systems`; the repo root first so
# `import zygote_py` is the working tree, whatever is installed.
sys.path[:0] = [ROOT, HERE]

# tangent-ad caches generated code on disk across processes; keep first calls cold.
os.environ.setdefault("TANGENT_DISK_CACHE", "0")


def pin_threads():
    """Honour ``BENCH_THREADS`` (``run.py --threads N``) before NumPy loads.

    The thread-count variables cover OpenBLAS, OpenMP and MKL (set by run.py);
    XLA sizes its pool from the CPUs the process may run on, so the process is
    also bound to N CPUs.  Pinned, a library cannot lose time to a thread
    pool whose threads wait for each other while another job holds a core."""
    threads = int(os.environ.get("BENCH_THREADS") or 0)
    if threads and hasattr(os, "sched_setaffinity"):
        cpus = sorted(os.sched_getaffinity(0))
        if threads < len(cpus):
            os.sched_setaffinity(0, cpus[-threads:])


pin_threads()

import timing
import workloads
from systems import SYSTEMS, numpy_primal

MARKER = "BENCH_JSON "


def short_error(exc, limit=300):
    """One line naming the exception, for the table's footnotes."""
    msg = " ".join(str(exc).split())
    text = f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def load_system(system):
    """Import the system's module and its package.

    Returns ``(module, None)``, or ``(None, result)`` where result says
    "not installed" (the package itself is missing) or "fails"."""
    try:
        mod = importlib.import_module(f"systems.{SYSTEMS[system]}")
    except Exception as exc:  # noqa: BLE001 - reported as "fails", never raised
        return None, {"status": "fails", "error": short_error(exc)}
    try:
        importlib.import_module(mod.PACKAGE)
    except ModuleNotFoundError as exc:
        # Only the package itself missing is "not installed"; a dependency
        # missing inside an installed package is a failure worth reading.
        status = "not installed" if exc.name == mod.PACKAGE else "fails"
        return None, {"status": status, "error": short_error(exc)}
    except Exception as exc:  # noqa: BLE001 - a broken install must not stop the run
        return None, {"status": "fails", "error": short_error(exc)}
    return mod, None


def check_result(mod, name, data, result):
    """``(ok, max_rel_err, message)`` for the first call's gradient."""
    if hasattr(mod, "check"):
        return mod.check(name, data, result)
    return workloads.compare(name, mod.to_numpy(result), args=data["args"])


def run_workload(mod, name, opts):
    """Time and check one workload; always returns a result dict."""
    out = {"status": "fails"}
    stage = "data"
    try:
        data = workloads.make_data(name)
        stage = "prepare"
        make = mod.prepare(name, data)
        stage = "first call"
        rss_before = peak_rss_mb()
        first_s, (grad_fn, result) = timing.time_call(lambda: _make_and_call(make))
        out["first_s"] = first_s
        # the growth of the process's peak resident memory over the data and the
        # library, during the first gradient call (its tape, caches and compiled code)
        out["peak_mb"] = peak_rss_mb() - rss_before
        stage = "check"
        ok, err, msg = check_result(mod, name, data, result)
        out["max_rel_err"] = err
        if not ok:
            out.update(status="wrong", error=msg)
            return out
        stage = "timing"
        if opts.paired:
            primal = numpy_primal.prepare(name, data)()
            stats = timing.measure_paired(grad_fn, primal, opts.budget, opts.min_reps,
                                          opts.max_reps, hold=opts.hold)
        else:
            stats = timing.measure(grad_fn, opts.budget, opts.min_reps, opts.max_reps,
                                   hold=opts.hold)
        out.update(stats, status="ok")
    except Exception as exc:  # noqa: BLE001 - any failure of a system is a result
        out["error"] = f"[{stage}] {short_error(exc)}"
        if opts.traceback:
            traceback.print_exc(file=sys.stderr)
    return out


def peak_rss_mb():
    """The process's peak resident set size so far, in MB (Linux: ru_maxrss is in KB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _make_and_call(make):
    grad_fn = make()
    return grad_fn, grad_fn()


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--system", required=True, choices=sorted(SYSTEMS))
    p.add_argument("--workloads", default=",".join(workloads.NAMES))
    p.add_argument("--budget", type=float, default=2.0, help="seconds of samples per workload")
    p.add_argument("--min-reps", type=int, default=3)
    p.add_argument("--max-reps", type=int, default=21)
    p.add_argument("--quick", action="store_true", help="few repeats (budget 0.3 s, 3-5 reps)")
    p.add_argument("--traceback", action="store_true", help="print tracebacks to stderr")
    p.add_argument("--hold", action="store_true",
                   help="keep each result until the next call returns (a training loop's way)")
    p.add_argument("--paired", action="store_true",
                   help="time the NumPy primal in this process too, batch for batch "
                   "(timing.measure_paired)")
    opts = p.parse_args(argv)
    if opts.quick:
        opts.budget, opts.min_reps, opts.max_reps = 0.3, 3, 5
    return opts


def main(argv=None):
    opts = parse_args(argv)
    names = [n for n in opts.workloads.split(",") if n]
    mod, failure = load_system(opts.system)
    report = {"system": opts.system, "version": None, "results": {}}
    if mod is not None:
        try:
            report["version"] = mod.version()
        except Exception as exc:  # noqa: BLE001 - a version is not worth a failure
            report["version"] = f"? ({short_error(exc, 80)})"
    for name in names:
        if failure is not None:
            report["results"][name] = dict(failure)
        elif name not in workloads.FUNCTIONS:
            report["results"][name] = {"status": "fails", "error": f"unknown workload {name!r}"}
        else:
            report["results"][name] = run_workload(mod, name, opts)
    sys.stdout.write("\n" + MARKER + json.dumps(report) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
