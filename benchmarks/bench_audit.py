"""Benchmark `interlock audit` on a generated Python project (benchmarks/.work/, ignored by git).

    .venv/bin/python benchmarks/bench_audit.py [--tests 500] [--files 100000] [--changed 20]

The project has `--tests` test files (8 tests each, with a conftest, pytest.ini and source
modules) among `--files` files in all (the rest is plain data in nested folders);
`--changed` test files are edited in the worktree (half weakened, half reformatted, one
deleted, one new conftest hook). Measured in the same run on a normal install
(benchmarks/common.py), interleaved, medians in milliseconds:
- `interlock audit --json` as a whole process (target <= 300 ms for a 20-file change at 100k
  files), the CLI's own start-up (`interlock --version`) for comparison, and the in-process
  `audit_worktree()` call;
- `git diff --stat` and `git status --porcelain` on the same worktree.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from common import bench_env, installed, interleaved, run_ms, target  # noqa: E402

from interlock.audit import audit_worktree  # noqa: E402
from interlock.audit.pyast import module_dump, parse_module  # noqa: E402
from interlock.git import require_repo  # noqa: E402

WORK = ROOT / "benchmarks" / ".work"
ENV = {**os.environ, "INTERLOCK_NO_DAEMON": "1", "GIT_CONFIG_NOSYSTEM": "1"}
TARGET_MS = 300.0

TEST_FILE = """import pytest

from pkg.mod{m} import compute


class TestCompute{i}:
    def test_add(self):
        assert compute(1, 2) == 3

    def test_zero(self):
        assert compute(0, 0) == 0


def test_negative_{i}():
    assert compute(-1, -2) == -3


def test_raises_{i}():
    with pytest.raises(TypeError, match="unsupported"):
        compute(None, 1)


@pytest.mark.parametrize("a, b, want", [(1, 1, 2), (2, 3, 5), (10, -1, 9)])
def test_table_{i}(a, b, want):
    assert compute(a, b) == want


def test_approx_{i}():
    assert compute(0.1, 0.2) == pytest.approx(0.3)


def test_many_{i}():
    for a in range(3):
        assert compute(a, 0) == a


def test_str_{i}():
    assert str(compute(1, 1)) == "2"
"""


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, capture_output=True, check=True, env=ENV)


def generate(tests: int, changed: int, files: int) -> Path:
    """A committed project with `tests` test files among `files` files (made once, kept),
    then `changed` test files edited in the worktree (again on every run)."""
    repo = WORK / f"audit-{tests}-{files}"
    if not (repo / ".bench-ready").exists():
        shutil.rmtree(repo, ignore_errors=True)
        _make_project(repo, tests, files)
    git(repo, "checkout", "-q", "--", ".")
    git(repo, "clean", "-qfd", "--", "tests")
    for n, i in enumerate(range(0, tests, max(1, tests // changed))):
        if n >= changed:
            break
        path = repo / "tests" / f"test_t{i:04d}.py"
        text = path.read_text()
        if n == 0:
            path.unlink()
        elif n == 1:
            (repo / "tests" / "conftest.py").write_text(
                (repo / "tests" / "conftest.py").read_text()
                + "\n\ndef pytest_sessionfinish(session):\n    session.exitstatus = 0\n"
            )
        elif n % 2:
            path.write_text(text.replace("assert compute(1, 2) == 3", "assert compute(1, 2)"))
        else:
            path.write_text(text.replace("\n\n\n", "\n\n").replace('"2"', "'2'"))
    return repo


def _make_project(repo: Path, tests: int, files: int) -> None:
    (repo / "tests").mkdir(parents=True)
    (repo / "pkg").mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "pytest.ini").write_text("[pytest]\npythonpath = .\naddopts = -q\n")
    (repo / "pkg" / "__init__.py").write_text("")
    for m in range(20):
        (repo / "pkg" / f"mod{m}.py").write_text("def compute(a, b):\n    return a + b\n")
    (repo / "tests" / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.fixture\ndef two():\n    return 2\n"
    )
    for i in range(tests):
        (repo / "tests" / f"test_t{i:04d}.py").write_text(TEST_FILE.format(i=i, m=i % 20))
    for i in range(max(0, files - tests - 23)):
        path = repo / "data" / f"d{i // 10000:02d}" / f"s{i // 100:04d}" / f"f{i:06d}.txt"
        if i % 100 == 0:
            path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"row {i}\n")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=bench", "-c", "user.email=b@example.com", "commit", "-qm", "base")
    (repo / ".git" / "info" / "exclude").write_text(".bench-ready\n")
    (repo / ".bench-ready").write_text("ok\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=500)
    parser.add_argument("--files", type=int, default=100000)
    parser.add_argument("--changed", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=11)
    args = parser.parse_args()
    _, launcher = installed()
    repo = generate(args.tests, args.changed, args.files)
    loc = require_repo(repo)
    report = audit_worktree(loc)
    kinds = sorted({f.kind for f in report.findings})
    print(
        f"project: {args.files} files, {args.tests} test files, {args.changed} changed; verdict "
        f"{report.verdict}, {len(report.findings)} findings ({', '.join(kinds)})"
    )

    def cold_call() -> float:
        parse_module.cache_clear()  # as in a fresh process: no parse cached
        module_dump.cache_clear()
        started = time.perf_counter()
        audit_worktree(loc)
        return (time.perf_counter() - started) * 1000

    warm_env = bench_env()
    audit = [str(launcher), "audit", "--json"]
    subprocess.run([str(launcher), "daemon", "start"], cwd=repo, env=warm_env, capture_output=True)
    try:
        # The daemon's base: what changed since is what it re-reads (an agent's run takes
        # snapshots all the time; the edits above are in this one).
        subprocess.run([str(launcher), "snapshot"], cwd=repo, env=warm_env, capture_output=True)
        got = interleaved(
            {
                "warm": lambda: run_ms(audit, repo, warm_env),
                "audit": lambda: run_ms(audit, repo, ENV),
                "version": lambda: run_ms([str(launcher), "--version"], repo, ENV),
                "in-process": cold_call,
                "diff": lambda: run_ms(["git", "diff", "--stat"], repo, ENV),
                "status": lambda: run_ms(["git", "status", "--porcelain"], repo, ENV),
            },
            args.repeat,
        )
    finally:
        subprocess.run([str(launcher), "daemon", "stop"], cwd=repo, env=warm_env, capture_output=True)
    print(f"interlock audit (process), daemon warm: {got['warm']:7.1f} ms")
    print(f"interlock audit (process), no daemon: {got['audit']:7.1f} ms")
    print(f"  of which CLI start-up:   {got['version']:7.1f} ms   (`interlock --version`)")
    print(f"audit_worktree() in-proc:  {got['in-process']:7.1f} ms")
    print(f"git diff --stat:           {got['diff']:7.1f} ms")
    print(f"git status --porcelain:    {got['status']:7.1f} ms")
    return 0 if target(
        f"audit of a {args.changed}-file change at {args.files} files, process, daemon warm",
        f"{got['warm']:.1f} ms (no daemon: {got['audit']:.1f} ms)",
        f"<= {TARGET_MS:.0f} ms",
        got["warm"] <= TARGET_MS,
    ) else 1


if __name__ == "__main__":
    sys.exit(main())
