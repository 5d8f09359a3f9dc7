"""Pre-commit hook overhead: `git commit` of a clean change with interlock's hooks installed vs
the same commit in an identical repository without hooks, in the same run.

    .venv/bin/python benchmarks/bench_hooks.py [--repeat 30] [--files 200]

A clean commit changes one source file and no validator definition, so the audit finds
nothing. The two repositories are committed to alternately, so drift in machine load hits
both. Target: the median difference is at most 50 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_MS = 50.0


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def make_repo(root: Path, name: str, files: int) -> Path:
    repo = root / name
    (repo / "src").mkdir(parents=True)
    (repo / "tests").mkdir()
    git(repo, "init", "-q", "-b", "main")
    for i in range(files):
        (repo / "src" / f"mod{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
        (repo / "tests" / f"test_mod{i}.py").write_text(
            f"from src.mod{i} import f{i}\n\n\ndef test_f{i}():\n    assert f{i}(1) == {i + 1}\n"
        )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    return repo


def timed_commit(repo: Path, step: int) -> float:
    """Time `git commit` of a one-line change to a source file (no validator touched)."""
    (repo / "src" / "mod0.py").write_text(f"def f0(x):\n    return x + {step % 7}  # {step}\n")
    git(repo, "add", "src/mod0.py")
    start = time.perf_counter()
    git(repo, "commit", "-q", "-m", f"change {step}")
    return (time.perf_counter() - start) * 1000


def python_startup_ms(repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-S", "-c", "pass"], check=True)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def interlock(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "interlock", *args], capture_output=True, text=True
    )


def daemon_serves_hooks(repo: Path) -> bool:
    """True when this worktree's daemon is up and knows the `hook` op."""
    from interlock.daemon.client import request
    from interlock.git import require_repo

    reply = request(require_repo(repo), "hook", name="-", cwd=str(repo))
    return reply is not None and reply.get("kind") != "usage"


def compare(plain: Path, hooked: Path, repeat: int, first: int) -> tuple[list[float], list[float]]:
    """Alternate commits in the two repositories; returns (no hooks, with hooks) times in ms."""
    bare, with_hooks = [], []
    for step in range(first, first + repeat):
        bare.append(timed_commit(plain, step))
        with_hooks.append(timed_commit(hooked, step))
    return bare, with_hooks


def report(label: str, bare: list[float], with_hooks: list[float]) -> None:
    bare_ms, hooked_ms = statistics.median(bare), statistics.median(with_hooks)
    over = hooked_ms - bare_ms
    verdict = "met" if over <= TARGET_MS else "MISSED"
    print(f"{label}:")
    print(f"  git commit, no hooks          median {bare_ms:7.1f} ms  ({len(bare)} commits)")
    print(f"  git commit, interlock hooks   median {hooked_ms:7.1f} ms")
    print(
        f"  overhead                             {over:7.1f} ms  (target <= {TARGET_MS:.0f} ms: {verdict})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--files", type=int, default=200, help="source and test files per repo")
    args = parser.parse_args(argv)
    os.environ.update(
        {
            "GIT_AUTHOR_NAME": "bench",
            "GIT_AUTHOR_EMAIL": "bench@example.com",
            "GIT_COMMITTER_NAME": "bench",
            "GIT_COMMITTER_EMAIL": "bench@example.com",
            "GIT_CONFIG_NOSYSTEM": "1",
        }
    )
    with tempfile.TemporaryDirectory(prefix="interlock-bench-hooks-") as scratch:
        root = Path(scratch)
        os.environ["INTERLOCK_HOME"] = str(root / "home")
        plain = make_repo(root, "plain", args.files)
        hooked = make_repo(root, "hooked", args.files)
        interlock("install", "--cwd", str(hooked)).check_returncode()
        print(f"repositories of {args.files * 2} files; a clean commit changes one source file")
        os.environ["INTERLOCK_NO_DAEMON"] = "1"
        for step in range(3):  # warm the page cache and git's own files
            timed_commit(plain, step)
            timed_commit(hooked, step)
        report("in-process (no daemon)", *compare(plain, hooked, args.repeat, 3))
        del os.environ["INTERLOCK_NO_DAEMON"]
        interlock("daemon", "start", "--cwd", str(hooked))
        try:
            served = daemon_serves_hooks(hooked)
            if served:
                timed_commit(hooked, 1000)  # the daemon loads the audit once
                report("daemon warm", *compare(plain, hooked, args.repeat, 1001))
        finally:
            interlock("daemon", "stop", "--cwd", str(hooked))
        if not served:
            print("daemon warm: the daemon did not answer the `hook` op; nothing measured")
        print(f"for scale: python -S -c pass median {python_startup_ms(10):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
