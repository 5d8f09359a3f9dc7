"""The per-worktree daemon process: pid file and lock, socket, watcher, recorder, idle exit.

Started detached by any front door (`client.ensure_daemon`) or by `interlock daemon start`;
`run_daemon()` is its whole life, in the foreground of its own process:

1. state dir `<git-dir>/interlock/` (rebuilt, with a warning, when it is not a directory);
2. the pid file `daemon.pid`, locked (flock) for the daemon's life: a pid file whose lock is
   free is stale (the daemon died, e.g. `kill -9`), and a second daemon exits at once;
3. the socket (mode 0600; a stale one is replaced); log in `daemon.log` (rotated);
4. the watcher and the recorder start in the background, so `ping` answers at once;
5. serve until `stop`, SIGTERM/SIGINT/SIGHUP, INTERLOCK_DAEMON_IDLE seconds without requests
   or changes while no run is live, or its socket or pid file disappearing (someone removed
   the state dir);
6. shut down: let a snapshot in progress finish, record what is pending and commit it,
   remove the socket and the pid file.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import logging
import logging.handlers
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType

from interlock import constants, output
from interlock.daemon import reqenv
from interlock.daemon.client import pid_path
from interlock.daemon.ops import Operations, is_check_variable
from interlock.daemon.server import Acceptors, bind_socket, socket_identity
from interlock.errors import DaemonError
from interlock.git import RepoLocation
from interlock.state import repo_state_dir

log = logging.getLogger("interlock.daemon.process")

_LOCK_WAIT = 0.5  # seconds to wait for the pid lock (a client's probe holds it for microseconds)
_HOUSEKEEPING = 1.0  # seconds between health checks
_IDLE_RELEASE = 60.0  # seconds without requests after which caches are dropped
_BLIND_RESCAN = 60.0  # seconds between recorder rescans while the watcher cannot see everything
_M_ARENA_MAX = -8  # mallopt's parameter, from glibc's malloc.h
# Imported once at start-up, so the first request does not pay for them.
_WARM_MODULES = (
    "interlock.engine.check",
    "interlock.memory.snapshot",
    "interlock.memory.restore",
    "interlock.daemon.recoverop",
    "interlock.hooks.dispatch",
    "interlock.hooks.precommit",
    "interlock.run.gate",
)


def idle_seconds() -> float:
    """INTERLOCK_DAEMON_IDLE (seconds, > 0), else the default of 30 minutes."""
    raw = os.environ.get(constants.ENV_DAEMON_IDLE, "")
    try:
        value = float(raw)
    except ValueError:
        return float(constants.DAEMON_IDLE_SECONDS)
    return value if value > 0 else float(constants.DAEMON_IDLE_SECONDS)


def prepare_state_dir(loc: RepoLocation) -> tuple[Path, str | None]:
    """The state dir, rebuilt when something that is not a directory sits at its path."""
    path = loc.state_dir
    warning = None
    if os.path.lexists(path) and not path.is_dir():
        aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}")
        os.replace(path, aside)
        warning = f"state dir {path} was not a directory; kept it as {aside.name} and rebuilt it"
    return repo_state_dir(loc), warning


def acquire_pid_lock(loc: RepoLocation, wait: float = _LOCK_WAIT) -> int | None:
    """The locked pid file's descriptor, or None when a live daemon holds the lock."""
    path = pid_path(loc)
    deadline = time.monotonic() + wait
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.05)
            continue
        # The file may have been unlinked by a daemon that was just exiting: lock the new one.
        if _same_file(fd, path):
            return fd
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)


def _write_pid(fd: int) -> None:
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, f"{os.getpid()}\n".encode())
    os.fsync(fd)


def setup_logging(state_dir: Path) -> None:
    handler = logging.handlers.RotatingFileHandler(
        state_dir / constants.LOG_FILE, maxBytes=constants.DAEMON_LOG_MAX, backupCount=1
    )
    handler.setFormatter(
        logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s")
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)


def _few_malloc_arenas() -> None:
    """Before any thread starts: glibc gives each thread that allocates an arena of its own
    (8 in a daemon), and what one frees the others do not reuse, so a burst's peak stayed
    resident in pieces. Two arenas: 74 MB idle instead of 80 after three 10k-path bursts, 85
    instead of 90 at the peak (bench_recorder's scenario). A MALLOC_ARENA_MAX in the
    environment wins; without glibc there is nothing to set."""
    if os.environ.get("MALLOC_ARENA_MAX"):
        return
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(_M_ARENA_MAX, 2)


def run_daemon(loc: RepoLocation, idle: float | None = None, service: bool = False) -> int:
    """Be this worktree's daemon until stopped. Returns 0, also when one is already running.

    As a service (the systemd --user unit): never exit when idle, and wait for a running
    daemon to exit instead of leaving it be."""
    _few_malloc_arenas()
    state_dir, warning = prepare_state_dir(loc)
    lock_fd = acquire_pid_lock(loc, wait=float("inf") if service else _LOCK_WAIT)
    if service:
        idle = 0.0
    if lock_fd is None:
        return 0  # another daemon runs for this worktree
    try:
        setup_logging(state_dir)
        if warning:
            log.warning("%s", warning)
        listener, sock_path = bind_socket(loc)
        _write_pid(lock_fd)
        _tidy(loc)
        ops = Operations(loc, idle if idle is not None else idle_seconds(), os.fspath(sock_path))
        log.info("daemon %d started for %s (idle exit %.0f s)", os.getpid(), loc.worktree, ops.idle)
        identity = socket_identity(sock_path)
        try:
            _serve(ops, listener, sock_path, identity, lock_fd)
        finally:
            _shutdown(ops, listener, sock_path, identity)
    except DaemonError as exc:
        log.error("cannot run: %s", exc)
        raise
    finally:
        _release(loc, lock_fd)
    return 0


def _lock_record_left(loc: RepoLocation) -> bool:
    """The snapshot lock file holds a record (written while held, emptied on release): one
    stat per housekeeping tick tells whether a holder may have died since the last look."""
    try:
        return (loc.state_dir / constants.SNAPSHOT_LOCK_FILE).stat().st_size > 0
    except OSError:
        return False


def _tidy(loc: RepoLocation) -> bool:
    """Remove what a killed snapshot, restore or recorder left (interlock/memory/leftovers.py);
    False when the snapshot lock is busy (housekeeping looks again while a record is left)."""
    from interlock.memory.leftovers import tidy_at_start

    try:
        return tidy_at_start(loc) is not None
    except Exception:  # tidiness must never keep the daemon from starting
        log.exception("could not clear leftovers")
        return True


def _install_signals(stop: threading.Event) -> None:
    def handler(signum: int, frame: FrameType | None) -> None:
        log.info("signal %d: stopping", signum)
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, handler)


def _start_background(ops: Operations) -> None:
    """Watcher first, then the recorder's baseline, then warm the engine's imports."""

    def start() -> None:
        try:
            ops.watcher.start()
            ops.watcher_state = "watching"
        except OSError as exc:
            ops.watcher_state = f"not watching: {exc}"
            log.error("watcher failed to start: %s", exc)
        finally:
            ops.watcher_started.set()
        ops.recorder.start(baseline=True)
        for module in _WARM_MODULES:
            with contextlib.suppress(ImportError):
                importlib.import_module(module)
        ops.refresh_facts_forever()

    threading.Thread(target=start, name="interlock-start", daemon=True).start()


def _serve(
    ops: Operations,
    listener: socket.socket,
    sock_path: Path,
    identity: tuple[int, int] | None,
    lock_fd: int,
) -> None:
    output.install_thread_capture()
    reqenv.install(is_check_variable)
    _install_signals(ops.stop_event)
    acceptors = Acceptors(listener, ops.handlers(), _vouch(ops.loc, lock_fd))
    _start_background(ops)
    acceptors.start()
    try:
        next_check = time.monotonic() + _HOUSEKEEPING
        while not ops.stop_event.wait(max(0.0, next_check - time.monotonic())):
            next_check = time.monotonic() + _HOUSEKEEPING
            reason = _reason_to_stop(ops, sock_path, identity, lock_fd)
            if reason:
                log.info("stopping: %s", reason)
                ops.stop_event.set()
    finally:
        acceptors.stop()


def _own_argv() -> list[str] | None:
    """This process's command line as a client compares it (hotwhere.is_our_daemon)."""
    try:
        with open("/proc/self/cmdline", "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    argv = [os.fsdecode(a) for a in raw.rstrip(b"\0").split(b"\0")]
    return [os.path.abspath(argv[0]), *argv[1:]] if argv and argv[0] else None


def _vouch(loc: RepoLocation, lock_fd: int) -> Callable[[object], str | None]:
    """The checks a client makes of its peer (hotwhere.trust_problem), made by the daemon of
    itself for a request sent before the client made them (see server._reply_for). The uid
    needs no check: a connection of another uid is never served."""
    own = _own_argv()

    def problem(expected: object) -> str | None:
        if own is None or expected != own:
            return f"this daemon runs {own}, the client trusts only {expected}"
        path = pid_path(loc)
        try:
            named = path.read_bytes().strip()
        except OSError:
            named = b""
        if named != str(os.getpid()).encode() or not _same_file(lock_fd, path):
            return "the pid file is not the one this daemon holds locked, or names another pid"
        return None

    return problem


def _reason_to_stop(
    ops: Operations, sock_path: Path, identity: tuple[int, int] | None, lock_fd: int
) -> str | None:
    idle_for = time.monotonic() - ops.last_activity
    if ops.idle and idle_for >= ops.idle and not ops.runs.has_live_run():  # a live run keeps it up
        return f"idle for {idle_for:.0f} s"
    if not ops.loc.worktree.is_dir():
        return "the worktree is gone"
    if socket_identity(sock_path) != identity or not _same_file(lock_fd, pid_path(ops.loc)):
        return "the socket or pid file was removed or replaced"
    if ops.watcher_state == "watching" and not ops.watcher.is_healthy():
        log.warning("watcher died; restarting it (dirty set unknown, recorder rescans)")
        ops.watcher.restart("the watcher died and was restarted")
    if _lock_record_left(ops.loc):  # a holder's record: it works now, or it was killed
        _tidy(ops.loc)
    _rescan_when_blind(ops)
    _release_when_idle(ops, idle_for)
    return None


def _release_when_idle(ops: Operations, idle_for: float) -> None:
    """After a quiet minute, drop the parsed-tree cache and hand freed memory back to the
    system: a burst's peak should not stay resident for the daemon's whole life."""
    if idle_for < _IDLE_RELEASE or ops.released:
        return
    from interlock.memory.store import clear_cache

    clear_cache()
    import gc

    gc.collect()
    with contextlib.suppress(OSError, AttributeError):  # glibc only
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    ops.released = True
    log.info("idle: caches dropped, memory returned")


def _rescan_when_blind(ops: Operations) -> None:
    """A watcher that cannot see every directory (watch limit, no watcher at all) misses
    changes: let the recorder rescan now and then instead."""
    started = ops.watcher_started.is_set()
    blind = ops.watcher.degraded or (
        ops.watcher_state if started and ops.watcher_state != "watching" else None
    )
    if not blind or not ops.recorder.is_idle():
        return
    last = (ops.recorder.stats.last_rescan or {}).get("time", 0.0)
    if time.time() - float(last) >= _BLIND_RESCAN:
        ops.recorder.rescan(f"the watcher is not seeing every change ({blind})")


def _shutdown(
    ops: Operations, listener: socket.socket, sock_path: Path, identity: tuple[int, int] | None
) -> None:
    ops.stop_event.set()
    listener.close()
    if identity is not None and socket_identity(sock_path) == identity:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(sock_path)
    if not ops.wait_for_snapshots(timeout=60):
        log.warning("a snapshot was still running at shutdown")
    ops.watcher.stop()
    ops.recorder.stop()
    ops.close()
    log.info("daemon %d stopped", os.getpid())


def _release(loc: RepoLocation, lock_fd: int) -> None:
    state = loc.state_dir
    for name in (constants.DAEMON_SOCKET_WHERE, constants.DAEMON_SPAWN_MARK):
        with contextlib.suppress(FileNotFoundError):
            (state / name).unlink()
    if _same_file(lock_fd, pid_path(loc)):
        with contextlib.suppress(FileNotFoundError):
            pid_path(loc).unlink()
    os.close(lock_fd)
