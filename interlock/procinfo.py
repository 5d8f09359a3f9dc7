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


@dataclass(frozen=True)
class Link:
    """One process of an ancestry: its id, its parent's, when it started, its name and its
    control group (the text of /proc/PID/cgroup; None where there is none to read)."""

    pid: int
    ppid: int
    started: float
    name: str
    cgroup: str | None


def _cgroup(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/cgroup", encoding="utf-8", errors="replace") as f:
            return f.read().strip() or None
    except OSError:
        return None


def _started(pid: int) -> float | None:
    """When `pid` started, on the wall clock, to the clock tick: its start in ticks after
    boot (/proc/PID/stat) placed against the uptime now. psutil's create_time() adds the
    boot time, which /proc/stat gives in whole seconds: up to a second off."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime", encoding="ascii") as f:
            uptime = float(f.read().split()[0])
        ticks = int(fields[19])  # field 22 of stat; fields[0] is field 3 (state)
    except (OSError, ValueError, IndexError):
        return None
    return time.time() - uptime + ticks / os.sysconf("SC_CLK_TCK")


def link_of(pid: int) -> Link | None:
    """The ancestry facts of a live process, or None when it cannot be read."""
    try:
        proc = psutil.Process(pid)
        with proc.oneshot():
            started = _started(pid) or float(proc.create_time())
            return Link(pid, int(proc.ppid()), started, proc.name(), _cgroup(pid))
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return None


def ancestry(pid: int | None = None, limit: int = 64) -> list[Link]:
    """`pid` (default: this process) and its ancestors, nearest first, down to the one whose
    parent is pid 1 or outside this pid namespace (0); shorter when one cannot be read."""
    chain: list[Link] = []
    current = os.getpid() if pid is None else pid
    while current > 1 and len(chain) < limit:
        link = link_of(current)
        if link is None:
            break
        chain.append(link)
        current = link.ppid
    return chain


def terminal_pty(pid: int | None = None) -> int | None:
    """The index N of the pseudo-terminal /dev/pts/N that is the controlling terminal of
    `pid` (default: this process); None for none, or another kind of terminal."""
    try:
        proc = psutil.Process(pid) if pid is not None else psutil.Process()
        name = proc.terminal()
    except (psutil.Error, OSError):
        return None
    if not name or not name.startswith("/dev/pts/"):
        return None
    index = name[len("/dev/pts/") :]
    return int(index) if index.isdigit() else None


_PTMX = frozenset(("/dev/ptmx", "/dev/pts/ptmx"))


def pty_master_holders(index: int) -> list[int]:
    """The processes we can see holding the master side of /dev/pts/INDEX: their fd on the
    multiplexer /dev/ptmx says `tty-index: INDEX` in /proc/PID/fdinfo (Linux 4.14+)."""
    try:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []
    holders: list[int] = []
    wanted = f"tty-index:\t{index}"
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") not in _PTMX:
                    continue
                with open(f"/proc/{pid}/fdinfo/{fd}", encoding="ascii", errors="replace") as f:
                    if any(line.strip() == wanted.strip() for line in f):
                        holders.append(pid)
                        break
            except OSError:
                continue
    return holders
