"""Process facts: liveness, memory, uptime, command lines. psutil is imported only here.

Used by the daemon's status and stale-pid detection, and by hooks that read their parent's
command line (e.g. to see `git push --force-with-lease`). A zombie counts as dead: it has
exited and only waits to be reaped.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import psutil


@dataclass(frozen=True)
class ProcInfo:
    """A live process: its id, resident memory, age and command line."""

    pid: int
    rss: int
    started: float
    cmdline: tuple[str, ...]

    @property
    def uptime(self) -> float:
        return max(0.0, time.time() - self.started)


def process_info(pid: int) -> ProcInfo | None:
    """Facts about a live process, or None when it does not exist, is a zombie or is hidden."""
    if pid <= 0:
        return None
    try:
        proc = psutil.Process(pid)
        with proc.oneshot():
            if proc.status() == psutil.STATUS_ZOMBIE:
                return None
            return ProcInfo(
                pid=pid,
                rss=int(proc.memory_info().rss),
                started=float(proc.create_time()),
                cmdline=tuple(proc.cmdline()),
            )
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return None


def is_alive(pid: int) -> bool:
    """True when `pid` is a running (non-zombie) process we can see."""
    if pid <= 0:
        return False
    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except (psutil.NoSuchProcess, psutil.ZombieProcess):
        return False
    except psutil.AccessDenied:
        return True


def process_cmdline(pid: int) -> tuple[str, ...] | None:
    """The command line of `pid`, or None when it cannot be read."""
    info = process_info(pid)
    return info.cmdline if info else None


def parent_pid(pid: int | None = None) -> int | None:
    """The parent of `pid` (default: this process), or None."""
    try:
        proc = psutil.Process(pid) if pid is not None else psutil.Process()
        return int(proc.ppid())
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return None


def current_rss() -> int:
    """Resident memory of this process in bytes."""
    return int(psutil.Process().memory_info().rss)


def open_files_among(paths: set[str]) -> set[str] | None:
    """Which of `paths` (absolute, real) some process we can see holds open; None when that
    cannot be known here (no /proc). Reads /proc/<pid>/fd directly: psutil's open_files()
    would also read every fd's position and flags, ten times the cost."""
    if not paths:
        return set()
    try:
        pids = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return None
    held: set[str] = set()
    for pid in pids:
        fd_dir = f"/proc/{pid}/fd"
        try:
            fds = os.listdir(fd_dir)
        except OSError:  # gone, or not ours to read (it cannot write our files either)
            continue
        for fd in fds:
            try:
                target = os.readlink(f"{fd_dir}/{fd}")
            except OSError:
                continue
            if target in paths:
                held.add(target)
    return held


def process_environ(pid: int) -> dict[str, str] | None:
    """The environment a live process of this user started with, or None when it cannot be
    read (gone, a zombie, another user's)."""
    if pid <= 0:
        return None
    try:
        return dict(psutil.Process(pid).environ())
    except (psutil.Error, OSError):
        return None
