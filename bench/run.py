"""Benchmark orchestrator: run every system on every workload, print one table.

Usage (from the repository root, in an environment with the peers installed,
e.g. ``pip install -e '.[bench]'``)::

    python bench/run.py                       # full run (a few minutes)
    python bench/run.py --quick               # few repeats, for a smoke test
    python bench/run.py --systems numpy,zygote_py --workloads mlp,rnn

Each (system, workload) pair runs in its own fresh process
(``bench/worker.py``, spawned with this interpreter), one at a time so the
processes do not compete for the machine's cores, and by default each is
held to one thread on one CPU (``--threads``; see ``worker.pin_threads``) so
that a job elsewhere on the machine slows it down rather than stalling a
thread pool.  A fresh process per pair
means every "first call" really is the first gradient call in its process,
and one system's memory or threads cannot disturb another's timing.  The
whole sequence runs twice (``--rounds``) and each pair keeps its best round,
because this 2-core machine has slow spells that can last a whole process.

The table has one row per workload with the steady-state gradient time
(median of repeats) and one row per workload in a "first call" section; each
cell shows the time and its ratio to the NumPy primal (the plain function,
no gradient).  A steady-state ratio is paired: the system's own process times the
primal too, a batch of primal calls before each batch of gradient calls, and the
ratio is the median of the batches' ratios, so that the machine's drift between
one process and the next (up to half of a primal's time on a shared 2-core host)
does not enter it (``--unpaired``: the ratio of the two processes' medians).  A
system that errors, times out or crashes shows "fails" with the reason in a
footnote; a wrong gradient shows "wrong"; a missing package shows "not
installed".  The table and the raw
numbers are written to ``bench/results/latest.md`` and ``latest.json``.
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import workloads
from systems import LABELS, SYSTEMS

BASELINE = "numpy"
MARKER = "BENCH_JSON "  # the prefix of worker.py's report line (worker.MARKER)


# --------------------------------------------------------------------------
# Running the workers
# --------------------------------------------------------------------------


def run_worker(python, system, workload, opts):
    """Run one worker process; always returns ``(version, result)``."""
    cmd = [python, os.path.join(HERE, "worker.py"), "--system", system, "--workloads", workload]
    cmd += ["--budget", str(opts.budget), "--min-reps", str(opts.min_reps)]
    cmd += ["--max-reps", str(opts.max_reps)]
    if opts.hold:
        cmd.append("--hold")
    if not opts.unpaired and system != BASELINE:
        cmd.append("--paired")
    env = dict(os.environ, PYTHONHASHSEED="0")
    if opts.threads:
        # Read by NumPy's BLAS, torch and XLA at start-up (see systems/*.py).
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BENCH_THREADS"):
            env[var] = str(opts.threads)
    try:
        proc = subprocess.run(
            cmd,
            check=False,
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=opts.timeout,
        )
    except subprocess.TimeoutExpired:
        return None, {"status": "fails", "error": f"timed out after {opts.timeout:g} s"}
    except OSError as exc:
        return None, {"status": "fails", "error": f"could not start worker: {exc}"}
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(MARKER):
            report = json.loads(line[len(MARKER) :])
            return report.get("version"), report["results"][workload]
    # No report: the worker crashed (segfault, abort, out of memory, ...).
    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1][:200]
    return None, {"status": "fails", "error": f"worker exited with code {proc.returncode}: {tail}"}


def run_all(opts):
    """Run every selected pair ``opts.rounds`` times; returns ``(results, versions)``.

    Rounds after the first re-run only the pairs that succeeded (failures are
    deterministic; repeating them only costs time) and visit the systems in
    reverse order, so a slow spell of the machine lands on different systems
    in different rounds.  ``combine`` keeps the best round of each pair."""
    rounds = {s: {w: [] for w in opts.workloads} for s in opts.systems}
    versions = {}
    for r in range(opts.rounds):
        order = opts.systems if r % 2 == 0 else opts.systems[::-1]
        todo = [
            (s, w)
            for s in order
            for w in opts.workloads
            if r == 0 or rounds[s][w][0].get("status") == "ok"
        ]
        for i, (system, workload) in enumerate(todo, 1):
            t0 = time.perf_counter()
            python = opts.python_for.get(system, opts.python)
            version, res = run_worker(python, system, workload, opts)
            rounds[system][workload].append(res)
            if version:
                versions[system] = version
            log(
                f"round {r + 1}/{opts.rounds} [{i}/{len(todo)}] {system:9s} {workload:12s} "
                f"{res['status']:13s} {time.perf_counter() - t0:6.1f} s  "
                f"{res.get('error', '')[:80]}"
            )
    results = {s: {w: combine(rounds[s][w]) for w in opts.workloads} for s in opts.systems}
    return results, versions


def combine(runs):
    """One result from a pair's rounds: the fastest successful round.

    Steady state is the smallest of the rounds' medians and first call the
    smallest first-call time: on a shared machine noise only ever adds time,
    so the least disturbed process is the best estimate.  A wrong gradient in
    any round makes the pair "wrong"; a pair with no successful round keeps
    the first round's failure."""
    wrong = [r for r in runs if r.get("status") == "wrong"]
    if wrong:
        out = dict(wrong[0])
    else:
        ok = [r for r in runs if r.get("status") == "ok"]
        if not ok:
            return dict(runs[0], rounds=runs)
        out = dict(min(ok, key=lambda r: r["median_s"]))
        out["first_s"] = min(r["first_s"] for r in ok)
        peaks = [r["peak_mb"] for r in ok if r.get("peak_mb") is not None]
        out["peak_mb"] = min(peaks) if peaks else None
    out["rounds"] = runs
    return out


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# Formatting
# --------------------------------------------------------------------------


def fmt_time(s):
    """Three significant digits with a unit: 812 ns, 4.31 ms, 2.10 s."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{_sig3(s / scale)} {unit}"
    return f"{_sig3(s / 1e-9)} ns"


def fmt_ratio(r):
    return f"{_sig3(r)}x"


def _sig3(v):
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


class Footnotes:
    """Numbered reasons; one note per (system, reason), listing its workloads."""

    def __init__(self):
        self.notes = {}  # (system, reason) -> [number, [workloads]]

    def ref(self, system, workload, reason):
        key = (system, reason)
        if key not in self.notes:
            self.notes[key] = [len(self.notes) + 1, []]
        if workload not in self.notes[key][1]:
            self.notes[key][1].append(workload)
        return self.notes[key][0]

    def lines(self):
        out = []
        for (system, reason), (num, wls) in self.notes.items():
            out.append(f"[{num}] {LABELS.get(system, system)} on {', '.join(wls)}: {reason}")
        return out


def cell(res, key, base, system, workload, notes):
    """One table cell for result ``res``: time and ratio, or a status.  A steady-state
    ratio is the worker's own paired one where it has one (`timing.measure_paired`),
    else the ratio to the NumPy column's median."""
    status = res.get("status", "fails")
    if status == "ok":
        t = res.get(key)
        if t is None:
            return "—"
        if key == "median_s" and res.get("paired_ratio") is not None:
            ratio = f" ({fmt_ratio(res['paired_ratio'])})"
        else:
            ratio = f" ({fmt_ratio(t / base)})" if base else ""
        return f"{fmt_time(t)}{ratio}"
    if status == "not installed":
        return "not installed"
    return f"{status} [{notes.ref(system, workload, res.get('error', 'no reason given'))}]"


def render_table(results, opts):
    """The markdown table and its footnotes, as a list of lines."""
    notes = Footnotes()
    systems = opts.systems
    header = "| workload | " + " | ".join(LABELS.get(s, s) for s in systems) + " |"
    rule = "|---|" + "---:|" * len(systems)
    lines = [header, rule]
    for section, key in (("steady state", "median_s"), ("first call", "first_s")):
        if key == "first_s":
            lines.append("| **first call** |" + " |" * len(systems))
        for wl in opts.workloads:
            base_res = results.get(BASELINE, {}).get(wl, {})
            base = base_res.get("median_s") if base_res.get("status") == "ok" else None
            row = [cell(results[s][wl], key, base, s, wl, notes) for s in systems]
            lines.append(f"| {wl} | " + " | ".join(row) + " |")
    lines.append("| **peak memory** |" + " |" * len(systems))
    for wl in opts.workloads:
        row = [f"+{results[s][wl]['peak_mb']:.0f} MB" if results[s][wl].get("status") == "ok"
               and results[s][wl].get("peak_mb") is not None else "—" for s in systems]
        lines.append(f"| {wl} | " + " | ".join(row) + " |")
    foot = notes.lines()
    if foot:
        lines += [""] + [f"{f}  " for f in foot]
    return lines


def _fmt_load(load):
    return "?" if not load else f"{load[0]:.2f}"


def _loadavg():
    try:
        return list(os.getloadavg())
    except OSError:
        return None


def machine_info():
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
    }


def render_report(results, versions, opts, meta):
    """The whole markdown report: context, table, footnotes, versions."""
    m = meta["machine"]
    lines = [
        (
            f"# zygote_py benchmark ({meta['date']}, {'quick' if opts.quick else 'full'} run, "
            f"{meta['wall_s']:.0f} s)"
        ),
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['platform']}, Python {m['python']}.  ",
        "Steady state: median time of one gradient call (warm, in its own process; "
        f"best of {opts.rounds} such processes); first call: the very first gradient call "
        "in a fresh process (setup, tracing, transform, compile and run; best of "
        f"{opts.rounds}).  "
        + ("Ratios are to the NumPy primal's median (the plain function, no gradient) from "
           "the same run.  " if opts.unpaired else
           "Steady-state ratios are paired: each system's process also times the NumPy "
           "primal, batch for batch with the gradient, and the ratio is the median of the "
           "batches' ratios; first-call ratios are to the NumPy column's median.  ")
        + ("Each result is kept until the next call returns (`--hold`).  " if opts.hold else "")
        + "Threads: "
        + (f"{opts.threads} per library." if opts.threads else "each library's default.")
        + f"  Load average before/after: {_fmt_load(meta['load_before'])} / "
        f"{_fmt_load(meta['load_after'])}.",
        "",
    ]
    lines += render_table(results, opts)
    reported = [f"{LABELS.get(s, s)} {versions[s]}" for s in opts.systems if s in versions]
    lines += ["", "Versions: " + (", ".join(reported) or "none reported")]
    lines += ["", "Workloads:"] + [f"- {wl}: {workloads.DESCRIPTIONS[wl]}" for wl in opts.workloads]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------


def parse_list(text, known, what):
    items = [t.strip() for t in text.split(",") if t.strip()]
    bad = [t for t in items if t not in known]
    if bad:
        raise SystemExit(f"unknown {what}: {', '.join(bad)} (known: {', '.join(known)})")
    return items


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        description="Gradient benchmark: zygote_py vs NumPy primal and peers.",
        epilog=f"systems: {', '.join(SYSTEMS)}; workloads: {', '.join(workloads.NAMES)}",
    )
    p.add_argument("--quick", action="store_true", help="few repeats (smoke test)")
    p.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated subset")
    p.add_argument("--workloads", default=",".join(workloads.DEFAULT), help="comma-separated "
                   "subset (default: all but long_loop, whose million steps take minutes a system)")
    p.add_argument("--budget", type=float, help="seconds of timed samples per pair (default 2)")
    p.add_argument("--min-reps", type=int, default=3, help="fewest timed samples (default 3)")
    p.add_argument("--max-reps", type=int, help="most timed samples (default 21, quick 5)")
    p.add_argument("--rounds", type=int, help="processes per pair, best kept (default 2, quick 1)")
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        help="threads (and CPUs) per worker (default 1; 0 = each library's default)",
    )
    p.add_argument("--timeout", type=float, default=300, help="seconds per worker process")
    p.add_argument("--python", default=sys.executable, help="interpreter for the workers")
    p.add_argument(
        "--python-for",
        action="append",
        default=[],
        metavar="SYSTEM=PATH",
        help="interpreter for one system (e.g. a separate venv); repeatable",
    )
    p.add_argument(
        "--out-dir",
        default=os.path.join(HERE, "results"),
        help="where latest.md and latest.json go",
    )
    p.add_argument("--no-save", action="store_true", help="print only; write no files")
    p.add_argument("--hold", action="store_true", help="keep each gradient until the next call "
                   "returns, as a training loop's `g = gradient(...)` does (default: release it)")
    p.add_argument("--unpaired", action="store_true", help="steady-state ratios to the NumPy "
                   "column's median, without timing the primal again beside each system")
    opts = p.parse_args(argv)
    # Columns always in the canonical order, whatever order they were asked in.
    chosen = parse_list(opts.systems, list(SYSTEMS), "system")
    opts.systems = [s for s in SYSTEMS if s in chosen]
    opts.workloads = parse_list(opts.workloads, workloads.NAMES, "workload")
    if opts.budget is None:
        opts.budget = 0.3 if opts.quick else 2.0
    if opts.rounds is None:
        opts.rounds = 1 if opts.quick else 2
    if opts.max_reps is None:
        opts.max_reps = 5 if opts.quick else 21
    pairs = [item.split("=", 1) for item in opts.python_for]
    if any(len(pair) != 2 or pair[0] not in SYSTEMS for pair in pairs):
        raise SystemExit("--python-for takes SYSTEM=PATH with a known system")
    opts.python_for = dict(pairs)
    return opts


def save(report_md, results, versions, opts, meta):
    os.makedirs(opts.out_dir, exist_ok=True)
    with open(os.path.join(opts.out_dir, "latest.md"), "w") as fh:
        fh.write(report_md)
    payload = {
        "meta": meta,
        "options": {
            k: getattr(opts, k)
            for k in (
                "quick",
                "systems",
                "workloads",
                "budget",
                "min_reps",
                "max_reps",
                "timeout",
                "threads",
                "rounds",
            )
        },
        "versions": versions,
        "results": results,
    }
    with open(os.path.join(opts.out_dir, "latest.json"), "w") as fh:
        json.dump(payload, fh, indent=1)


def main(argv=None):
    opts = parse_args(argv)
    t0 = time.perf_counter()
    load_before = _loadavg()
    results, versions = run_all(opts)
    meta = {
        "load_before": load_before,
        "load_after": _loadavg(),
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "machine": machine_info(),
        "wall_s": time.perf_counter() - t0,
    }
    report_md = render_report(results, versions, opts, meta)
    print(report_md)
    if not opts.no_save:
        save(report_md, results, versions, opts, meta)
        log(
            f"wrote {os.path.relpath(os.path.join(opts.out_dir, 'latest.md'), os.getcwd())} "
            "and latest.json"
        )


if __name__ == "__main__":
    main()
