"""The daemon's socket: bind it safely, read newline-delimited JSON requests, dispatch them.

One thread per connection; a connection may carry several requests in turn. Only processes
of the daemon's own uid are served (SO_PEERCRED). The operations themselves live on
`interlock.daemon.ops.Operations`; this module is protocol and safety only.

Output: the engine writes through interlock.output, whose streams are process-wide. The daemon
installs a per-thread stream once, so each request captures exactly what the CLI would have
printed and stray output from other threads goes to the daemon log.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import socket
import stat
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from interlock import constants
from interlock.daemon.client import default_socket_path, peer_uid, socket_problem
from interlock.errors import DaemonError, InterlockError, write_failure
from interlock.git import RepoLocation
from interlock.state import atomic_write

log = logging.getLogger("interlock.daemon.server")

_MAX_REQUEST = 16 << 20
Handler = Callable[[dict[str, Any]], dict[str, Any]]


class UsageProblem(Exception):
    """A malformed request: unknown op, missing or mistyped field."""


# --- where the socket lives ---


def _private_dir(path: Path) -> Path:
    """Create (mode 0700) or verify a directory only we can use."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise DaemonError(
            f"{path} is not a private directory of yours (owner uid {st.st_uid}, "
            f"mode {stat.S_IMODE(st.st_mode):o})",
            hint=f"remove it or make it yours with mode 0700: chmod 700 {path}",
        )
    return path


def short_socket_path(loc: RepoLocation) -> Path:
    """A short socket path for a deep git dir: $XDG_RUNTIME_DIR/interlock or /tmp/interlock-uid."""
    name = hashlib.sha256(os.fsencode(loc.git_dir)).hexdigest()[:20] + ".sock"
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        candidate = Path(runtime) / "interlock"
        if len(os.fsencode(candidate / name)) <= constants.SOCKET_PATH_MAX:
            return _private_dir(candidate) / name
    return _private_dir(Path(tempfile.gettempdir()) / f"interlock-{os.getuid()}") / name


def listen_path(loc: RepoLocation) -> Path:
    """Where the daemon binds; records a non-default place in the state dir for clients."""
    where = loc.state_dir / constants.DAEMON_SOCKET_WHERE
    path = default_socket_path(loc)
    if len(os.fsencode(path)) <= constants.SOCKET_PATH_MAX:
        with contextlib.suppress(FileNotFoundError):
            where.unlink()
        return path
    path = short_socket_path(loc)
    atomic_write(where, os.fsencode(path) + b"\n", mode=0o600)
    return path


def bind_socket(loc: RepoLocation) -> tuple[socket.socket, Path]:
    """Bind and listen (mode 0600). A stale socket of ours is replaced; anything else at the
    path, or a live daemon answering there, is an error."""
    path = listen_path(loc)
    problem = socket_problem(path)
    if problem:
        raise DaemonError(f"cannot listen: {problem}", hint=f"remove it: rm {path}")
    if os.path.lexists(path):
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.settimeout(0.5)
            probe.connect(os.fspath(path))
            raise DaemonError(f"another daemon is listening on {path}")
        except OSError:
            os.unlink(path)  # nobody listens: a leftover from a daemon that was killed
        finally:
            probe.close()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        listener.bind(os.fspath(path))
    finally:
        os.umask(old_umask)
    os.chmod(path, 0o600)
    listener.listen(64)
    return listener, path


def socket_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the socket file, to tell ours from a replacement."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


# --- connections ---


def _reply_for(handlers: dict[str, Handler], line: bytes) -> dict[str, Any]:
    try:
        req = json.loads(line)
        if not isinstance(req, dict) or not isinstance(req.get("op"), str):
            raise UsageProblem('a request is a JSON object with an "op" string')
        handler = handlers.get(req["op"])
        if handler is None:
            raise UsageProblem(f"unknown op {req['op']!r}; known: {', '.join(sorted(handlers))}")
        return {"ok": True, **handler(req)}
    except InterlockError as exc:
        return {"ok": False, "kind": "interlock", "error": str(exc), "hint": exc.hint}
    except (UsageProblem, json.JSONDecodeError, UnicodeDecodeError) as exc:
        return {"ok": False, "kind": "usage", "error": f"bad request: {exc}", "hint": None}
    except Exception as exc:  # a bug in an op: logged with its traceback, reported to the client
        failure = write_failure(exc, "answer the request")
        if failure is not None:  # a full or read-only disk: the client's user can act on it
            log.warning("request failed: %s", failure)
            return {"ok": False, "kind": "interlock", "error": str(failure), "hint": failure.hint}
        log.exception("request failed: %r", line[:200])
        return {"ok": False, "kind": "bug", "error": f"{type(exc).__name__}: {exc}", "hint": None}


def field(
    req: dict[str, Any], name: str, kind: type | tuple[type, ...], default: Any = None
) -> Any:
    """A request field of the given type; absent or null gives `default`."""
    value = req.get(name)
    if value is None:
        return default
    if not isinstance(value, kind):
        raise UsageProblem(f"{name!r} must be {getattr(kind, '__name__', kind)}")
    return value


def serve_connection(conn: socket.socket, handlers: dict[str, Handler]) -> None:
    """Answer each request line on `conn` until the client closes it."""
    with conn:
        try:
            if peer_uid(conn) != os.getuid():
                log.warning("refused a connection from another uid")
                return
            conn.settimeout(300)
            rfile = conn.makefile("rb")
            while line := rfile.readline(_MAX_REQUEST):
                if not line.endswith(b"\n"):
                    break  # oversized or truncated: drop the connection
                reply = _reply_for(handlers, line)
                try:
                    conn.sendall(json.dumps(reply).encode() + b"\n")
                except (BrokenPipeError, ConnectionResetError):
                    return  # a request sent without waiting for its answer (a quiet complete)
        except OSError as exc:
            log.info("connection ended: %s", exc)


def accept_one(listener: socket.socket, handlers: dict[str, Handler]) -> None:
    """Accept one waiting connection and serve it on its own thread."""
    try:
        conn, _ = listener.accept()
    except (BlockingIOError, InterruptedError):
        return
    conn.setblocking(True)
    threading.Thread(
        target=serve_connection, args=(conn, handlers), name="interlock-conn", daemon=True
    ).start()
