"""interlock.engine.exitsteps: what simple commands, function calls, scripts handed to a
shell and traps do to a reading of the exit-status flow (issue 14). A claim about a whole line
is also run in bash with a failing `pytest`."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from interlock.engine.exitflow import Masking, validator_masking
from interlock.shell.parse import parse


def maskings(text: str) -> list[Masking | None]:
    found = validator_masking(parse(text), lambda inv: inv.name in ("pytest", "make"))
    return [masking for _, masking in found]


@pytest.fixture(scope="module")
def bash_status(tmp_path_factory: pytest.TempPathFactory):
    """`bash_status(line)`: the exit status bash gives the line when `pytest` fails."""
    home = tmp_path_factory.mktemp("failing")
    exe = home / "pytest"
    exe.write_text("#!/bin/sh\nexit 1\n")
    exe.chmod(0o755)
    env = {"PATH": f"{home}:{os.environ['PATH']}", "HOME": str(home)}

    def run(line: str) -> int:
        proc = subprocess.run(
            ["bash", "-c", line], env=env, cwd=Path(home), capture_output=True, timeout=20
        )
        return proc.returncode

    return run


UNMASKED_IN_BASH = [
    # bash gives `$?` and PIPESTATUS back after an ERR trap's body: the line exits with
    # pytest's status, not the trap's (it was called forged and refused)
    "trap 'echo failed' ERR; pytest; exit $?",
    "trap 'true' ERR; pytest; exit $?",
    "trap 'true' ERR; pytest | tee /dev/null; exit ${PIPESTATUS[0]}",
]


@pytest.mark.parametrize("line", UNMASKED_IN_BASH)
def test_a_line_called_unmasked_fails_in_bash_when_pytest_fails(line, bash_status):
    assert maskings(line) == [None]
    assert bash_status(line) != 0
