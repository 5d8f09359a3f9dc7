"""The command engine: what `interlock check` costs per command line, in process and as a process.

    .venv/bin/python benchmarks/bench_check.py [--sample N] [--repeat N]

Measures in the same run:
- the in-process `evaluate()` per command over the NL2Bash corpus (12,607 real one-liners),
  judged by text alone (--assume-dirty), median and p99: the warm daemon's work per command;
- on a normal install (benchmarks/common.py), interleaved, medians: the `interlock` launcher's
  `check` with the daemon warm and with no daemon (INTERLOCK_NO_DAEMON=1), against
  `python -I -S -c pass` (the floor) and `bash -c true`.
Targets: warm <= 1.5x the floor; no daemon <= 8x the floor. Each figure also in CPU time
(user + sys of the process; the warm check adds the daemon's CPU for the request), against the
floor's CPU time: the ratio a loaded machine disturbs least.
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

from common import (  # noqa: E402
    WORK,
    DaemonCpu,
    bench_env,
    cpu_note,
    installed,
    measure,
    run,
    target,
)

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
    daemon = DaemonCpu(repo)
    try:
        got = measure(
            {
                "floor": lambda: run([str(python), "-I", "-S", "-c", "pass"], repo, env),
                "bash": lambda: run(["bash", "-c", "true"], repo, env),
                "warm": lambda: daemon.around(lambda: run(check, repo, env)),
                "cold": lambda: run(check, repo, cold_env),
            },
            repeat,
        )
        served = subprocess.run(
            [str(launcher), "daemon", "status", "--json"], cwd=repo, env=env, capture_output=True
        ).stdout
    finally:
        subprocess.run([str(launcher), "daemon", "stop"], cwd=repo, env=env, capture_output=True)
    floor = got["floor"]
    print("                             wall (median)      cpu (median)")
    for name, label in (
        ("floor", "python -I -S -c pass"),
        ("bash", "bash -c true"),
        ("warm", "interlock check, warm"),
        ("cold", "interlock check, no daemon"),
    ):
        wall, cpu = got[name]
        print(
            f"  {label:<26} {wall:7.1f} ms {wall / floor.wall:5.2f}x  "
            f"{cpu:7.1f} ms {cpu / floor.cpu:5.2f}x"
        )
    if b'"requests"' not in served:
        print("  (the daemon did not answer: the warm figure is not warm)")
    for name, label, limit in (("warm", "check, daemon warm", 1.5), ("cold", "check, no daemon", 8.0)):
        wall, cpu = got[name].wall / floor.wall, got[name].cpu / floor.cpu
        target(
            label,
            f"{got[name].wall:.1f} ms = {wall:.2f}x python -I -S",
            f"<= {limit:g}x",
            wall <= limit,
            cpu_note(f"{got[name].cpu:.1f} ms = {cpu:.2f}x", cpu <= limit),
        )


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
