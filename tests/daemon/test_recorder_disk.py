"""The flight recorder on a disk that cannot take more: it pauses, says why in `daemon
status`, and records everything once it can write again. A real daemon under a real
RLIMIT_FSIZE (a file-size limit: the same EFBIG a full quota or disk gives as ENOSPC), lifted
while it runs."""

from __future__ import annotations

import os
import resource
import subprocess
import sys

from interlock import git as gitmod
from interlock.daemon import client
from interlock.git import discover
from interlock.memory.recorder import recorded_versions

LIMIT = 1 << 20


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, resource.RLIM_INFINITY))


def _recorder(loc) -> dict:
    return (client.request(loc, "status") or {}).get("recorder") or {}


def test_a_write_limit_pauses_the_recorder_until_it_can_write_and_loses_nothing(
    daemons, git_repo, poll
):
    loc = discover(git_repo)
    daemon = subprocess.Popen(
        [sys.executable, "-m", "interlock", "daemon", "run"],
        cwd=git_repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=_limited,
    )
    daemons.track(git_repo)
    daemons.pids.add(daemon.pid)
    poll(lambda: _recorder(loc).get("baseline_done"), timeout=30, what="the daemon")
    data = os.urandom(3 << 20)  # its pack is over the limit
    (git_repo / "big.bin").write_bytes(data)

    paused = poll(
        lambda: "recording paused" in str(_recorder(loc).get("warning")) and _recorder(loc),
        timeout=30,
        what="the recorder to pause",
    )
    assert "disk full" in paused["warning"] and paused["running"]
    assert recorded_versions(loc, b"big.bin") == []

    inf = resource.RLIM_INFINITY
    resource.prlimit(daemon.pid, resource.RLIMIT_FSIZE, (inf, inf))  # room again
    poll(
        lambda: (rec := _recorder(loc)).get("warning") is None and rec.get("idle"),
        timeout=30,
        what="the recorder to resume",
    )
    [version] = recorded_versions(loc, b"big.bin")
    assert gitmod.read_blob(gitmod.open_repo(loc), str(version.oid)) == data
