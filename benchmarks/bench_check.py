"""The command engine: what `interlock check` costs per command line, in process and as a process.

    .venv/bin/python benchmarks/bench_check.py [--sample N] [--repeat N]

Measures in the same run:
- the in-process `evaluate()` per command over the NL2Bash corpus (12,607 real one-liners),
  judged by text alone (--assume-dirty), median and p99: the warm daemon's work per command;
- on a normal install (benchmarks/common.py), interleaved, medians: the `interlock` launcher's
  `check` with the daemon warm and with no daemon (INTERLOCK_NO_DAEMON=1), against
  `python -I -S -c pass` (the floor) and `bash -c true`.
Targets: warm <= 1.5x the floor; no daemon <= 8x the floor.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from common import WORK, bench_env, installed, interleaved, run_ms, target  # noqa: E402

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


def small_repo() -> Path:
    repo = WORK / "check-repo"
    if not (repo / ".git").exists():
        (repo / "src").mkdir(parents=True, exist_ok=True)
        (repo / "src" / "app.py").write_text("print('hello')\n")
        env = bench_env()
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True, env=env)
        subprocess.run(["git", "add", "-A"], cwd=repo, check=True, env=env)
        subprocess.run(["git", "commit", "-qm", "init"], cwd=repo, check=True, env=env)
    return repo


def process_targets(repeat: int) -> None:
    python, launcher = installed()
    repo = small_repo()
    env, cold_env = bench_env(), bench_env(INTERLOCK_NO_DAEMON="1")
    check = [str(launcher), "check", "git status && ls -la"]
    subprocess.run([str(launcher), "daemon", "start"], cwd=repo, env=env, capture_output=True)
    try:
        got = interleaved(
            {
                "floor": lambda: run_ms([str(python), "-I", "-S", "-c", "pass"], repo, env),
                "bash": lambda: run_ms(["bash", "-c", "true"], repo, env),
                "warm": lambda: run_ms(check, repo, env),
                "cold": lambda: run_ms(check, repo, cold_env),
            },
            repeat,
        )
        served = subprocess.run(
            [str(launcher), "daemon", "status", "--json"], cwd=repo, env=env, capture_output=True
        ).stdout
    finally:
        subprocess.run([str(launcher), "daemon", "stop"], cwd=repo, env=env, capture_output=True)
    floor = got["floor"]
    print(f"  python -I -S -c pass       median {floor:7.1f} ms   (the floor)")
    print(f"  bash -c true               median {got['bash']:7.1f} ms")
    print(f"  interlock check, warm      median {got['warm']:7.1f} ms   {got['warm'] / floor:.2f}x")
    print(f"  interlock check, no daemon median {got['cold']:7.1f} ms   {got['cold'] / floor:.2f}x")
    if b'"requests"' not in served:
        print("  (the daemon did not answer: the warm figure is not warm)")
    warm, cold = got["warm"] / floor, got["cold"] / floor
    target("check, daemon warm", f"{got['warm']:.1f} ms = {warm:.2f}x python -I -S", "<= 1.5x", warm <= 1.5)
    target("check, no daemon", f"{got['cold']:.1f} ms = {cold:.2f}x python -I -S", "<= 8x", cold <= 8)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=0, help="only the first N lines (0: all)")
    parser.add_argument("--repeat", type=int, default=21, help="process runs per median")
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
    process_targets(args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
