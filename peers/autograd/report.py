"""The report: per test file passed/failed/skipped/errors, the gradient checks, and failures by cause.

Input is what a run left in its work folder: results/<file>.jsonl (pytest
outcomes and failing exceptions, from shim/zp_peer_plugin.py) and
checks/<file>.jsonl (one line per check_grads call, from the shim).  A failing
test's cause is that of its first failing gradient check when it has one,
else that of the exception that failed it (see causes.py).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from .causes import classify, classify_collection_error


def _read_jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _file_outcomes(results: list[dict]) -> dict[str, str]:
    """test id -> passed / failed / skipped / error (a failed setup or teardown, or collection)."""
    outcome: dict[str, str] = {}
    for r in results:
        test, when, result = r["test"], r["when"], r["outcome"]
        if result == "exception":
            continue
        if when == "collect" or (result == "failed" and when != "call"):
            outcome[test] = "error"
        elif result == "skipped":
            outcome.setdefault(test, "skipped")
        elif result == "failed":
            outcome[test] = "failed"
        elif result == "passed":
            outcome.setdefault(test, "passed")
    return outcome


def _example(test: str, check: dict | None, exception: dict | None, message: str = "") -> dict:
    example = {"test": test}
    if check is not None:
        example.update(function=check.get("function"), arg=check.get("arg"))
    if exception is not None:
        example["message"] = exception.get("message", "")[:400]
        frames = exception.get("frames") or []
        if frames:
            example["raised_at"] = ":".join(str(p) for p in frames[-1][:3])
    elif message:
        example["message"] = message[-400:]
    return example


def _skipped_part_key(part: str) -> str:
    """'fwd' -> 'skipped part: fwd'; 'rev order 2' (any order) -> 'skipped part: rev order>1'."""
    return "skipped part: " + ("rev order>1" if part.startswith("rev order") else part)


def build(work: Path, runs: list[dict], source: str = "") -> dict:
    """Everything the report shows, as plain data."""
    files, causes = [], {}
    totals = defaultdict(int)
    checks_total = defaultdict(int)
    default = {"checks": 0, "passed": 0, "real_checks": 0, "real_passed": 0,
               "parts": defaultdict(lambda: [0, 0])}

    def note(category, cause, test, example, checks=0):
        entry = causes.setdefault(cause, {"category": category, "tests": set(), "checks": 0,
                                          "example": example})
        if test:
            entry["tests"].add(test)
        entry["checks"] += checks

    for run in runs:
        stem = Path(run["file"]).stem
        results = _read_jsonl(work / "results" / f"{stem}.jsonl")
        checks = _read_jsonl(work / "checks" / f"{stem}.jsonl")
        outcomes = _file_outcomes(results)
        counts = defaultdict(int)
        for result in outcomes.values():
            counts[result] += 1
        if run["status"] == "timeout":
            counts["error"] += 1
            note("timeout", f"timeout: {run['file']}", run["file"], {"test": run["file"]})
        first_failed_check = {}
        file_default = [0, 0]  # checks with every part passing, checks with parts
        for c in checks:
            parts = c.get("parts") or {}
            if parts:
                file_default[1] += 1
                file_default[0] += all(v == "pass" for v in parts.values())
                if not c.get("complex"):
                    default["real_checks"] += 1
                    default["real_passed"] += all(v == "pass" for v in parts.values())
                for name, outcome in parts.items():
                    tally = default["parts"][name]
                    tally[0] += outcome == "pass"
                    tally[1] += 1
            checks_total[c["outcome"]] += 1
            if c.get("complex") and c["outcome"] != "skipped":
                checks_total["complex run"] += 1
                checks_total["complex passed"] += c["outcome"] == "pass"
            for part in c.get("skipped_parts", []):
                checks_total[_skipped_part_key(part)] += 1
            if c["outcome"] in ("fail", "error"):
                category, cause = classify(c["exception"], c["test"], c.get("complex", False))
                note(category, cause, None, _example(c["test"], c, c["exception"]), checks=1)
                first_failed_check.setdefault(c["test"], (category, cause))
            else:  # the first-order reverse part passed (or did not run): its first failing part
                for name, exc in (c.get("part_exceptions") or {}).items():
                    category, cause = classify(exc, c["test"], c.get("complex", False))
                    cause = f"[{name}] {cause}"
                    note(category, cause, None, _example(c["test"], c, exc), checks=1)
                    first_failed_check.setdefault(c["test"], (category, cause))
                    break
        for r in results:
            test = r["test"]
            if r["when"] == "collect" and r["outcome"] == "error":
                category, cause = classify_collection_error(r.get("message", ""))
                note(category, cause, test, _example(test, None, None, r.get("message", "")))
            elif (r["outcome"] == "exception" and r["when"] != "collect"
                  and outcomes.get(test) in ("failed", "error")):
                if test in first_failed_check:
                    category, cause = first_failed_check[test]
                else:
                    category, cause = classify(r["exception"], test)
                note(category, cause, test, causes.get(cause, {}).get("example")
                     or _example(test, None, r["exception"]))
        for key in ("passed", "failed", "skipped", "error"):
            totals[key] += counts[key]
        default["checks"] += file_default[1]
        default["passed"] += file_default[0]
        files.append({"file": run["file"], "pytest_status": run["status"], "seconds": run["seconds"],
                      **{k: counts[k] for k in ("passed", "failed", "skipped", "error")},
                      "checks_run": sum(1 for c in checks if c["outcome"] != "skipped"),
                      "checks_passed": sum(1 for c in checks if c["outcome"] == "pass"),
                      "default_run": file_default[1], "default_passed": file_default[0]})
    run_checks = checks_total["pass"] + checks_total["fail"] + checks_total["error"]
    ranked = sorted(causes.items(), key=lambda kv: (-len(kv[1]["tests"]), -kv[1]["checks"], kv[0]))
    return {
        "source": source,
        "files": files,
        "tests": dict(totals),
        "checks": {"run": run_checks, "passed": checks_total["pass"],
                   "wrong": checks_total["fail"], "raised": checks_total["error"],
                   "pass_rate": round(checks_total["pass"] / run_checks, 4) if run_checks else None,
                   "skipped_entirely": checks_total["skipped"],
                   "complex_run": checks_total["complex run"],
                   "complex_passed": checks_total["complex passed"],
                   **{k: v for k, v in checks_total.items() if k.startswith("skipped part")}},
        "default_checks": {
            "run": default["checks"], "passed": default["passed"],
            "real_run": default["real_checks"], "real_passed": default["real_passed"],
            "pass_rate": round(default["passed"] / default["checks"], 4) if default["checks"] else None,
            "parts": {name: {"passed": p, "run": n} for name, (p, n) in
                      sorted(default["parts"].items(), key=lambda kv: (kv[0].count("/"), kv[0]))},
        },
        "causes": [{"cause": cause, "category": e["category"], "tests": len(e["tests"]),
                    "checks": e["checks"], "example": e["example"]} for cause, e in ranked],
    }


_PART_MEANING = {
    "fwd": "jvp (zp.jvp)",
    "rev": "vjp (zp.pullback)",
    "fwd/fwd": "jvp of the jvp function: forward over forward",
    "fwd/rev": "vjp of the jvp function: reverse over forward",
    "rev/fwd": "jvp of the vjp function: forward over reverse",
    "rev/rev": "vjp of the vjp function: reverse over reverse",
}


def to_json(summary: dict) -> str:
    return json.dumps(summary, indent=1, default=str)


def to_markdown(summary: dict, top: int = 40) -> str:
    t, c = summary["tests"], summary["checks"]
    lines = ["# autograd's test suite on zygote_py", ""]
    if summary.get("source"):
        lines += [f"Tests from `{summary['source']}`.", ""]
    rate = f"{100 * c['pass_rate']:.1f}%" if c["pass_rate"] is not None else "n/a"
    checks_line = (f"**First-order reverse gradient checks: {c['passed']} of {c['run']} pass ({rate})**; "
                   f"{c['wrong']} give a wrong gradient, {c['raised']} raise; "
                   f"with complex arguments, {c['complex_passed']} of {c['complex_run']} pass.  "
                   f"Not in this count: {c['skipped_entirely']} forward-only checks"
                   + (f"; skipped parts: {c.get('skipped part: fwd', 0)} forward-mode and "
                      f"{c.get('skipped part: rev order>1', 0)} higher-order"
                      if c.get('skipped part: fwd') or c.get('skipped part: rev order>1') else "")
                   + ".")
    d = summary.get("default_checks") or {"run": 0, "passed": 0, "pass_rate": None, "parts": {}}
    d_rate = f"{100 * d['pass_rate']:.1f}%" if d["pass_rate"] is not None else "n/a"
    default_line = (f"**Default checks (fwd+rev, order 2): {d['passed']} of {d['run']} ({d_rate})** "
                    "pass every part they ask for (autograd's check_grads: forward and reverse "
                    "mode, and the same checks of the jvp and vjp functions at order 2); "
                    f"with real arguments, {d.get('real_passed', 0)} of {d.get('real_run', 0)}.")
    parts_rows = ["| part | what it checks | passed / run |", "|---|---|---:|"]
    for name, tally in d["parts"].items():
        parts_rows.append(f"| {name} | {_PART_MEANING.get(name, 'deeper nesting')} "
                          f"| {tally['passed']} / {tally['run']} |")
    tests_line = (f"**Tests: {t.get('passed', 0)} passed, {t.get('failed', 0)} failed, "
                  f"{t.get('skipped', 0)} skipped, {t.get('error', 0)} errors.**")
    lines += [checks_line, "", default_line, "", *parts_rows, "", tests_line, "",
              "| file | passed | failed | skipped | errors | first-order rev checks passed / run "
              "| default checks passed / run |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for f in summary["files"]:
        lines.append(f"| {f['file']} | {f['passed']} | {f['failed']} | {f['skipped']} | {f['error']} "
                     f"| {f['checks_passed']} / {f['checks_run']} "
                     f"| {f.get('default_passed', 0)} / {f.get('default_run', 0)} |")
    by_category: dict[str, list[int]] = {}
    for entry in summary["causes"]:
        counts = by_category.setdefault(entry["category"], [0, 0, 0])
        counts[0] += 1
        counts[1] += entry["tests"]
        counts[2] += entry["checks"]
    lines += ["", "## Failures by category", "", "| category | causes | tests | checks |",
              "|---|---:|---:|---:|"]
    for category, (n, tests, checks) in sorted(by_category.items(), key=lambda kv: -kv[1][1]):
        lines.append(f"| {category} | {n} | {tests} | {checks} |")
    ranking = ("Ranked by failing tests (a test fails with the cause of its first failing check), "
               "then by failing checks.")
    lines += ["", "## Failures by cause", "", ranking, "",
              "| # | cause | tests | checks | example |", "|---:|---|---:|---:|---|"]
    for i, entry in enumerate(summary["causes"][:top], 1):
        ex = entry["example"]
        where = ex["test"] + (f" `{ex.get('function')}({ex.get('arg')})`" if ex.get("function") else "")
        cause = entry["cause"].replace("|", "\\|")
        lines.append(f"| {i} | {cause} | {entry['tests']} | {entry['checks']} | {where.replace('|', '/')} |")
    if len(summary["causes"]) > top:
        lines.append(f"\n{len(summary['causes']) - top} more causes in report.json.")
    return "\n".join(lines) + "\n"
