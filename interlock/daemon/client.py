"""The thin client: reach the worktree's daemon over its Unix socket, start it when needed.

This is the agent's hot path, so it uses the standard library only: never bashlex, pygit2,
click, watchdog or psutil, and not even interlock.git (whose imports cost more than the
request): `locate()` finds the worktree's git dir with the same rules as `git.discover()`.
Every function takes a `Located` - `interlock.git.RepoLocation` or the lighter `ThinLocation`.

Protocol: one JSON object per line each way. Request `{"op": "ping" | "status" | "check" |
"facts" | "snapshot" | "diff" | "restore" | "stop", ...}`; reply `{"ok": true, ...}` or
`{"ok": false, "error": message, "hint": text-or-null, "kind": "interlock" | "usage" | "bug"}`.

Where the socket lives: `<git-dir>/interlock/daemon.sock`; when that path is longer than
AF_UNIX allows, the daemon listens in `$XDG_RUNTIME_DIR/interlock/` or `/tmp/interlock-<uid>/`
and writes the path into `<git-dir>/interlock/daemon.sock.where`, which is read here.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import stat
import struct
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from interlock import constants
from interlock.errors import DaemonError, InterlockError

# Seconds to wait for a reply, per operation, once connected (connecting itself is quick).
REPLY_TIMEOUT = {
    "ping": 2.0,
    "status": 5.0,
    "check": 10.0,
    "facts": 10.0,
    "snapshot": 120.0,
    "diff": 120.0,
    "restore": 300.0,
    "stop": 15.0,
}
_MAX_REPLY = 64 << 20
# Variables a check reads besides INTERLOCK_*: sent along, applied for the check's duration.
_CHECK_ENV = ("HOME", "TMPDIR", "XDG_STATE_HOME")


class Located(Protocol):
    """What the client needs of a worktree: where it is and where its state lives."""

    @property
    def worktree(self) -> Path: ...

    @property
    def state_dir(self) -> Path: ...


class ThinLocation:
    """A worktree found by `locate()`: its top and its own git dir."""

    def __init__(self, worktree: Path, git_dir: Path) -> None:
        self.worktree = worktree
        self.git_dir = git_dir

    @property
    def state_dir(self) -> Path:
        return self.git_dir / constants.STATE_DIR_NAME


def locate(start: str) -> ThinLocation | None:
    """The worktree containing `start`, by the rules of `interlock.git.discover()`."""
    here = Path(start).resolve()
    for candidate in (here, *here.parents):
        if candidate.name == ".git":
            return None
        dotgit = candidate / ".git"
        if dotgit.is_dir():
            if (dotgit / "HEAD").exists():
                return ThinLocation(candidate, dotgit.resolve())
        elif dotgit.is_file():
            try:
                text = dotgit.read_text(encoding="utf-8", errors="surrogateescape").strip()
            except OSError:
                continue
            if text.startswith("gitdir:"):
                target = dotgit.parent / text[len("gitdir:") :].strip()
                if (target / "HEAD").exists():
                    return ThinLocation(candidate, target.resolve())
    return None


def daemon_disabled() -> bool:
    """INTERLOCK_NO_DAEMON=1: front doors work inline and never start a daemon."""
    return os.environ.get(constants.ENV_NO_DAEMON, "") not in ("", "0")


def check_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The part of an environment that can change a check's answer."""
    return {k: v for k, v in environ.items() if k.startswith("INTERLOCK_") or k in _CHECK_ENV}


def pid_path(loc: Located) -> Path:
    return loc.state_dir / constants.PID_FILE


def default_socket_path(loc: Located) -> Path:
    return loc.state_dir / constants.SOCKET_FILE


def socket_path(loc: Located) -> Path | None:
    """Where this worktree's daemon listens, or None when that is not known (not running)."""
    default = default_socket_path(loc)
    if len(os.fsencode(default)) <= constants.SOCKET_PATH_MAX:
        return default
    try:
        text = (loc.state_dir / constants.DAEMON_SOCKET_WHERE).read_bytes().strip()
    except OSError:
        return None
    return Path(os.fsdecode(text)) if text else None


def socket_problem(path: Path) -> str | None:
    """Why `path` must not be used as our socket (someone else's, not a socket), or None."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not stat.S_ISSOCK(st.st_mode):
        return f"{path} exists and is not a socket"
    if st.st_uid != os.getuid():
        return f"{path} belongs to uid {st.st_uid}, not to you (uid {os.getuid()})"
    return None


def peer_uid(sock: socket.socket) -> int:
    """The uid of the process at the other end of a connected Unix socket (SO_PEERCRED)."""
    raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", raw)
    return int(uid)


def read_line(sock: socket.socket, deadline: float, limit: int = _MAX_REPLY) -> bytes:
    """Read up to and excluding the next newline, before `deadline` (time.monotonic())."""
    buf = bytearray()
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no complete reply in time")
        sock.settimeout(remaining)
        chunk = sock.recv(1 << 16)
        if not chunk:
            raise ConnectionError("connection closed before a complete line")
        end = chunk.find(b"\n")
        if end >= 0:
            buf += chunk[:end]
            return bytes(buf)
        buf += chunk
        if len(buf) > limit:
            raise ConnectionError("reply too large")


def request(
    loc: Located,
    op: str,
    *,
    connect_timeout: float = constants.DAEMON_CONNECT_TIMEOUT,
    reply_timeout: float | None = None,
    **fields: Any,
) -> dict[str, Any] | None:
    """Send one request; the reply, or None when the daemon cannot be reached in time.

    Raises DaemonError when the socket path is unsafe (not a socket, or not ours) or the peer
    is another user's process.
    """
    path = socket_path(loc)
    if path is None:
        return None
    problem = socket_problem(path)
    if problem:
        raise DaemonError(f"daemon socket unusable: {problem}", hint=f"remove it: rm {path}")
    payload = json.dumps({"op": op, **fields}).encode() + b"\n"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(connect_timeout)
        try:
            sock.connect(os.fspath(path))
        except (FileNotFoundError, ConnectionRefusedError, TimeoutError, OSError):
            return None
        if peer_uid(sock) != os.getuid():
            raise DaemonError(f"the process listening on {path} is not yours")
        wait = reply_timeout if reply_timeout is not None else REPLY_TIMEOUT.get(op, 10.0)
        try:
            sock.sendall(payload)
            line = read_line(sock, time.monotonic() + wait)
        except (TimeoutError, ConnectionError, OSError):
            return None
    finally:
        sock.close()
    try:
        reply = json.loads(line)
    except ValueError:
        return None
    return reply if isinstance(reply, dict) else None


def call(loc: Located, op: str, **fields: Any) -> dict[str, Any] | None:
    """Like request(), but a refusal from the daemon raises InterlockError, as inline would."""
    reply = request(loc, op, **fields)
    if reply is None or reply.get("ok"):
        return reply
    if reply.get("kind") == "interlock":
        raise InterlockError(str(reply.get("error")), reply.get("hint"))
    raise DaemonError(f"the daemon failed on {op!r}: {reply.get('error')}")


def is_daemon_locked(loc: Located) -> bool:
    """True when a daemon holds the pid file lock (i.e. one is running or starting)."""
    try:
        fd = os.open(pid_path(loc), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing drops a probe lock we may have taken
    return False


def read_pid(loc: Located) -> int | None:
    try:
        text = pid_path(loc).read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def ensure_daemon(loc: Located) -> bool:
    """Start this worktree's daemon in the background unless it runs, is starting, is disabled
    (INTERLOCK_NO_DAEMON) or failed to start moments ago. Returns at once; True if spawned."""
    if daemon_disabled() or is_daemon_locked(loc):
        return False
    mark = loc.state_dir / constants.DAEMON_SPAWN_MARK
    with contextlib.suppress(FileNotFoundError):
        if time.time() - mark.stat().st_mtime < constants.DAEMON_SPAWN_BACKOFF:
            return False
    with contextlib.suppress(OSError):  # a broken state dir: the daemon rebuilds it
        loc.state_dir.mkdir(mode=0o700, exist_ok=True)
        mark.touch()
    spawn_daemon(loc)
    return True


def spawn_daemon(loc: Located) -> None:
    """Start `python -m interlock daemon run` detached: `sh -c 'cmd &'` is the double fork (the
    daemon is reparented to init at once), and the short-lived sh is reaped here."""
    import subprocess

    from interlock.git import no_git_env

    argv = [sys.executable, "-m", "interlock", "daemon", "run", "--cwd", os.fspath(loc.worktree)]
    script = '"$@" </dev/null >/dev/null 2>&1 &'
    subprocess.run(
        ["/bin/sh", "-c", script, "sh", *argv],
        env=no_git_env(),
        cwd=os.fspath(loc.worktree),
        start_new_session=True,
        close_fds=True,
        check=False,
    )
