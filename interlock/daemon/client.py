"""The door's end of the daemon socket, for the full CLI and the doors that already loaded it.

Every request goes through interlock.daemon.hotclient, the minimal client of the hot doors, so
there is one way to trust a daemon: its pid is the locked pid file's, and it is interlock's
daemon for this worktree (see hotclient). This module adds pathlib-friendly locations, errors
for an unsafe socket path, and `call()`, which turns a refusal into the InterlockError the
inline path would raise. Stdlib only: never bashlex, pygit2, click, watchdog or psutil.

Protocol: one JSON object per line each way. Request `{"op": "ping" | "status" | "check" |
"facts" | "snapshot" | "diff" | "restore" | "hook" | "stop", ...}`; reply `{"ok": true, ...}` or
`{"ok": false, "error": message, "hint": text-or-null, "kind": "interlock" | "usage" | "bug"}`.

Where the socket lives: `<git-dir>/interlock/daemon.sock`; when that path is longer than
AF_UNIX allows, the daemon listens in `$XDG_RUNTIME_DIR/interlock/` or `/tmp/interlock-<uid>/`
and writes the path into `<git-dir>/interlock/daemon.sock.where`, which is read here.
"""

from __future__ import annotations

import os
import socket
import stat
import struct
from pathlib import Path
from typing import Any, Protocol

from interlock import constants
from interlock.daemon import hotclient
from interlock.daemon.hotclient import check_env, daemon_disabled
from interlock.errors import DaemonError, InterlockError

__all__ = ["check_env", "daemon_disabled"]

REPLY_TIMEOUT = hotclient.DEADLINES  # seconds to wait for a reply per operation, once connected


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
    where = hotclient.find(start)
    return None if where is None else ThinLocation(Path(where.worktree), Path(where.git_dir))


def where_of(loc: Located) -> hotclient.Where:
    """The hot client's view of a location."""
    return hotclient.Where(os.fspath(loc.worktree), os.fspath(loc.state_dir.parent))


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


def request(
    loc: Located,
    op: str,
    *,
    connect_timeout: float = constants.DAEMON_CONNECT_TIMEOUT,
    reply_timeout: float | None = None,
    **fields: Any,
) -> dict[str, Any] | None:
    """Send one request; the reply, or None when this worktree's own daemon (verified, see
    hotclient) did not answer well-formed JSON in time.

    Raises DaemonError when the socket path is unsafe (not a socket, or not ours).
    """
    path = socket_path(loc)
    if path is None:
        return None
    problem = socket_problem(path)
    if problem:
        raise DaemonError(f"daemon socket unusable: {problem}", hint=f"remove it: rm {path}")
    return hotclient.ask(where_of(loc), op, fields, reply_timeout, connect_timeout)


def trust_problem(loc: Located) -> str | None:
    """Why the process on this worktree's socket is not trusted, or None (trusted, or none)."""
    path = socket_path(loc)
    if path is None or socket_problem(path) is not None:
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(constants.DAEMON_CONNECT_TIMEOUT)
        sock.connect(os.fspath(path))
        return hotclient.trust_problem(sock, where_of(loc))[1]
    except OSError:
        return None
    finally:
        sock.close()


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
    return hotclient.is_locked(where_of(loc))


def read_pid(loc: Located) -> int | None:
    return hotclient.read_pid(where_of(loc))


def ensure_daemon(loc: Located) -> bool:
    """Start this worktree's daemon in the background unless it runs, is starting, is disabled
    (INTERLOCK_NO_DAEMON) or failed to start moments ago. Returns at once; True if spawned."""
    return hotclient.ensure_daemon(where_of(loc))


def spawn_daemon(loc: Located) -> None:
    """Start `python -I -m interlock daemon run --cwd WORKTREE` detached (hotclient.daemon_argv:
    the only command line a client trusts)."""
    hotclient.spawn_daemon(os.fspath(loc.worktree))
