"""Benchmark snapshots and restores against git itself, on generated repositories.

    .venv/bin/python benchmarks/bench_snapshot.py [--files 10000,100000] [--repeat N]

Repositories (nested directories, one commit) are generated once under benchmarks/.work/ and
reused. Every measurement is a median over --repeat runs, taken in the same run as git's:
- cold (status-driven) snapshot vs `git status --porcelain` (target <= 1.3x) and vs
  `git add -A` + `git write-tree` into a temporary index;
- incremental snapshot of ~20 changed paths, as the daemon takes it (in-process, warm) vs
  `git status --porcelain` (target <= 0.1x on 100k files and <= 10 ms);
- restore of 20 paths vs `git restore` of the same 20 paths (target <= 3x and <= 50 ms),
  in-process (the daemon's path) and through a fresh `interlock restore` process;
- on a normal install (benchmarks/common.py), `interlock snapshot` as a whole process with the
  daemon warm (target <= 0.15x `git status` at 100k files) and with no daemon (<= 1.3x).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (  # noqa: E402
    DaemonCpu,
    Sample,
    bench_env,
    cpu_note,
    installed,
    measure,
    run,
    run_ms,
    target,
)

from interlock.git import RepoLocation, discover  # noqa: E402
from interlock.memory.restore import restore_snapshot  # noqa: E402
from interlock.memory.snapshot import take_snapshot  # noqa: E402

WORK = Path(__file__).resolve().parent / ".work"
CHANGED = 20
GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "INTERLOCK_NO_DAEMON": "1",
}


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> None:
    subprocess.run(["git", *args], cwd=repo, env=env or GIT_ENV, check=True, capture_output=True)


def file_path(i: int) -> str:
    return f"d{i // 1000:03}/s{(i // 100) % 10}/f{i:06}.py"


def generate(files: int) -> Path:
    """A repository of `files` small files in nested directories, committed (cached)."""
    repo = WORK / f"repo-{files}"
    if (repo / ".generated").exists():
        return repo
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    for i in range(files):
        path = repo / file_path(i)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# file {i}\nVALUE = {i}\n")
    (repo / ".gitignore").write_text("__pycache__/\n*.log\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "generated")
    git(repo, "status")  # settle the index's stat data
    (repo / ".generated").write_text("ok\n")
    return repo


def median_ms(
    fn: Callable[[], object], repeat: int, setup: Callable[[], object] | None = None
) -> float:
    times = []
    for _ in range(repeat + 1):  # the first run warms caches and is dropped
        if setup is not None:
            setup()
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times[1:])


def touch_paths(repo: Path, paths: list[str], tag: str) -> None:
    for rel in paths:
        (repo / rel).write_text(f"# edited {tag} {time.perf_counter_ns()}\n")


def git_status(repo: Path) -> None:
    subprocess.run(
        ["git", "status", "--porcelain"], cwd=repo, env=GIT_ENV, check=True, capture_output=True
    )


def git_add_all_temp_index(repo: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        index = os.path.join(tmp, "index")
        shutil.copyfile(repo / ".git" / "index", index)
        env = {**GIT_ENV, "GIT_INDEX_FILE": index}
        git(repo, "add", "-A", env=env)
        git(repo, "write-tree", env=env)


def bench_repo(files: int, repeat: int) -> list[tuple[str, float, str]]:
    repo = generate(files)
    loc: RepoLocation | None = discover(repo)
    assert loc is not None
    paths = [file_path(i * (files // CHANGED)) for i in range(CHANGED)]
    (repo / "untracked-notes.txt").write_text("notes\n")
    touch_paths(repo, paths, "start")
    rows: list[tuple[str, float, str]] = []

    status = median_ms(lambda: git_status(repo), repeat)
    cold = median_ms(lambda: take_snapshot(loc), repeat)
    add_all = median_ms(lambda: git_add_all_temp_index(repo), repeat)
    rows.append(("git status --porcelain", status, ""))
    rows.append(("cold snapshot", cold, f"{cold / status:.2f}x status (target <= 1.3x)"))
    rows.append(
        ("git add -A + write-tree, temp index", add_all, f"snapshot = {cold / add_all:.2f}x")
    )

    state = {"base": take_snapshot(loc).oid, "n": 0}

    def edit() -> None:
        state["n"] += 1
        touch_paths(repo, paths, f"inc{state['n']}")

    def incremental() -> None:
        state["base"] = take_snapshot(loc, changed=paths, base=state["base"]).oid

    inc = median_ms(incremental, repeat, setup=edit)
    rows.append(
        (
            f"incremental snapshot, {CHANGED} paths",
            inc,
            f"{inc / status:.3f}x status (target <= 0.1x, <= 10 ms)",
        )
    )

    clean = take_snapshot(loc, changed=paths, base=state["base"])
    restore = median_ms(lambda: restore_snapshot(loc, clean.id, paths=paths), repeat, setup=edit)
    git_restore_ms = median_ms(
        lambda: git(repo, "restore", "--", *paths),
        repeat,
        setup=lambda: touch_paths(repo, paths, "g"),
    )
    cli = [sys.executable, "-m", "interlock", "restore", clean.id, "--paths", *paths]
    restore_cli = median_ms(
        lambda: subprocess.run(cli, cwd=repo, env=GIT_ENV, check=True, capture_output=True),
        repeat,
        setup=edit,
    )
    rows.append((f"git restore, {CHANGED} paths", git_restore_ms, ""))
    rows.append(
        (
            f"restore {CHANGED} paths, in-process",
            restore,
            f"{restore / git_restore_ms:.2f}x git restore (target <= 3x, <= 50 ms)",
        )
    )
    rows.append(
        (
            f"restore {CHANGED} paths, interlock process",
            restore_cli,
            f"{restore_cli / git_restore_ms:.2f}x git restore",
        )
    )
    git(repo, "restore", "--", *paths)
    (repo / "untracked-notes.txt").unlink()
    return rows


def process_targets(files: int, repeat: int) -> None:
    """`interlock snapshot` as a whole process on a normal install: warm (the daemon up, 20
    paths changed since its last snapshot) and cold (no daemon), vs `git status`."""
    _, launcher = installed()
    repo = generate(files)
    paths = [file_path(i * (files // CHANGED)) for i in range(CHANGED)]
    env, cold_env = bench_env(), bench_env(INTERLOCK_NO_DAEMON="1")
    snap = [str(launcher), "snapshot"]
    subprocess.run([str(launcher), "daemon", "start"], cwd=repo, env=env, capture_output=True)
    count = {"n": 0}
    daemon = DaemonCpu(repo)

    def warm() -> Sample:
        count["n"] += 1
        touch_paths(repo, paths, f"w{count['n']}")
        time.sleep(0.2)  # an agent's edits, then its next command
        return daemon.around(lambda: run(snap, repo, env))

    try:
        run_ms(snap, repo, env)  # the daemon's first snapshot is its base
        got = measure(
            {
                "status": lambda: run(["git", "status", "--porcelain"], repo, env),
                "warm": warm,
                "cold": lambda: run(snap, repo, cold_env),
            },
            repeat,
        )
    finally:
        subprocess.run([str(launcher), "daemon", "stop"], cwd=repo, env=env, capture_output=True)
        git(repo, "restore", "--", *paths)
    status = got["status"]
    for name, label in (("warm", "process, daemon warm"), ("cold", "process, no daemon ")):
        print(
            f"  interlock snapshot {label} {got[name].wall:9.1f} ms   "
            f"cpu {got[name].cpu:8.1f} ms (the warm one with the daemon's share)"
        )
    print(
        f"  git status --porcelain                  {status.wall:9.1f} ms   cpu {status.cpu:8.1f} ms"
    )
    for name, label, limit in (("warm", "daemon warm", 0.15), ("cold", "no daemon", 1.3)):
        wall_x, cpu_x = got[name].wall / status.wall, got[name].cpu / status.cpu
        target(
            f"snapshot, {label}, {files} files",
            f"{got[name].wall:.1f} ms = {wall_x:.3f}x git status",
            f"<= {limit}x",
            wall_x <= limit,
            cpu_note(f"{got[name].cpu:.1f} ms = {cpu_x:.3f}x", cpu_x <= limit),
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", default="10000,100000", help="comma-separated repo sizes")
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement (median)")
    parser.add_argument(
        "--process-files", type=int, default=100000, help="repo size for the process targets"
    )
    args = parser.parse_args()
    runs = 2 * args.repeat + 1
    print(f"\n== snapshot processes, {args.process_files} files (median of {runs}) ==")
    process_targets(args.process_files, runs)
    for files in (int(n) for n in args.files.split(",")):
        print(f"\n== {files} files (median of {args.repeat}) ==")
        for name, ms, note in bench_repo(files, args.repeat):
            print(f"  {name:<42} {ms:9.1f} ms   {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
