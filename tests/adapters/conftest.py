"""Fixtures for the adapter tests: the real hook command (`python -I -S ... hook AGENT
EVENT`, as integrate writes it) fed event JSON built from each agent's documented schema."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from interlock.adapters.hookplan import launcher_words

_FAST = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


class HookResult:
    def __init__(self, proc: subprocess.CompletedProcess[str]) -> None:
        self.code = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    @property
    def json(self) -> Any:
        return json.loads(self.stdout) if self.stdout.strip() else None


def _hook(
    cwd: Path, agent: str, event: str, payload: Any, env: dict[str, str] | None = None
) -> HookResult:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    proc = subprocess.run(
        [*launcher_words(), "hook", agent, event],
        cwd=cwd,
        input=text,
        capture_output=True,
        text=True,
        env={**os.environ, "INTERLOCK_RUN": "agent-run", **_FAST, **(env or {})},
        timeout=120,
    )
    return HookResult(proc)


@pytest.fixture(scope="session")
def hook() -> Callable[..., HookResult]:
    """`hook(cwd, agent, event, payload, env=None)`: run the hook command integrate writes,
    the event JSON on stdin (INTERLOCK_RUN=agent-run: every call of a test is one run)."""
    return _hook


CALC = "def add(a, b):\n    return a + b\n"
TESTS = (
    "from calc import add\n\n\n"
    "def test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_add_zero():\n    assert add(0, 0) == 0\n"
)


@pytest.fixture
def project(git_repo: Path, git: Callable[..., subprocess.CompletedProcess[str]]) -> Path:
    """A committed Python project in blocking mode, with work of a person left unsaved:
    notes.md (untracked) existed before any run."""
    (git_repo / "calc.py").write_text(CALC)
    (git_repo / "tests").mkdir()
    (git_repo / "tests" / "test_calc.py").write_text(TESTS)
    (git_repo / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n")
    (git_repo / ".interlock.toml").write_text('mode = "blocking"\nverification_tiers = "blocking"\n')
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "calc")
    (git_repo / "notes.md").write_text("a person's notes\n")
    return git_repo


PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider"
