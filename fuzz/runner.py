"""Run many random programs, tally the outcomes, shrink and write the failures.

`run(seed, count, jobs)` generates programs `(seed, 0..count-1)`, classifies
each (in `jobs` worker processes), groups the failures by signature, shrinks
a few examples of each group and returns a `Report`; `summary(report)` prints
it as tables and `write_failures(report, out)` writes every distinct shrunk
failure as a small pytest module (see docs/fuzzing.md).
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import re
import shutil
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from .oracle import FAILURES, OK, REFUSED, SKIPPED, Outcome, classify_source
from .program import generate
from .shrink import shrink

CONSTRUCTS = (
    "expressions",
    "broadcasting",
    "reductions",
    "indexing",
    "control_flow",
    "helpers",
    "closures",
    "comprehensions",
    "containers",
    "iterators",
    "objects",
    "globals",
    "mutation",
    "array_writes",
    "built_objects",
    "closure_forms",
    "dict_list_ops",
    "iterator_builtins",
    "while_break",
    "overflow_products",
)
EXCLUDED = "excluded"  # skipped by --exclude
COLUMNS = (
    OK,
    REFUSED,
    "wrong_gradient",
    "wrong_primal",
    "internal_error",
    "invalid",
    "unstable",
    EXCLUDED,
)

_WORKDIR: list[str] = []  # the temp folder of this worker process


@dataclass
class Result:
    index: int
    outcome: Outcome
    constructs: tuple
    source: str


@dataclass
class Failure:
    """One distinct failure: a signature, how often it was seen, a shrunk program."""

    outcome: Outcome
    indices: list = field(default_factory=list)
    shrunk: str = ""
    checks: int = 0
    example: int = -1  # the program that was shrunk


@dataclass
class Report:
    seed: int
    results: list
    failures: list

    def counts(self) -> Counter:
        return Counter(r.outcome.kind for r in self.results)


def _workdir() -> str:
    if not _WORKDIR:
        _WORKDIR.append(tempfile.mkdtemp(prefix="zpfuzz-"))
    return _WORKDIR[0]


def run_program(task: tuple) -> Result:
    seed, index, timeout, exclude = task
    program = generate(seed, index)
    hit = next((text for text in exclude if text in program.source), None)
    if hit is not None:  # a known defect's pattern: not run, so new defects show
        return Result(index, Outcome(EXCLUDED, hit), tuple(sorted(program.constructs)), "")
    outcome = classify_source(program.source, _workdir(), timeout, stem=f"s{seed}_{index}")
    return Result(index, outcome, tuple(sorted(program.constructs)), program.source)


def shrink_failure(task: tuple) -> tuple[str, int, Outcome]:
    """The shrunk program, the checks it took, and its own outcome (same kind
    and signature as the original; the detail names the shrunk program's numbers)."""
    source, outcome, timeout, max_checks = task

    def classify(text: str) -> Outcome:
        return classify_source(text, _workdir(), timeout, "shrink")

    text, checks = shrink(source, outcome, classify, max_checks=max_checks)
    return text, checks, classify(text)


def _map(fn, tasks, jobs, label=""):
    """fn over tasks, in order; progress on stderr every 10%."""
    step = max(1, len(tasks) // 10)
    out = []
    if jobs <= 1:
        results = map(fn, tasks)
        pool = None
    else:
        pool = multiprocessing.get_context("fork").Pool(jobs)
        results = pool.imap(fn, tasks, chunksize=1 if fn is shrink_failure else 4)
    try:
        for n, r in enumerate(results, 1):
            out.append(r)
            if label and (n % step == 0 or n == len(tasks)):
                print(f"{label}: {n}/{len(tasks)}", file=sys.stderr, flush=True)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return out


def run(
    seed: int,
    count: int,
    jobs: int = 1,
    start: int = 0,
    timeout: float = 30.0,
    shrink_examples: int = 2,
    max_checks: int = 300,
    exclude: tuple = (),
) -> Report:
    """Classify programs start..start+count-1 of `seed`; shrink up to
    `shrink_examples` programs per failure signature (0: no shrinking).
    Programs whose source contains a string of `exclude` are not run."""
    tasks = [(seed, i, timeout, tuple(exclude)) for i in range(start, start + count)]
    results = sorted(_map(run_program, tasks, jobs, "programs"), key=lambda r: r.index)
    groups: dict[tuple, list[Result]] = defaultdict(list)
    for r in results:
        if r.outcome.failed:
            groups[r.outcome.kind, r.outcome.signature].append(r)
    shrink_tasks, owners = [], []
    for key, members in groups.items():
        # "wrong_gradient: value" may hide several defects: shrink more of them
        n = shrink_examples if key[0] == "internal_error" else 4 * shrink_examples
        for r in members[:n]:
            shrink_tasks.append((r.source, r.outcome, timeout, max_checks))
            owners.append((key, r))
    shrunk = _map(shrink_failure, shrink_tasks, jobs, "shrunk") if shrink_examples else []
    failures, seen_text = [], set()
    for key, members in groups.items():
        picks = [(s, r) for (k, r), s in zip(owners, shrunk) if k == key]
        if not picks:
            failures.append(
                Failure(members[0].outcome, [m.index for m in members], members[0].source)
            )
            continue
        for (text, checks, shrunk_outcome), r in picks:
            if text in seen_text:
                continue
            seen_text.add(text)
            same = shrunk_outcome.signature == r.outcome.signature
            outcome = shrunk_outcome if same else r.outcome
            failures.append(Failure(outcome, [m.index for m in members], text, checks, r.index))
    for d in _WORKDIR:
        shutil.rmtree(d, ignore_errors=True)
    _WORKDIR.clear()
    return Report(seed, results, failures)


def summary(report: Report) -> str:
    counts = report.counts()
    total = len(report.results)
    lines = [f"seed {report.seed}: {total} programs", ""]
    lines.append(f"{'outcome':<16}{'count':>8}{'share':>9}")
    for kind in COLUMNS:
        lines.append(
            f"{kind:<16}{counts.get(kind, 0):>8}{counts.get(kind, 0) / max(total, 1):>9.1%}"
        )
    lines += ["", "per construct (programs that use it):"]
    header = f"{'construct':<16}" + "".join(f"{c[:10]:>11}" for c in COLUMNS)
    lines.append(header)
    for construct in CONSTRUCTS:
        row = Counter(r.outcome.kind for r in report.results if construct in r.constructs)
        lines.append(f"{construct:<16}" + "".join(f"{row.get(c, 0):>11}" for c in COLUMNS))
    forward = Counter(note for r in report.results for note in r.outcome.forward)
    if forward:  # forward_oracle.py: jvp and Hessian checks after a right gradient
        lines += ["", "forward mode and Hessians (programs whose gradient was right):"]
        for what in ("jvp", "hessian"):
            row = {k: forward.get(f"{what} {k}", 0) for k in ("ok", "refused", "failed", "skipped")}
            lines.append(f"{what:<16}" + "".join(f"{k} {n:<8}" for k, n in row.items()))
        refused = Counter({k: n for k, n in forward.items() if k.startswith("refusal: ")})
        lines += [f"{n:>6}  {sig[len('refusal: '):]}" for sig, n in refused.most_common(8)]
    refusals = Counter(r.outcome.signature for r in report.results if r.outcome.kind == REFUSED)
    if refusals:
        lines += ["", "refusals (ZygoteError), most frequent first:"]
        lines += [f"{n:>6}  {sig}" for sig, n in refusals.most_common(10)]
    if report.failures:
        lines += ["", "distinct failures (shrunk):"]
        for k, fail in enumerate(report.failures):
            lines.append(
                f"[{k}] {fail.outcome.kind}: {fail.outcome.signature} "
                f"({len(fail.indices)} programs, e.g. #{fail.indices[0]})"
            )
    skipped = sum(counts.get(k, 0) for k in SKIPPED)
    lines += ["", f"failures: {sum(counts.get(k, 0) for k in FAILURES)}, skipped: {skipped}"]
    return "\n".join(lines)


def regression_module(fail: Failure, seed: int, reason: str = "", by_hand: bool = False) -> str:
    """A failure as a pytest module: the shrunk program plus a test that
    checks it against finite differences, xfail(strict) while it fails.
    `reason` says what is wrong (default: the outcome's signature); `by_hand`
    notes that the program was reduced further by hand after shrinking."""
    program = "\n".join(
        line
        for line in fail.shrunk.splitlines()
        if line not in ("import math", "import numpy as np")
    )
    kind, signature = fail.outcome.kind, fail.outcome.signature
    if not reason:
        reason = signature if signature.startswith(kind) else f"{kind}: {signature}"
    reason = reason.replace('"', "'")
    detail = "\n".join("    " + line for line in fail.outcome.detail.strip().splitlines()[-8:])
    detail = detail.replace('"""', "'''").replace("\\", "/")
    detail = re.sub(r'File "[^"]*?/zygote_py/', 'File "zygote_py/', detail)  # no local paths
    detail = re.sub(r"[^\s\"']*_zpfuzz_\w+\.py", "program.py", detail)
    imports = "import math\n\n" if "math." in program else ""
    imports += "import numpy as np\n" if "np." in program else ""
    if by_hand:
        origin = (
            f"reduced by hand from a shrunk failure of `python -m fuzz --seed {seed}`\n"
            f"({len(fail.indices)} programs of that run failed with this signature, "
            f"e.g. #{fail.indices[0]})."
        )
    else:
        example = fail.example if fail.example >= 0 else fail.indices[0]
        origin = (
            f"shrunk from program #{example} of `python -m fuzz --seed {seed}`\n"
            f"({len(fail.indices)} programs of that run failed this way)."
        )
    return f'''"""Fuzz regression ({kind}), {origin}

What zygote_py did:
{detail}
"""

{imports}import pytest

from fuzz.oracle import assert_correct


{program.strip()}


@pytest.mark.xfail(strict=True, reason="{reason}")
def test_fuzz_regression():
    assert_correct(f, make_args())
'''


def write_failures(report: Report, out: str) -> list[str]:
    os.makedirs(out, exist_ok=True)
    paths = []
    for fail in report.failures:
        digest = hashlib.sha1(fail.shrunk.encode()).hexdigest()[:8]
        path = os.path.join(out, f"test_fuzz_{fail.outcome.kind}_{digest}.py")
        with open(path, "w") as fh:
            fh.write(regression_module(fail, report.seed))
        paths.append(path)
    return paths
