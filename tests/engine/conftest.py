"""Fixtures shared by the engine's tests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def bash_status(tmp_path_factory: pytest.TempPathFactory):
    """`bash_status(line)`: the exit status bash gives the line when `pytest` fails (run in an
    empty directory, with nothing on stdin)."""
    home = tmp_path_factory.mktemp("failing")
    exe = home / "pytest"
    exe.write_text("#!/bin/sh\nexit 1\n")
    exe.chmod(0o755)
    env = {"PATH": f"{home}:{os.environ['PATH']}", "HOME": str(home)}

    def run(line: str) -> int:
        proc = subprocess.run(
            ["bash", "-c", line],
            env=env,
            cwd=Path(home),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=20,
        )
        return proc.returncode

    return run


@pytest.fixture
def repo_with_work(git_repo, git):
    """A repository whose src/app.py holds uncommitted work and whose build/ is ignored
    (removing build/ discards nothing)."""
    (git_repo / ".gitignore").write_text("build/\n")
    git(git_repo, "add", ".gitignore")
    git(git_repo, "commit", "-q", "-m", "ignore build")
    (git_repo / "src" / "app.py").write_text("print('unsaved work')\n")
    (git_repo / "build").mkdir()
    (git_repo / "build" / "out.o").write_text("object\n")
    return git_repo
