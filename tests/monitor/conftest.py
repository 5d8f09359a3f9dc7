"""Fixtures for the run monitor's tests: a small Python project whose `mul` is wrong, the real
wrapper (shell/interlock-sh) run as an agent would, and `agent`: the same steps the wrapper
takes for each command (interlock.monitor.desk's begin, real bash, complete), in this process,
for the tests that need many commands."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from interlock.monitor import desk
from interlock.run.link import inline_worktree

ROOT = Path(__file__).resolve().parents[2]
WRAPPER = ROOT / "shell" / "interlock-sh"
PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider"
# pytest under test loads only its own plugins, and never reads a stale .pyc of a file
# rewritten within the same second
FAST = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}

CALC = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a + b\n"
TESTS = (
    "from calc import add, mul\n\n\n"
    "def test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_mul():\n    assert mul(2, 3) == 6\n"
)


@pytest.fixture
def project(git_repo: Path, git: Callable[..., subprocess.CompletedProcess[str]]) -> Path:
    """A committed project: calc.py (mul is wrong) and tests/test_calc.py (test_mul fails)."""
    (git_repo / "calc.py").write_text(CALC)
    (git_repo / "tests").mkdir()
    (git_repo / "tests" / "test_calc.py").write_text(TESTS)
    (git_repo / ".gitignore").write_text("__pycache__/\n*.pyc\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "calc")
    return git_repo


def write_config(repo: Path, text: str, git: Callable[..., object]) -> None:
    """Commit a .interlock.toml (read when the run starts)."""
    (repo / ".interlock.toml").write_text(text)
    git(repo, "add", ".interlock.toml")
    git(repo, "commit", "-q", "-m", "interlock config")


def rewrite_mul(repo: Path, body: str) -> None:
    """The agent's edit: mul's body replaced (a few lines, so each rewrite is material)."""
    lines = "".join(f"    {line}\n" for line in body.split(";"))
    (repo / "calc.py").write_text(f"def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n{lines}")


def run_wrapper(
    cwd: Path, command: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(WRAPPER), "-c", command],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **FAST, "INTERLOCK_PYTHON": sys.executable, **(env or {})},
        timeout=120,
    )


@pytest.fixture(scope="session")
def wrap() -> Callable[..., subprocess.CompletedProcess[str]]:
    """`wrap(cwd, command, env=None)`: run `shell/interlock-sh -c command` (text output)."""
    return run_wrapper


@dataclass
class Said:
    """One command through the doors: its exit status and interlock's messages."""

    code: int
    messages: str
    stdout: str = ""

    def tags(self) -> list[str]:
        return [
            line.split("]")[0] + "]"
            for line in self.messages.splitlines()
            if line.startswith("interlock: [")
        ]


class Agent:
    """Runs commands of one run (`INTERLOCK_RUN=run`) as the wrapper does, in this process."""

    def __init__(self, repo: Path, run: str = "t-run") -> None:
        self.repo = repo
        self.run = run

    def request(self, command: str) -> dict[str, object]:
        return {
            "command": command,
            "judge": command,
            "cwd": str(self.repo),
            "run": self.run,
            "agent": None,
            "parent": None,
            "pid": os.getpid(),
            "pid_start": None,
            "env": {},
        }

    def __call__(self, command: str) -> Said:
        wt = inline_worktree(str(self.repo))
        try:
            reply = desk.begin(wt, self.request(command))
        finally:
            wt.journal.close()
        if reply["exit_code"] == 126:
            return Said(126, str(reply["messages"]))
        started = time.monotonic()
        env = {**os.environ, **FAST, "INTERLOCK_RUN": self.run, "INTERLOCK_WRAPPED": "1"}
        done = subprocess.run(
            ["bash", "-c", command], cwd=self.repo, capture_output=True, text=True, env=env
        )
        req = {
            "attempt": reply["attempt"],
            "exit": done.returncode,
            "signal": None,
            "duration": time.monotonic() - started,
            "tail": done.stdout + done.stderr if reply["interpose"] else None,
        }
        wt = inline_worktree(str(self.repo))
        try:
            after = desk.complete(wt, req)
        finally:
            wt.journal.close()
        messages = "\n".join(m for m in (reply["messages"], after["messages"]) if m)
        return Said(done.returncode, messages, done.stdout)


@pytest.fixture
def agent(project: Path, monkeypatch: pytest.MonkeyPatch) -> Agent:
    """An agent in the project's run `t-run`, its commands through the monitor's desk (this
    process's environment is the agent's: what a call run again outside interlock sees)."""
    for key, value in FAST.items():
        monkeypatch.setenv(key, value)
    return Agent(project)


@pytest.fixture(scope="session")
def suite() -> str:
    """The command line of this interpreter's pytest (a slow-tier validator)."""
    return PYTEST


@pytest.fixture(scope="session")
def calc_source() -> str:
    """calc.py as committed (mul adds)."""
    return CALC


@pytest.fixture(scope="session")
def rewrite() -> Callable[[Path, str], None]:
    """`rewrite(repo, "x = a;return x + b")`: the agent's edit of mul's body."""
    return rewrite_mul


@pytest.fixture(scope="session")
def configure() -> Callable[..., None]:
    """`configure(repo, toml_text, git)`: commit a .interlock.toml."""
    return write_config
