"""Command line: `python -m fuzz --seed S --count N [--jobs J] [--out DIR]`.

Prints the outcome table (overall and per construct), the most frequent
refusals and the distinct shrunk failures; with --out, writes each shrunk
failure as a pytest module (docs/fuzzing.md).  Exits 1 when a program failed.
"""

from __future__ import annotations

import argparse
import sys
import time

from .runner import run, summary, write_failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0, help="which programs (default 0)")
    parser.add_argument("--count", type=int, default=200, help="how many programs (default 200)")
    parser.add_argument("--start", type=int, default=0, help="index of the first program")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--out", help="folder for the shrunk failures (pytest modules)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per program")
    parser.add_argument(
        "--shrink-examples",
        type=int,
        default=2,
        help="programs shrunk per failure signature (0: no shrinking)",
    )
    parser.add_argument(
        "--max-checks",
        type=int,
        default=300,
        help="candidate programs the shrinker may try per failure",
    )
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="TEXT",
        help="skip programs whose source contains TEXT (a known defect's pattern); repeatable",
    )
    parser.add_argument(
        "--show", type=int, metavar="INDEX", help="print program INDEX of the seed and exit"
    )
    args = parser.parse_args(argv)
    if args.show is not None:
        from .program import generate

        print(generate(args.seed, args.show).source)
        return 0
    began = time.monotonic()
    report = run(
        args.seed,
        args.count,
        args.jobs,
        args.start,
        args.timeout,
        args.shrink_examples,
        args.max_checks,
        tuple(args.exclude),
    )
    print(summary(report))
    if args.out:
        for path in write_failures(report, args.out):
            print("wrote", path)
    print(f"({time.monotonic() - began:.0f} s)")
    return 1 if any(r.outcome.failed for r in report.results) else 0


if __name__ == "__main__":
    sys.exit(main())
