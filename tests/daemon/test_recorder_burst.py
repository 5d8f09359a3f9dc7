"""The flight recorder under bursts far past the inotify queue, then a discard typed outside
interlock: every last version must be recoverable. Real daemon, real files, real git.

The daemon is stopped (SIGSTOP) while the burst is written, so the kernel queue
(/proc/sys/fs/inotify/max_queued_events, 16384 by default) overflows for certain: each file
is rewritten as `sed -i` does (temp file, write, chmod, rename: about six events).
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlock import git as gitmod
from interlock.daemon import client
from interlock.git import discover
from interlock.memory.recorder import open_db

_QUEUE = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
_EVENTS_PER_FILE = 5  # a sed -i style rewrite: created, modified, closed, attrib, moved


def _sed_like(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".sed{random.randrange(1 << 30)}")
    tmp.write_bytes(data)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def _last_versions_before(loc, moment: float) -> dict[bytes, str | None]:
    """Each path's newest recorded blob before `moment`, as recover would find it."""
    conn, _ = open_db(loc)
    try:
        rows = conn.execute(
            "SELECT path, oid FROM versions WHERE time < ? ORDER BY id", (moment,)
        ).fetchall()
    finally:
        conn.close()
    return {bytes(path): oid for path, oid in rows}


def _recorder(loc) -> dict:
    reply = client.request(loc, "status") or {}
    return reply.get("recorder") or {}


@contextlib.contextmanager
def _stopped(pid: int) -> Iterator[None]:
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def _burst_repo(root: Path, git: Callable[..., subprocess.CompletedProcess[str]], n: int) -> None:
    """n tracked files under a few directories, committed at version 0."""
    git(root, "init", "-q", "-b", "main")
    for i in range(n):
        path = root / f"d{i % 7}" / f"f{i}.txt"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"v0 %d\n" % i)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")


def _burst_and_discard(root, daemons, git, poll, n, rounds, extra_untracked) -> tuple[str, list[bytes]]:
    """Burst past the recorder's queue, discard everything outside interlock, and return why
    the recorder last rescanned and the paths whose last version it lost (of all it was given)."""
    pid = daemons.start(root)
    loc = discover(root)
    files = sorted(root.glob("d*/f*.txt"))
    expected: dict[bytes, bytes] = {}
    with _stopped(pid):
        for r in range(1, rounds + 1):
            for path in files:
                data = b"v%d %s\n" % (r, path.name.encode())
                _sed_like(path, data)
                expected[os.fsencode(path.relative_to(root))] = data
        for i in range(extra_untracked):
            path = root / "new" / f"u{i}.txt"
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(b"untracked %d\n" % i)
            expected[os.fsencode(path.relative_to(root))] = path.read_bytes()
    assert rounds * len(files) * _EVENTS_PER_FILE > _QUEUE  # far past the queue's limit

    poll(
        lambda: (rec := _recorder(loc)).get("idle") and rec.get("rescans", 0) >= 2,
        timeout=120,
        what="the recorder to rescan after the overflow",
    )
    reason = str(_recorder(loc)["last_rescan"]["reason"])

    discarded_at = time.time()
    git(root, "checkout", "--", ".")  # typed in another terminal: interlock never saw it
    git(root, "clean", "-fdq")
    last = _last_versions_before(loc, discarded_at)
    repo = gitmod.open_repo(loc)
    missing = [
        rel
        for rel, data in expected.items()
        if last.get(rel) is None or gitmod.read_blob(repo, last[rel]) != data
    ]
    return reason, missing


def test_every_last_version_survives_a_queue_overflow_and_a_discard(
    daemons, git_repo, git, poll, tmp_path
):
    """The default run's burst: fewer files, each rewritten several times, still far past the
    queue's limit (the slow variant below rewrites thousands of files)."""
    root = tmp_path / "burst"
    root.mkdir()
    rounds = 4
    n = _QUEUE // (_EVENTS_PER_FILE * rounds) + 200
    _burst_repo(root, git, n)
    reason, lost = _burst_and_discard(root, daemons, git, poll, n, rounds=rounds, extra_untracked=100)
    assert "overflow" in reason
    assert lost == [], f"{len(lost)} last versions lost: {lost[:5]}"


@pytest.mark.slow
def test_every_last_version_survives_a_burst_of_thousands_of_files(
    daemons, git_repo, git, poll, tmp_path
):
    root = tmp_path / "burst"
    root.mkdir()
    n = _QUEUE // _EVENTS_PER_FILE + 500
    _burst_repo(root, git, n)
    reason, lost = _burst_and_discard(root, daemons, git, poll, n, rounds=1, extra_untracked=300)
    assert "overflow" in reason
    assert lost == [], f"{len(lost)} last versions lost: {lost[:5]}"


def test_daemon_status_says_the_recorder_rescanned_and_why(daemons, git, poll, tmp_path, interlock):
    root = tmp_path / "status"
    root.mkdir()
    _burst_repo(root, git, 50)
    daemons.start(root)
    shown = interlock(root, "daemon", "status").stdout
    assert "recorder" in shown and "rescan" in shown and "the daemon started" in shown
    assert "policy" in shown


@pytest.mark.slow
@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    n=st.integers(min_value=1000, max_value=4000),
    rounds=st.integers(min_value=1, max_value=6),
    extra=st.integers(min_value=0, max_value=500),
)
def test_bursts_of_any_shape_lose_no_last_version(daemons, git, poll, n, rounds, extra):
    if rounds * n * _EVENTS_PER_FILE <= _QUEUE:
        rounds = _QUEUE // (n * _EVENTS_PER_FILE) + 1
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        _burst_repo(root, git, n)
        try:
            reason, lost = _burst_and_discard(root, daemons, git, poll, n, rounds, extra)
            assert "overflow" in reason
            assert lost == [], f"{len(lost)} last versions lost: {lost[:5]}"
        finally:
            daemons.kill_all()
