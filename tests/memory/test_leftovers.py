"""After a crash or a full disk: what a killed snapshot, restore or recover leaves is removed
by the next one (or the next daemon start), safely; a write limit is "disk full", not a bug.
Real processes killed with SIGKILL, real git, a real RLIMIT_FSIZE."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from interlock import constants
from interlock.git import discover
from interlock.memory import leftovers
from interlock.memory.snapshot import snapshot_tree_files, take_snapshot

BIG = 16 << 20  # streamed (over 8 MiB): one pack of its own, written for a while


def _temps(repo: Path) -> list[str]:
    objects = repo / ".git" / "objects"
    found = [p.name for p in (objects / "pack").iterdir() if p.name.startswith("tmp_")]
    found += [p.name for p in objects.iterdir() if p.name.startswith(("tmp_", "streamed_"))]
    return found


def _blob(repo: Path, oid: str) -> bytes:
    return subprocess.run(
        ["git", "cat-file", "blob", oid], cwd=repo, capture_output=True, check=True
    ).stdout


def _lock_record(repo: Path) -> str:
    return (repo / ".git" / "interlock" / constants.SNAPSHOT_LOCK_FILE).read_text()


def _cli(repo: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "interlock", *args],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _kill_while_streaming(repo: Path, git) -> None:
    """Start `interlock snapshot` and SIGKILL it once its large file's pack is being written."""
    proc = _cli(repo, "snapshot")
    deadline = time.monotonic() + 60
    while not _temps(repo) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the snapshot finished before it could be killed"


@pytest.fixture
def big_repo(git_repo: Path, git) -> Path:
    for name in ("big1.bin", "big2.bin"):
        (git_repo / name).write_bytes(os.urandom(BIG))
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "big files")
    for name in ("big1.bin", "big2.bin"):
        (git_repo / name).write_bytes(os.urandom(BIG))
    return git_repo


def _loose(repo: Path) -> set[str]:
    objects = repo / ".git" / "objects"
    return {f"{d.name}{f.name}" for d in objects.iterdir() if len(d.name) == 2 for f in d.iterdir()}


def test_a_large_file_is_streamed_into_a_pack_without_libgit2_temp_files(big_repo, git):
    loose = _loose(big_repo)
    info = take_snapshot(discover(big_repo))

    files = snapshot_tree_files(discover(big_repo), info)
    for name in ("big1.bin", "big2.bin"):
        assert _blob(big_repo, files[name.encode()][1]) == (big_repo / name).read_bytes()
    assert _loose(big_repo) == loose  # nothing written loose
    assert _temps(big_repo) == []
    assert _lock_record(big_repo) == ""  # released: no record of a holder


def test_a_snapshot_killed_mid_stream_is_cleared_and_named_by_the_next_one(big_repo, git):
    _kill_while_streaming(big_repo, git)
    left = _temps(big_repo)
    assert left and all(name.startswith("tmp_pack_interlock-") for name in left)
    assert json.loads(_lock_record(big_repo))["op"] == "a manual snapshot"
    assert git(big_repo, "fsck", "--strict", "--no-progress").returncode == 0

    again = _cli(big_repo, "snapshot")
    _, err = again.communicate(timeout=120)

    assert again.returncode == 0, err
    assert "interlock: warning: a manual snapshot (process" in err
    assert "was interrupted; removed 1 leftover temp file (" in err
    assert _temps(big_repo) == []
    assert _lock_record(big_repo) == ""
    assert git(big_repo, "fsck", "--strict", "--no-progress").returncode == 0


def test_the_daemon_start_clears_what_a_killed_snapshot_left(big_repo, git, daemons, poll):
    _kill_while_streaming(big_repo, git)
    killed = _temps(big_repo)
    assert killed

    daemon = daemons.start(big_repo)

    # at once, or (when a front door's daemon started while the snapshot held the lock) at its
    # next housekeeping; the daemon's own recorder may be writing a pack of its own meanwhile
    poll(
        lambda: (
            not [n for n in _temps(big_repo) if f"-{daemon}-" not in n]
            and _lock_record(big_repo) == ""
        ),
        what="the leftovers and the lock record to be cleared",
    )
    log = (big_repo / ".git/interlock" / constants.LOG_FILE).read_text()
    assert "a manual snapshot (process" in log and "was interrupted" in log


def _age(path: Path, seconds: float) -> None:
    past = time.time() - seconds
    os.utime(path, (past, past))


def test_foreign_temp_files_go_only_when_abandoned_old_and_unopened(git_repo):
    objects = git_repo / ".git" / "objects"
    old = objects / "tmp_object_git2_0123456789abcdef"
    fresh = objects / "streamed_git2_fedcba9876543210"
    held = objects / "pack" / "tmp_pack_AbCdEf"
    for path in (old, fresh, held):
        path.write_bytes(b"x" * 4096)
    _age(old, leftovers.STALE_AFTER + 60)
    _age(held, leftovers.STALE_AFTER + 60)
    holder = subprocess.Popen(
        ["bash", "-c", f"exec 3<'{held}'; echo ready; sleep 60"], stdout=subprocess.PIPE
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"ready\n"
        cleared = leftovers.sweep_objects(discover(git_repo))
    finally:
        holder.kill()
        holder.wait()

    assert cleared.files == [str(old)]
    assert not old.exists()
    assert fresh.exists()  # written to within the hour: maybe by a live git or libgit2
    assert held.exists()  # a live process has it open


def test_a_pack_temp_of_a_live_process_is_kept_and_of_a_dead_one_removed(git_repo):
    pack = git_repo / ".git" / "objects" / "pack"
    pack.mkdir(exist_ok=True)
    finished = subprocess.Popen(["true"])
    finished.wait()
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        gone = pack / f"tmp_pack_interlock-{finished.pid}-abc"
        alive = pack / f"tmp_pack_interlock-{sleeper.pid}-def"
        gone.write_bytes(b"x")
        alive.write_bytes(b"y")
        leftovers.sweep_objects(discover(git_repo))
        assert not gone.exists()
        assert alive.exists()
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_file_size_limit_during_a_snapshot_is_disk_full_not_a_bug(git_repo, git, isolated_env):
    (git_repo / "new.bin").write_bytes(os.urandom(3 << 20))  # a 3 MiB pack cannot be written
    limit = 1 << 20

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = subprocess.run(
        [sys.executable, "-m", "interlock", "snapshot"],
        cwd=git_repo,
        capture_output=True,
        text=True,
        preexec_fn=limited,
    )

    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith("interlock: error: disk full: could not take the snapshot")
    assert "no snapshot was taken, and nothing in the worktree changed" in proc.stderr
    assert "hint: raise the limit (ulimit -f unlimited)" in proc.stderr
    assert "bug" not in proc.stderr and "Traceback" not in proc.stderr
    assert not (isolated_env / "interlock-home" / "reports").exists()
    assert git(git_repo, "for-each-ref", "refs/interlock/").stdout == ""
    assert _temps(git_repo) == []
    assert git(git_repo, "fsck", "--strict", "--no-progress").returncode == 0
    assert take_snapshot(discover(git_repo)).id  # without the limit, it works


def test_a_forged_lock_record_cannot_send_the_clean_up_outside_the_worktree(git_repo, tmp_path):
    finished = subprocess.Popen(["true"])
    finished.wait()
    outside = tmp_path / "outside"
    outside.mkdir()
    name = f".interlock-restore-{finished.pid}-abc"
    (outside / name).write_text("not interlock's to remove\n")
    (git_repo / name).write_text("a killed restore's temp file\n")
    record = {"pid": finished.pid, "op": "a restore", "dirs": ["../outside", str(outside)]}
    (git_repo / ".git" / "interlock").mkdir(exist_ok=True)
    (git_repo / ".git" / "interlock" / constants.SNAPSHOT_LOCK_FILE).write_text(json.dumps(record))

    take_snapshot(discover(git_repo))

    assert (outside / name).exists()
    assert not (git_repo / name).exists()
