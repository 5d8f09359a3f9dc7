"""Side effects: a push or a publish is journaled as attempted before it runs, and an
identical one is held while the first has no recorded outcome: running, or cut off until it
is reconciled (`git ls-remote` for a push, a person for what interlock cannot check)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

WRAPPER = Path(__file__).resolve().parents[2] / "shell" / "interlock-sh"
HOOK = """#!/bin/sh
cat >/dev/null
touch "{started}"
while [ ! -e "{release}" ]; do sleep 0.05; done
"""


@pytest.fixture
def pushing(project, git, set_mode, tmp_path):
    """The project in blocking mode with a bare remote whose pre-receive hook waits for a
    file, a commit to push, and the paths of the hook's two marker files."""
    set_mode(project, "blocking", git)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(project, "remote", "add", "origin", str(remote))
    git(project, "push", "-q", "origin", "main")
    started, release = tmp_path / "hook-started", tmp_path / "hook-release"
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(HOOK.format(started=started, release=release))
    hook.chmod(0o755)
    git(project, "commit", "-q", "--allow-empty", "-m", "to push")
    return project, remote, started, release


def _start_push(repo, started):
    proc = subprocess.Popen(
        [str(WRAPPER), "-c", "git push -q origin main"],
        cwd=repo,
        env={**os.environ, "INTERLOCK_NO_DAEMON": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert started.exists(), "the push never reached the remote's hook"
    return proc


def test_an_identical_push_is_held_while_the_first_runs(pushing, wrap):
    repo, _, started, release = pushing
    first = _start_push(repo, started)
    try:
        second = wrap(repo, "-c", "git push -q origin main")
        assert second.returncode == 126
        assert second.stderr.startswith(
            b"interlock: [side-effect] refused: git push -q origin main"
        )
        assert b"is running now" in second.stderr
    finally:
        release.touch()
        first.communicate(timeout=60)
    assert first.returncode == 0
    again = wrap(repo, "-c", "git push -q origin main")
    assert again.returncode == 0, again.stderr


def test_a_cut_off_push_that_landed_is_reconciled_by_ls_remote(pushing, wrap, git, journal_view):
    repo, remote, started, release = pushing
    first = _start_push(repo, started)
    first.send_signal(signal.SIGKILL)  # the wrapper dies; the push itself goes on
    first.wait(timeout=10)
    release.touch()
    head = git(repo, "rev-parse", "HEAD").stdout.strip()
    deadline = time.monotonic() + 30
    while git(remote, "rev-parse", "main").stdout.strip() != head and time.monotonic() < deadline:
        time.sleep(0.05)
    second = wrap(repo, "-c", "git push -q origin main")
    assert second.returncode == 0, second.stderr
    _, attempts = journal_view(repo)
    cut = attempts[0]
    assert cut.completion.status == "reconciled"
    assert cut.completion.data["landed"] is True
    assert cut.completion.data["how"] == "git ls-remote origin"


def test_a_cut_off_push_that_cannot_be_checked_is_held_until_a_person_reconciles(
    pushing, wrap, interlock, tmp_path
):
    repo, remote, started, release = pushing
    first = _start_push(repo, started)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    release.touch()
    time.sleep(0.5)
    remote.rename(tmp_path / "gone.git")  # the remote cannot be reached any more
    held = wrap(repo, "-c", "git push -q origin main")
    assert held.returncode == 126
    assert b"may or may not have happened" in held.stderr
    assert b"git ls-remote origin failed" in held.stderr
    attempt = held.stderr.split(b"interlock run reconcile ")[1].split()[0].decode()
    settle = interlock(repo, "run", "reconcile", attempt, "--not-landed")
    assert settle.returncode == 0, settle.stderr
    retried = wrap(repo, "-c", "git push -q origin main")
    assert retried.returncode != 126  # it runs (and fails: the remote is gone)
    assert b"[side-effect]" not in retried.stderr


def test_a_cut_off_publish_waits_for_a_person(project, wrap, interlock, set_mode, git, tmp_path):
    set_mode(project, "blocking", git)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "npm").write_text(
        '#!/bin/sh\ncase "$*" in *--dry-run*) exit 0 ;; esac\n'
        f"echo $$ > {tmp_path}/published\nexec sleep 30\n"
    )
    (bin_dir / "npm").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "INTERLOCK_NO_DAEMON": "1"}
    first = subprocess.Popen(
        [str(WRAPPER), "-c", "npm publish"], cwd=project, env=env, stdout=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 60
    marker = tmp_path / "published"
    while not (marker.exists() and marker.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.02)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    os.kill(int(marker.read_text()), signal.SIGKILL)  # the orphaned "publish"
    held = wrap(project, "-c", "npm publish", env={"PATH": env["PATH"]})
    assert held.returncode == 126 and b"a publish is not checked automatically" in held.stderr
    dry = wrap(project, "-c", "npm publish --dry-run", env={"PATH": env["PATH"]})
    assert b"[side-effect]" not in dry.stderr
