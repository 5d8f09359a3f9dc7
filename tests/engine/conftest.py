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
