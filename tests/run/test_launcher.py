"""The launcher install.sh writes: a Python script run by its #! line with interlock's own
interpreter and paths (or the sh template filled in, when the interpreter cannot go in a #!
line); it runs commands like the checkout's shell/interlock-sh."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from interlock.run.launcher import render_direct, render_launcher, write_launcher

TEMPLATE = Path(__file__).resolve().parents[2] / "shell" / "interlock-sh"


def test_the_written_launcher_runs_a_command_through_interlock(git_repo, tmp_path, journal_view):
    launcher = tmp_path / "bin" / "interlock-sh"
    write_launcher(TEMPLATE, launcher)
    assert launcher.read_text().startswith(f"#!{sys.executable} -IS\n")
    got = subprocess.run(
        [str(launcher), "-c", "echo hi; exit 4"], cwd=git_repo, capture_output=True
    )
    assert (got.returncode, got.stdout, got.stderr) == (4, b"hi\n", b"")
    _, [attempt] = journal_view(git_repo)
    assert attempt.command == "echo hi; exit 4" and attempt.completion.exit == 4


def test_an_interpreter_a_hashbang_line_cannot_name_gets_the_sh_launcher(tmp_path):
    assert render_direct("/opt/my python/bin/python", ["/x"]) is None
    text = render_launcher(TEMPLATE.read_text(), "/opt/my python/bin/python", ["/a b", "/c"])
    assert "python='/opt/my python/bin/python'\n" in text
    assert "paths='/a b\n/c'\n" in text
    assert "@PYTHON@" not in text and "@PATHS@" not in text


def test_a_person_only_command_is_refused_below_the_installed_launcher(git_repo, tmp_path):
    launcher = tmp_path / "bin" / "interlock-sh"
    write_launcher(TEMPLATE, launcher)
    stripped = (
        f"env -u INTERLOCK_WRAPPED -u INTERLOCK_ATTEMPT {sys.executable} -m interlock run end"
    )
    got = subprocess.run([str(launcher), "-c", stripped], cwd=git_repo, capture_output=True)
    assert got.returncode == 1
    assert b"interlock's shell wrapper" in got.stderr
