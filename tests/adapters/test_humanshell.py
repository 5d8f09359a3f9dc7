"""The advisory shell for people, for real: an interactive bash (and zsh) under tmux with the
file sourced, the daemon warm. A discard shows the warning, runs, and `interlock undo` brings
the file back; a harmless command says nothing."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from interlock.adapters.hookplan import launcher_words

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def _pane(session: str) -> str:
    return subprocess.run(["tmux", "capture-pane", "-p", "-J", "-t", session], capture_output=True, text=True).stdout


def _wait_for(session: str, text: str, timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        screen = _pane(session)
        if text in screen:
            return screen
        time.sleep(0.1)
    raise AssertionError(f"{text!r} never showed; the screen:\n{_pane(session)}")


def _type(session: str, line: str) -> None:
    subprocess.run(["tmux", "send-keys", "-t", session, line, "Enter"], check=True)


@pytest.mark.parametrize("kind", ["bash", "zsh"])
def test_a_typed_discard_is_warned_about_saved_and_undone(kind, git_repo, daemons, tmp_path):
    if shutil.which(kind) is None:
        pytest.skip(f"{kind} is not installed")
    daemons.start(git_repo)
    (git_repo / "notes.md").write_text("a person's unsaved notes\n")
    rc = tmp_path / f"rc.{kind}"
    words = shlex.join(launcher_words())
    rc.write_text(f"PS1='$ '\nPROMPT='$ '\n. {ROOT}/shell/interlock.{kind} {words}\n")
    interlock = shlex.join([*launcher_words()])
    session = f"il-{kind}-{os.getpid()}"
    env = f"env HOME={shlex.quote(os.environ['HOME'])} INTERLOCK_HOME={shlex.quote(os.environ['INTERLOCK_HOME'])} ZDOTDIR={tmp_path / 'z'}"
    start = f"bash --rcfile {rc} -i" if kind == "bash" else f"zsh -f -i -c 'source {rc}; exec zsh -f -i'"
    if kind == "zsh":
        (tmp_path / "z").mkdir()
        (tmp_path / "z" / ".zshrc").write_text(rc.read_text())
        start = "zsh -i"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "220", "-y", "60",
                    f"cd {shlex.quote(str(git_repo))} && exec {env} {start}"], check=True)
    try:
        time.sleep(1.0)
        _type(session, "echo harmless")
        _wait_for(session, "harmless\n$")
        _type(session, "rm notes.md")
        screen = _wait_for(session, "saved:")
        assert "interlock: [discard] runs now, not refused: rm notes.md" in screen
        _wait_for(session, "undo: interlock undo")
        time.sleep(0.5)
        assert not (git_repo / "notes.md").exists()
        _type(session, f"{interlock} undo")
        _wait_for(session, "restored")
        assert (git_repo / "notes.md").read_text() == "a person's unsaved notes\n"
        assert "harmless" in _pane(session).split("rm notes.md")[0]
        assert "interlock:" not in _pane(session).split("rm notes.md")[0]
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def test_without_a_daemon_there_is_one_notice_then_silence(git_repo, tmp_path):
    rc = tmp_path / "rc.bash"
    rc.write_text(f"PS1='$ '\n. {ROOT}/shell/interlock.bash {shlex.join(launcher_words())}\n")
    session = f"il-nodaemon-{os.getpid()}"
    # -u: a tmux server started earlier passes on its own environment, whatever this test's is
    env = (f"env -u INTERLOCK_NO_DAEMON HOME={shlex.quote(os.environ['HOME'])} "
           f"INTERLOCK_HOME={shlex.quote(os.environ['INTERLOCK_HOME'])} INTERLOCK_DAEMON_IDLE=1")
    state = git_repo / ".git" / "interlock"
    state.mkdir(exist_ok=True)
    (state / "daemon.spawned").write_text("")  # a start moments ago: no new one for 5 s
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "200", "-y", "50",
                    f"cd {shlex.quote(str(git_repo))} && exec {env} bash --rcfile {rc} -i"], check=True)
    try:
        time.sleep(1.0)
        _type(session, "echo one")
        _wait_for(session, "one\n$")
        _type(session, "echo two")
        screen = _wait_for(session, "two\n$")
        assert screen.count("interlock: note: interlock's daemon is not running") == 1
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
