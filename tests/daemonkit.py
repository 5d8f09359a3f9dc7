"""Helpers for tests that run real daemons: start them, poll with deadlines, kill them after.

Import the `daemons` fixture into a test module with `from daemonkit import daemons_fixture`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from interlock.daemon import client
from interlock.git import RepoLocation, discover


def interlock(cwd: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 60):
    """Run `python -m interlock ARGS` in cwd; text output."""
    return subprocess.run(
        [sys.executable, "-m", "interlock", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )


def shell(cwd: Path, script: str) -> subprocess.CompletedProcess[str]:
    """Run a bash script in cwd, like a person or an agent typing commands."""
    return subprocess.run(
        ["bash", "-c", script], cwd=cwd, capture_output=True, text=True, check=True
    )


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check)


def poll(predicate: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    """Call predicate until it returns something truthy; fail after timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.02)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def is_ready(loc: RepoLocation) -> bool:
    status = client.request(loc, "status") or {}
    return status.get("watcher") == "watching" and bool(status["recorder"]["baseline_done"])


class Daemons:
    """Starts daemons for test repositories and remembers them, so they can all be killed."""

    def __init__(self) -> None:
        self.locations: list[RepoLocation] = []
        self.pids: set[int] = set()

    def track(self, repo: Path) -> RepoLocation:
        loc = discover(repo)
        assert loc is not None, repo
        if loc not in self.locations:
            self.locations.append(loc)
        return loc

    def start(self, repo: Path) -> int:
        """Spawn the daemon as a front door would and wait until it answers; its pid."""
        loc = self.track(repo)
        client.spawn_daemon(loc)
        reply = poll(lambda: client.request(loc, "ping"), timeout=30, what="the daemon to answer")
        self.pids.add(int(reply["pid"]))
        poll(lambda: is_ready(loc), timeout=30, what="the watcher and the recorder's baseline")
        return int(reply["pid"])

    def pid_of(self, repo: Path) -> int | None:
        pid = client.read_pid(self.track(repo))
        if pid is not None:
            self.pids.add(pid)
        return pid

    def kill_all(self) -> None:
        for loc in self.locations:
            pid = client.read_pid(loc)
            if pid is not None:
                self.pids.add(pid)
        for pid in self.pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for pid in self.pids:
            while pid_alive(pid) and time.monotonic() < deadline:
                time.sleep(0.02)
            if pid_alive(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


@pytest.fixture(name="daemons")
def daemons_fixture(monkeypatch: pytest.MonkeyPatch) -> Iterator[Daemons]:
    """Daemons allowed (INTERLOCK_NO_DAEMON unset); every one started is killed afterwards."""
    monkeypatch.delenv("INTERLOCK_NO_DAEMON", raising=False)
    monkeypatch.setenv("INTERLOCK_DAEMON_IDLE", "300")
    handle = Daemons()
    try:
        yield handle
    finally:
        handle.kill_all()
