"""Fixtures for the run tests: the real wrapper (shell/interlock-sh) run as an agent would,
in real repositories, with the real daemon or inline; a small Python project with tests."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from interlock.git import require_repo
from interlock.journal import opened
from interlock.run import records
from interlock.run.records import Attempt, Run

ROOT = Path(__file__).resolve().parents[2]
WRAPPER = ROOT / "shell" / "interlock-sh"
PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider"

CALC = "def add(a, b):\n    return a + b\n"
TESTS = (
    "from calc import add\n\n\n"
    "def test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_add_negative():\n    assert add(-1, 1) == 0\n\n\n"
    "def test_add_zero():\n    assert add(0, 0) == 0\n"
)


# pytest run by the tests' commands loads only its own plugins (not xdist, hypothesis...):
# a quarter of the start-up time, and the same counts and summary lines.
_FAST = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def _run_wrapper(
    cwd: Path,
    *args: str,
    input: bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [str(WRAPPER), *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        env={**os.environ, **_FAST, "INTERLOCK_PYTHON": sys.executable, **(env or {})},
        timeout=timeout,
    )


@pytest.fixture(scope="session")
def wrap() -> Callable[..., subprocess.CompletedProcess[bytes]]:
    """`wrap(cwd, *args, input=None, env=None)`: run shell/interlock-sh ARGS in cwd (bytes)."""
    return _run_wrapper


@pytest.fixture
def project(git_repo: Path, git: Callable[..., subprocess.CompletedProcess[str]]) -> Path:
    """A committed Python project: calc.py and three passing tests in tests/."""
    (git_repo / "calc.py").write_text(CALC)
    (git_repo / "tests").mkdir()
    (git_repo / "tests" / "test_calc.py").write_text(TESTS)
    (git_repo / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "calc")
    return git_repo


def _journal_view(repo: Path) -> tuple[list[Run], list[Attempt]]:
    with opened(require_repo(repo)) as journal:
        runs = records.list_runs(journal)
        attempts = [a for run in runs for a in records.attempts_of(journal, run.id)]
    return runs, sorted(attempts, key=lambda a: a.id)


@pytest.fixture(scope="session")
def journal_view() -> Callable[[Path], tuple[list[Run], list[Attempt]]]:
    """`journal_view(repo)`: (runs newest first, every attempt in order) from the journal."""
    return _journal_view


def _set_mode(repo: Path, mode: str, git: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    (repo / ".interlock.toml").write_text(f'mode = "{mode}"\n')
    git(repo, "add", ".interlock.toml")
    git(repo, "commit", "-q", "-m", f"interlock {mode}")


@pytest.fixture(scope="session")
def set_mode() -> Callable[..., None]:
    """`set_mode(repo, mode, git)`: commit a .interlock.toml with that mode."""
    return _set_mode


@pytest.fixture(scope="session")
def suite_cmd() -> str:
    """The command line that runs this interpreter's pytest (a slow-tier validator)."""
    return PYTEST
