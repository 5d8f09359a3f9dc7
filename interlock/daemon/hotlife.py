"""Keeping the hot client's daemon alive: misses counted in `daemon.unhealthy`, a stuck or
stopped daemon replaced, a daemon started in the background (a double fork).

Part of the minimal client of the hot doors (interlock.daemon.hotclient re-exports
`ensure_daemon` and `spawn_daemon`, and imports this module only when one of them acts): stdlib
only. Policy: see hotclient.
"""

from __future__ import annotations

import os
import time

from interlock import constants
from interlock.daemon.hotwhere import (
    GIT_HOOK_ENV,
    MISSES_BEFORE_REPLACE,
    Where,
    daemon_argv,
    daemon_disabled,
    healthy,
    is_locked,
    is_our_daemon,
)


def _read_mark(where: Where) -> tuple[int, int] | None:
    try:
        with open(where.state(constants.DAEMON_UNHEALTHY_MARK), "rb") as handle:
            words = handle.read(64).split()
    except OSError:
        return None
    if len(words) != 2 or not all(w.isdigit() for w in words):
        return None
    return int(words[0]), int(words[1])


def missed(where: Where, pid: int, why: str) -> None:
    """Count a missed deadline; replace the daemon after MISSES_BEFORE_REPLACE in a row."""
    mark = _read_mark(where)
    misses = mark[1] + 1 if mark is not None and mark[0] == pid else 1
    if misses >= MISSES_BEFORE_REPLACE:
        replace(where, pid)
        return
    path = where.state(constants.DAEMON_UNHEALTHY_MARK)
    temp = f"{path}.{os.getpid()}"
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, f"{pid} {misses}\n".encode())
        finally:
            os.close(fd)
        os.replace(temp, path)
    except OSError:
        pass


def replace(where: Where, pid: int) -> None:
    """Kill an unhealthy daemon (only when it is ours) and start a new one."""
    if is_our_daemon(pid, where):
        try:
            os.kill(pid, 9)  # SIGKILL: a stopped process cannot handle SIGTERM
        except OSError:
            pass
    healthy(where)
    ensure_daemon(where, force=True)


def ensure_daemon(where: Where, force: bool = False) -> bool:
    """Start this worktree's daemon in the background unless it runs, is starting, is disabled
    (INTERLOCK_NO_DAEMON) or failed to start moments ago (unless force). True if spawned."""
    if daemon_disabled() or (is_locked(where) and not force):
        return False
    mark = where.state(constants.DAEMON_SPAWN_MARK)
    if not force:
        try:
            if time.time() - os.stat(mark).st_mtime < constants.DAEMON_SPAWN_BACKOFF:
                return False
        except OSError:
            pass
    try:
        os.makedirs(where.state_dir, mode=0o700, exist_ok=True)
        os.close(os.open(mark, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600))
        os.utime(mark)
    except OSError:
        pass  # a broken state dir: the daemon rebuilds it
    spawn_daemon(where.worktree)
    return True


def spawn_daemon(worktree: str) -> None:
    """Start `daemon_argv(worktree)` detached: a double fork, so init adopts the daemon at once
    and nothing of ours (pipes, terminal, session) stays attached to it."""
    env = {k: v for k, v in os.environ.items() if k not in GIT_HOOK_ENV}
    env.setdefault("GIT_TERMINAL_PROMPT", "0")
    argv = daemon_argv(worktree)
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the forked child, which execs or exits
        try:
            os.setsid()
            if os.fork() == 0:
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                os.closerange(3, 1 << 16)
                os.chdir(worktree)
                os.execve(argv[0], argv, env)
        finally:
            os._exit(0)
    os.waitpid(child, 0)
