"""The flight recorder and recovery: `.venv/bin/python benchmarks/bench_recorder.py [--files N]`.

Measures, on a generated repository of N tracked files (default 10,000) with a real daemon:
- daemon RSS after start, after each of three bursts rewriting every file (each followed by a
  daemon-fed snapshot), and after the idle release (targets: <= 150 MB under bursts,
  <= 80 MB idle);
- the recorder's cost per 1,000 changed files: from the first write until the recorder is
  caught up, against `git hash-object -w` of the same files (git's own cost to store them);
- `interlock recover` of 20 files in one call against `git restore` of the same 20 files
  (target: a few times).
Medians of interleaved runs; numbers on a busy machine are noisy, ratios less so.
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
from pathlib import Path

from interlock.daemon import client
from interlock.git import discover


def _git(cwd: Path, *args: str, input: bytes | None = None) -> bytes:
    return subprocess.run(
        ["git", *args], cwd=cwd, input=input, capture_output=True, check=True
    ).stdout


def _make_repo(root: Path, n: int) -> list[Path]:
    _git(root, "init", "-q", "-b", "main")
    files = []
    for i in range(n):
        path = root / f"d{i % 50}" / f"f{i}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"value = {i}\n" * 20)
        files.append(path)
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "base")
    return files


def _status(loc) -> dict:
    return client.request(loc, "status") or {}


def _wait_idle(loc, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rec = _status(loc).get("recorder") or {}
        if rec.get("idle") and rec.get("baseline_done"):
            return
        time.sleep(0.02)
    raise SystemExit("the recorder did not catch up in time")


def _rewrite(files: list[Path], tag: str) -> None:
    for path in files:
        path.write_text(f"value = {tag}\n" * 20)


def bench_rss(root: Path, loc, files: list[Path], idle_wait: float) -> None:
    print(f"RSS after start:   {_status(loc)['rss'] / 1e6:6.1f} MB")
    peaks = []
    for burst in range(3):
        _rewrite(files, f"burst{burst}")
        _wait_idle(loc)
        client.call(loc, "snapshot", kind="manual")
        peaks.append(_status(loc)["rss"] / 1e6)
        print(f"RSS after burst {burst + 1}: {peaks[-1]:6.1f} MB ({len(files)} paths)")
    time.sleep(idle_wait)
    idle = _status(loc)["rss"] / 1e6
    print(
        f"RSS idle ({idle_wait:.0f} s later): {idle:6.1f} MB   targets: <= 150 under bursts, <= 80 idle"
    )


def bench_recorder_cost(root: Path, loc, files: list[Path], rounds: int = 7) -> None:
    sample = files[:1000]
    ours, gits, after = [], [], []
    for r in range(rounds):
        started = time.perf_counter()
        _rewrite(sample, f"cost{r}")
        written = time.perf_counter()
        _wait_idle(loc)
        ours.append(time.perf_counter() - started)
        after.append(time.perf_counter() - written)
        _rewrite(sample, f"git{r}")
        _wait_idle(loc)
        started = time.perf_counter()
        paths = "".join(f"{p}\n" for p in sample).encode()
        _git(root, "hash-object", "-w", "--stdin-paths", input=paths)
        gits.append(time.perf_counter() - started)
    a, b, c = statistics.median(ours), statistics.median(gits), statistics.median(after)
    print(
        f"recorder, 1,000 changed files: {a * 1000:7.1f} ms (first write to caught up; "
        f"{c * 1000:.1f} ms after the last write); git hash-object -w: {b * 1000:6.1f} ms; "
        f"ratio {a / b:.1f}x ({c / b:.1f}x)"
    )


def _lose(root: Path, loc, sample: list[Path], rel: list[str], tag: str) -> None:
    _rewrite(sample, tag)
    _wait_idle(loc)
    _git(root, "checkout", "--", *rel)
    _wait_idle(loc)


def bench_recover(root: Path, loc, files: list[Path], rounds: int = 9) -> None:
    """A whole `interlock recover` process, the same work in-process (what is left once
    Python, click and pygit2 are loaded), and `git restore` of the same 20 files."""
    import io

    from interlock import output
    from interlock.commands.recover import recover

    sample = files[:20]
    rel = [str(p.relative_to(root)) for p in sample]
    ours, inside, gits = [], [], []
    interlock = [sys.executable, "-m", "interlock"]
    for r in range(rounds):
        _lose(root, loc, sample, rel, f"precious{r}")
        started = time.perf_counter()
        subprocess.run([*interlock, "recover", *rel], cwd=root, capture_output=True, check=True)
        ours.append(time.perf_counter() - started)
        _lose(root, loc, sample, rel, f"again{r}")
        output.set_streams(io.StringIO(), io.StringIO())
        started = time.perf_counter()
        recover(rel, str(root), None, None, False, False)
        inside.append(time.perf_counter() - started)
        output.set_streams(None, None)
        started = time.perf_counter()
        _git(root, "restore", "--", *rel)
        gits.append(time.perf_counter() - started)
    a, b, c = statistics.median(ours), statistics.median(gits), statistics.median(inside)
    print(
        f"recover 20 files in one call: {a * 1000:6.1f} ms ({c * 1000:.1f} ms of it past "
        f"start-up); git restore of the same 20: {b * 1000:6.1f} ms; ratio {a / b:.1f}x "
        f"({c / b:.1f}x)"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--idle-wait", type=float, default=65.0)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-recorder-"))
    os.environ.pop("INTERLOCK_NO_DAEMON", None)
    os.environ["INTERLOCK_HOME"] = str(tmp / "home")
    os.environ["INTERLOCK_DAEMON_IDLE"] = "600"
    root = tmp / "repo"
    root.mkdir()
    try:
        files = _make_repo(root, args.files)
        loc = discover(root)
        client.spawn_daemon(loc)
        time.sleep(0.5)
        _wait_idle(loc, timeout=120)
        bench_recorder_cost(root, loc, files)
        bench_recover(root, loc, files)
        bench_rss(root, loc, files, args.idle_wait)
        client.request(loc, "stop")
    finally:
        time.sleep(1)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
