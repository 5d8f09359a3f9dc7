"""`interlock recover` of 20 files in one call against `git restore` of the same 20 files.

    .venv/bin/python benchmarks/bench_recover.py [--files 10000] [--repeat 15]

On a generated repository of --files tracked files (default 10,000: `git restore` reads the
whole index), with a real daemon started by the normal install's launcher (benchmarks/common.py),
each round loses 20 files' recorded content (rewritten, recorded, then `git checkout --`
behind interlock's back) and brings them back:
- warm: the installed `interlock recover F1..F20`, the daemon up (the door asks the daemon);
- cold: the same with INTERLOCK_NO_DAEMON=1 (click, pygit2 and the work in the process);
- git: `git restore -- F1..F20` of the same 20 files, modified.
Rounds are interleaved; medians of wall time and of user+sys CPU (the process's own, and for
the warm path also the daemon's share, read from /proc). Target (issue 10): the warm recover
<= 3x `git restore`, wall, at the median.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import WORK, bench_env, installed, target  # noqa: E402

CHANGED = 20
# Runs in the installed Python (the daemon trusts only clients of its own build): waits until
# the recorder has caught up and has recorded at least argv[2] versions in all. Idle alone is not
# enough: right after a write, the watcher may not have passed its events on yet, so a recorder
# that has seen nothing is idle too (and a checkout right then would beat it to the files).
_WAIT_IDLE = """
import sys, time
from interlock.daemon import client
loc = client.locate(sys.argv[1])
least = int(sys.argv[2])
deadline = time.monotonic() + 300
while time.monotonic() < deadline:
    rec = (client.request(loc, "status") or {}).get("recorder") or {}
    if rec.get("idle") and rec.get("baseline_done") and rec.get("versions", 0) >= least:
        print(rec.get("versions", 0))
        sys.exit(0)
    time.sleep(0.02)
sys.exit("the recorder did not catch up in time")
"""


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env=bench_env(), check=True, capture_output=True)


def _make_repo(root: Path, n: int) -> list[str]:
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    for i in range(n):
        path = root / f"d{i % 50}" / f"f{i}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"value = {i}\n" * 20)
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    return [f"d{i % 50}/f{i}.py" for i in range(min(n, CHANGED))]  # in 20 folders


def _rewrite(root: Path, rel: list[str], tag: str) -> None:
    for name in rel:
        (root / name).write_text(f"value = {tag}\n" * 20)


def _cpu_of(pid: int) -> float:
    """user+sys seconds of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall ms, user+sys ms of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, capture_output=True)
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    python, launcher = installed()
    root = WORK / f"recover-{args.files}"
    home = WORK / "recover-home"
    env = bench_env(INTERLOCK_HOME=str(home))
    cold_env = {**env, "INTERLOCK_NO_DAEMON": "1"}
    rel = _make_repo(root, args.files)
    subprocess.run([str(launcher), "daemon", "start"], cwd=root, env=env, check=True)
    pid = int((root / ".git/interlock/daemon.pid").read_text().split()[0])

    def recorded(least: int) -> int:
        wait = [str(python), "-I", "-c", _WAIT_IDLE, str(root), str(least)]
        return int(subprocess.run(wait, env=env, check=True, capture_output=True).stdout)

    def lose(tag: str) -> None:
        before = recorded(0)
        _rewrite(root, rel, tag)
        recorded(before + len(rel))  # each file's new content is in the store
        _git(root, "checkout", "--", *rel)
        recorded(0)

    samples: dict[str, list[float]] = {}
    try:
        for r in range(args.repeat + 1):  # round 0 warms up
            lose(f"warm{r}")
            daemon_before = _cpu_of(pid)
            wall, cpu = _timed([str(launcher), "recover", *rel], root, env)
            daemon_cpu = (_cpu_of(pid) - daemon_before) * 1000
            assert (root / rel[0]).read_text() == f"value = warm{r}\n" * 20
            lose(f"cold{r}")
            cold = _timed([str(launcher), "recover", *rel], root, cold_env)
            assert (root / rel[0]).read_text() == f"value = cold{r}\n" * 20
            _rewrite(root, rel, f"git{r}")
            gits = _timed(["git", "restore", "--", *rel], root, env)
            bare = _timed([str(python), "-I", "-S", "-c", "pass"], root, env)
            if r == 0:
                continue
            for name, value in (
                ("warm wall", wall),
                ("warm cpu", cpu),
                ("warm daemon cpu", daemon_cpu),
                ("cold wall", cold[0]),
                ("cold cpu", cold[1]),
                ("git wall", gits[0]),
                ("git cpu", gits[1]),
                ("python wall", bare[0]),
            ):
                samples.setdefault(name, []).append(value)
    finally:
        subprocess.run([str(launcher), "daemon", "stop"], cwd=root, env=env, capture_output=True)
    m = {name: statistics.median(values) for name, values in samples.items()}
    print(f"{args.files} tracked files, {CHANGED} recovered, {args.repeat} interleaved rounds")
    print(f"git restore:          {m['git wall']:7.1f} ms wall, {m['git cpu']:6.1f} ms user+sys")
    print(f"python -I -S -c pass: {m['python wall']:7.1f} ms wall")
    print(
        f"recover, daemon warm: {m['warm wall']:7.1f} ms wall, {m['warm cpu']:6.1f} ms user+sys "
        f"(+{m['warm daemon cpu']:.1f} ms in the daemon): {m['warm wall'] / m['git wall']:.1f}x "
        f"git wall, {(m['warm cpu'] + m['warm daemon cpu']) / max(m['git cpu'], 0.1):.1f}x "
        "git CPU (both processes)"
    )
    print(
        f"recover, no daemon:   {m['cold wall']:7.1f} ms wall, {m['cold cpu']:6.1f} ms user+sys: "
        f"{m['cold wall'] / m['git wall']:.1f}x git wall, "
        f"{m['cold cpu'] / max(m['git cpu'], 0.1):.1f}x git CPU"
    )
    ratio = m["warm wall"] / m["git wall"]
    target(
        "recover 20 files, daemon warm",
        f"{ratio:.1f}x git restore ({m['warm wall']:.0f} vs {m['git wall']:.0f} ms)",
        "<= 3x",
        ratio <= 3.0,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
