"""The command engine: what `interlock check` costs per command line.

    .venv/bin/python benchmarks/bench_check.py [--sample N] [--repeat N]

Measures in the same run, on the NL2Bash corpus (12,607 real one-liners):
- the in-process `evaluate()` per command, judged by text alone (--assume-dirty), median and
  p99 - the work the warm daemon does per agent command;
- a whole `interlock check` process (no daemon) vs a `bash -c true` process, medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interlock.engine.check import evaluate  # noqa: E402


def corpus_dir() -> Path:
    """The shared corpus as the tests find it: `../shared/corpus` next to the checkout when it
    is there, else the copy kept in tests/corpus/shared."""
    sibling = ROOT.parent / "shared" / "corpus"
    if (sibling / "commands.jsonl").exists():
        return sibling
    return ROOT / "tests" / "corpus" / "shared"


def per_command_ms(lines: list[str]) -> list[float]:
    times = []
    for line in lines:
        started = time.perf_counter()
        evaluate(line, "/", mode="blocking", assume_dirty=True)
        times.append((time.perf_counter() - started) * 1000)
    return times


def process_ms(argv: list[str], repeat: int, env: dict[str, str]) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(argv, capture_output=True, env=env)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=0, help="only the first N lines (0: all)")
    parser.add_argument("--repeat", type=int, default=15, help="process runs per median")
    args = parser.parse_args()
    lines = [x for x in (corpus_dir() / "nl2bash.txt").read_text().split("\n") if x.strip()]
    if args.sample:
        lines = lines[: args.sample]
    evaluate("true", "/")  # imports and caches out of the measurement
    times = per_command_ms(lines)
    median = statistics.median(times)
    p99 = statistics.quantiles(times, n=100)[98]
    print(f"nl2bash: {len(lines)} command lines")
    print(f"  evaluate() in-process     median {median:7.3f} ms   p99 {p99:7.3f} ms")
    env = {**os.environ, "INTERLOCK_NO_DAEMON": "1"}
    check = process_ms(
        [sys.executable, "-m", "interlock", "check", "--assume-dirty", "git reset --hard"],
        args.repeat,
        env,
    )
    true = process_ms(["bash", "-c", "true"], args.repeat, env)
    python = process_ms([sys.executable, "-c", "pass"], args.repeat, env)
    print(f"  interlock check process    median {check:7.1f} ms   (no daemon)")
    print(f"  python -c pass process     median {python:7.1f} ms")
    print(f"  bash -c true process       median {true:7.1f} ms   ratio {check / true:5.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
