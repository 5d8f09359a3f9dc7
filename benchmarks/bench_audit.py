"""Benchmark `interlock audit` on a generated Python project (benchmarks/.work/, ignored by git).

    .venv/bin/python benchmarks/bench_audit.py [--tests 500] [--changed 20] [--repeat 11]

The project has `--tests` test files (8 tests each, with a conftest, pytest.ini and source
modules); `--changed` of them are edited in the worktree (half weakened, half reformatted,
one deleted, one new conftest hook). Measured in the same run, medians in milliseconds:
- `interlock audit --json` as a whole process (target <= 300 ms), the CLI's own start-up
  (`interlock --version`) for comparison, and the in-process `audit_worktree()` call;
- `git diff --stat` on the same worktree, and the ratio between the two.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interlock.audit import audit_worktree  # noqa: E402
from interlock.audit.pyast import module_dump, parse_module  # noqa: E402
from interlock.git import require_repo  # noqa: E402

WORK = ROOT / "benchmarks" / ".work"
ENV = {**os.environ, "INTERLOCK_NO_DAEMON": "1", "GIT_CONFIG_NOSYSTEM": "1"}
INTERLOCK = ROOT / ".venv" / "bin" / "interlock"
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


def generate(tests: int, changed: int) -> Path:
    """A committed project with `tests` test files, then `changed` of them edited."""
    repo = WORK / f"audit-{tests}-{changed}"
    if repo.exists():
        shutil.rmtree(repo)
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
    git(repo, "add", "-A")
    git(
        repo,
        "-c",
        "user.name=bench",
        "-c",
        "user.email=b@example.com",
        "commit",
        "-q",
        "-m",
        "base",
    )
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


def median_ms(func: Callable[[], object], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=500)
    parser.add_argument("--changed", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=11)
    args = parser.parse_args()
    repo = generate(args.tests, args.changed)
    loc = require_repo(repo)
    report = audit_worktree(loc)
    kinds = sorted({f.kind for f in report.findings})
    print(
        f"project: {args.tests} test files, {args.changed} changed; verdict {report.verdict}, "
        f"{len(report.findings)} findings ({', '.join(kinds)})"
    )

    def cli() -> None:
        subprocess.run(
            [str(INTERLOCK), "audit", "--json", "--cwd", str(repo)], capture_output=True, env=ENV
        )

    def diff_stat() -> None:
        subprocess.run(["git", "diff", "--stat"], cwd=repo, capture_output=True, env=ENV)

    def version() -> None:
        subprocess.run([str(INTERLOCK), "--version"], capture_output=True, env=ENV)

    cli()  # warm the page cache
    floor = median_ms(version, args.repeat)
    audit_cli = median_ms(cli, args.repeat)

    def cold_call() -> None:
        parse_module.cache_clear()  # as in a fresh process: no parse cached
        module_dump.cache_clear()
        audit_worktree(loc)

    audit_call = median_ms(cold_call, args.repeat)
    git_ms = median_ms(diff_stat, args.repeat)
    print(
        f"interlock audit (process): {audit_cli:7.1f} ms   target <= {TARGET_MS:.0f} ms "
        f"{'OK' if audit_cli <= TARGET_MS else 'OVER'}"
    )
    print(f"  of which CLI start-up:   {floor:7.1f} ms   (`interlock --version`)")
    print(f"audit_worktree() in-proc:  {audit_call:7.1f} ms")
    print(f"git diff --stat:           {git_ms:7.1f} ms")
    print(f"ratio audit / git diff:    {audit_cli / git_ms:7.1f}x")
    return 0 if audit_cli <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
