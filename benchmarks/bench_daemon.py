"""Benchmark the daemon on generated repositories (benchmarks/.work/, ignored by git).

    .venv/bin/python benchmarks/bench_daemon.py [--files 10000,100000] [--repeat 15]

Measured in the same run, per repository size, medians in milliseconds:
- start-up: spawning the daemon until `ping` answers, and until the watcher covers the tree;
- RSS of the daemon once it watches the tree and has taken a snapshot (target <= 150 MB);
- daemon-fed snapshot with 20 changed files (socket round trip, and the daemon's own time)
  vs `git status --porcelain` (target <= 0.1x on 100k files and <= 10 ms);
- `check` round trip: the socket request from a warm Python process (target <= 10 ms), and
  the whole `python -m interlock check` process vs a plain `bash -c true` spawn.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interlock.daemon import client  # noqa: E402
from interlock.git import RepoLocation, discover  # noqa: E402

WORK = ROOT / "benchmarks" / ".work"
ENV = {**os.environ, "INTERLOCK_DAEMON_IDLE": "900", "GIT_CONFIG_NOSYSTEM": "1"}
ENV.pop("INTERLOCK_NO_DAEMON", None)


def git(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, check=True, env=ENV)


def generate(files: int) -> Path:
    """A committed repository of `files` files, 100 per directory, two levels deep."""
    repo = WORK / f"daemon-{files}"
    if (repo / ".bench-ready").exists():
        return repo
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q")
    for i in range(files):
        path = repo / f"d{i // 10000:02d}" / f"s{i // 100:04d}" / f"f{i:06d}.txt"
        if i % 100 == 0:
            path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"file {i}\n" * 3)
    git(repo, "add", "-A")
    ident = ["-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    git(repo, *ident, "commit", "-q", "-m", "generated")
    (repo / ".git" / "info" / "exclude").write_text(".bench-ready\n")
    (repo / ".bench-ready").write_text("ok\n")
    return repo


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def wait(predicate: Callable[[], object], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit("timed out waiting for the daemon")
        time.sleep(0.005)


def stop(repo: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "interlock", "daemon", "stop"],
        cwd=repo,
        env=ENV,
        capture_output=True,
    )


def reset_state(repo: Path, loc: RepoLocation) -> None:
    """No daemon, no interlock refs or state from an earlier run; worktree back to HEAD."""
    stop(repo)
    refs = git(repo, "for-each-ref", "--format=%(refname)", "refs/interlock/").stdout.split()
    if refs:
        script = b"".join(b"delete " + r + b"\n" for r in refs)
        subprocess.run(
            ["git", "update-ref", "--stdin"], cwd=repo, input=script, check=True, env=ENV
        )
    subprocess.run(["rm", "-rf", str(loc.state_dir)], check=True)
    git(repo, "checkout", "-q", "--", ".")


def measure_startup(repo: Path, loc: RepoLocation) -> tuple[float, float]:
    start = time.perf_counter()
    client.spawn_daemon(loc)
    wait(lambda: client.request(loc, "ping"))
    ping_ms = (time.perf_counter() - start) * 1000
    wait(lambda: (client.request(loc, "status") or {}).get("watcher") == "watching")
    return ping_ms, (time.perf_counter() - start) * 1000


def measure_snapshots(repo: Path, loc: RepoLocation, repeat: int) -> tuple[float, float, bool]:
    files = sorted(p for p in (repo / "d00").rglob("*.txt"))
    client.call(loc, "snapshot", kind="manual", message="bench base")
    round_trips, server = [], []
    fed = True
    for n in range(repeat):
        for path in random.sample(files, 20):
            with open(path, "a") as handle:
                handle.write(f"edit {n}\n")
        time.sleep(0.3)  # an agent's edits, then a pause before the next command
        start = time.perf_counter()
        reply = client.call(loc, "snapshot", kind="manual", message=f"bench {n}") or {}
        round_trips.append((time.perf_counter() - start) * 1000)
        server.append(float(reply.get("ms", 0)))
        fed = fed and bool(reply.get("fed"))
    return statistics.median(round_trips), statistics.median(server), fed


def measure_check(repo: Path, loc: RepoLocation, repeat: int) -> dict[str, float | str]:
    env = client.check_env(os.environ)

    def check(command: str) -> dict[str, object] | None:
        return client.request(loc, "check", command=command, cwd=str(repo), env=env)

    probe = check("ls -la")
    if not probe or not probe.get("ok"):
        return {"error": str((probe or {}).get("error", "no reply"))}
    socket_ms = median_ms(lambda: check("ls -la"), repeat * 2)
    argv = [sys.executable, "-m", "interlock", "check", "ls -la"]
    process_ms = median_ms(
        lambda: subprocess.run(argv, cwd=repo, env=ENV, capture_output=True), repeat
    )
    python_ms = median_ms(lambda: subprocess.run([sys.executable, "-c", "pass"], env=ENV), repeat)
    bash_ms = median_ms(lambda: subprocess.run(["bash", "-c", "true"], capture_output=True), repeat)
    check("git checkout -- .")  # a discard: from now on the daemon keeps the facts warm
    wait(lambda: (check("git checkout -- .") or {}).get("facts") == "warm")
    discard_ms = median_ms(lambda: check("git checkout -- ."), repeat * 2)
    return {
        "socket": socket_ms,
        "discard": discard_ms,
        "process": process_ms,
        "python": python_ms,
        "bash": bash_ms,
    }


def bench(files: int, repeat: int) -> None:
    repo = generate(files)
    loc = discover(repo)
    assert loc is not None
    reset_state(repo, loc)
    try:
        ping_ms, watch_ms = measure_startup(repo, loc)
        snap_ms, snap_server_ms, fed = measure_snapshots(repo, loc, repeat)
        status_ms = median_ms(lambda: git(repo, "status", "--porcelain"), repeat)
        rss = (client.request(loc, "status") or {}).get("rss", 0) / 1e6
        check = measure_check(repo, loc, repeat)
    finally:
        stop(repo)
        git(repo, "checkout", "-q", "--", ".")
    print(f"\n== {files} files ==")
    print(f"start-up until ping:          {ping_ms:9.1f} ms")
    print(f"start-up until tree watched:  {watch_ms:9.1f} ms")
    print(f"daemon RSS:                   {rss:9.1f} MB   (target <= 150)")
    print(f"git status --porcelain:       {status_ms:9.2f} ms")
    print(
        f"daemon-fed snapshot, 20 paths:{snap_ms:9.2f} ms   round trip; {snap_server_ms:.2f} ms in the daemon"
    )
    print(
        f"  ratio to git status:        {snap_ms / status_ms:9.3f}x   (target <= 0.1x, <= 10 ms){'' if fed else '  NOT FED'}"
    )
    if "error" in check:
        print(f"check round trip:             unavailable ({check['error']})")
        return
    print(f"check over the socket:        {check['socket']:9.2f} ms   (target <= 10 ms)")
    print(f"python -m interlock check:    {check['process']:9.2f} ms")
    print(f"python -c pass:               {check['python']:9.2f} ms")
    print(f"bash -c true:                 {check['bash']:9.2f} ms")
    print(f"  process ratio to bash:      {float(check['process']) / float(check['bash']):9.1f}x")
    print(f"check of a discard, warm facts:{check['discard']:8.2f} ms   (over the socket)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--files", default="10000,100000", help="comma-separated repo sizes")
    parser.add_argument("--repeat", type=int, default=15, help="samples per measurement")
    args = parser.parse_args()
    random.seed(1)
    for files in (int(f) for f in args.files.split(",")):
        bench(files, args.repeat)


if __name__ == "__main__":
    main()
