"""The daemon's socket: bind it safely, read newline-delimited JSON requests, dispatch them.

Connections are served by a small pool of threads that wait in accept() (`Acceptors`); a
connection may carry several requests in turn. Only processes
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
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from interlock import constants
from interlock.daemon.client import default_socket_path, peer_uid, socket_problem
from interlock.errors import DaemonError, InterlockError, write_failure
from interlock.git import RepoLocation
from interlock.state import atomic_write

log = logging.getLogger("interlock.daemon.server")

_MAX_REQUEST = 16 << 20
_MAX_BODY = (64 << 20) + 1  # an agent event's raw JSON, read whole (interlock.adapters.hot)
Handler = Callable[[dict[str, Any]], dict[str, Any]]
# Why this daemon is not the one a client expects (`expect_daemon`), or None: see _reply_for.
Vouch = Callable[[object], "str | None"]


class UsageProblem(Exception):
    """A malformed request: unknown op, missing or mistyped field."""


class Elsewhere(Exception):
    """The request is another worktree's (an agent event whose `cwd` lies outside this
    daemon's worktree): its client asks that worktree's daemon instead."""


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
    listener.listen(socket.SOMAXCONN)  # a burst of parallel hook calls queues, not EAGAIN
    return listener, path


def socket_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the socket file, to tell ours from a replacement."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


# --- connections ---


def _reply_for(
    handlers: dict[str, Handler], req: dict[str, Any], vouch: Vouch | None
) -> dict[str, Any]:
    """The reply to one request.

    A client may send a request before it has verified that this process is the daemon it
    trusts (interlock.daemon.hotclient.Channel: the check then runs while the daemon works);
    such a request names the daemon the client will accept, `expect_daemon` (its command
    line), and is served only when this daemon passes, from its side, every check the client
    is about to make: its command line is that one, and the pid file it holds locked names
    it (`vouch`). So a daemon whose answer the client will throw away never acts on the
    request (never journals what the client then judges inline). A daemon of another build
    refuses the request by its `build` stamp before acting, whatever version it is."""
    try:
        expected = req.get("expect_daemon")
        if expected is not None:
            problem = (
                vouch(expected) if vouch is not None else "this daemon cannot vouch for itself"
            )
            if problem is not None:
                raise UsageProblem(f"not served before the client verified the daemon: {problem}")
        handler = handlers.get(req["op"])
        if handler is None:
            raise UsageProblem(f"unknown op {req['op']!r}; known: {', '.join(sorted(handlers))}")
        return {"ok": True, **handler(req)}
    except InterlockError as exc:
        return {"ok": False, "kind": "interlock", "error": str(exc), "hint": exc.hint}
    except Elsewhere as exc:
        return {"ok": False, "kind": "elsewhere", "error": str(exc), "hint": None}
    except (UsageProblem, UnicodeDecodeError) as exc:
        return _bad(exc)
    except Exception as exc:  # a bug in an op: logged with its traceback, reported to the client
        failure = write_failure(exc, "answer the request")
        if failure is not None:  # a full or read-only disk: the client's user can act on it
            log.warning("request failed: %s", failure)
            return {"ok": False, "kind": "interlock", "error": str(failure), "hint": failure.hint}
        log.exception("request failed: %r", {k: req[k] for k in ("op", "cwd") if k in req})
        return {"ok": False, "kind": "bug", "error": f"{type(exc).__name__}: {exc}", "hint": None}


def _bad(exc: Exception) -> dict[str, Any]:
    return {"ok": False, "kind": "usage", "error": f"bad request: {exc}", "hint": None}


def _request_of(line: bytes, rfile: BinaryIO) -> dict[str, Any] | None:
    """The request on one line, with its body read when it announces one (`body_bytes`: that
    many raw bytes follow the line, given to the op as `body`); None when the connection
    cannot go on (a body shorter than announced, or a length that cannot be trusted)."""
    req = json.loads(line)
    if not isinstance(req, dict) or not isinstance(req.get("op"), str):
        raise UsageProblem('a request is a JSON object with an "op" string')
    size = req.pop("body_bytes", None)
    if size is None:
        return req
    if type(size) is not int or not 0 <= size <= _MAX_BODY:
        return None
    body = rfile.read(size)
    if len(body) != size:
        return None
    req["body"] = body
    return req


def framed(reply: dict[str, Any]) -> bytes:
    """A reply to a request that asked for a frame (`"frame": true`), for a client that reads
    it without a JSON decoder (interlock.adapters.hot): one line of ASCII words, then the
    bytes it announces. `ok EXIT NOUT NERR` and the stdout and stderr, UTF-8, when the op
    answered with them; else `error KIND` (usage, interlock, bug, elsewhere, shape)."""
    out, err, code = reply.get("stdout"), reply.get("stderr"), reply.get("exit_code")
    if reply.get("ok") is not True:
        kind = str(reply.get("kind") or "error")
        return f"error {kind if kind.isalpha() else 'error'}\n".encode()
    if not isinstance(out, str) or not isinstance(err, str) or type(code) is not int:
        return b"error shape\n"
    data = [text.encode("utf-8", "surrogateescape") for text in (out, err)]
    return f"ok {code} {len(data[0])} {len(data[1])}\n".encode() + data[0] + data[1]


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


def serve_connection(
    conn: socket.socket, handlers: dict[str, Handler], vouch: Vouch | None = None
) -> None:
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
                try:
                    req = _request_of(line, rfile)
                except (UsageProblem, json.JSONDecodeError, UnicodeDecodeError) as exc:
                    req, reply = {}, _bad(exc)
                else:
                    if req is None:
                        break  # its body cannot be read: the stream is out of step
                    reply = _reply_for(handlers, req, vouch)
                if req.get("frame") is True:
                    data = framed(reply)
                else:
                    data = json.dumps(reply).encode() + b"\n"
                try:
                    conn.sendall(data)
                except (BrokenPipeError, ConnectionResetError):
                    return  # a request sent without waiting for its answer (a quiet complete)
        except OSError as exc:
            log.info("connection ended: %s", exc)


class Acceptors:
    """Threads that each wait in accept() on the listening socket and serve the connection
    they get, then wait again: a request is answered by the thread the kernel woke for it.

    Every hook event and wrapped command opens a connection. A main loop that selects,
    accepts and starts a thread per connection cost its first request ~0.25 ms more than a
    second request on the same connection (two wake-ups, a thread start). Here KEEP threads
    wait idle; the one that takes a connection starts another first when it was the last idle
    one, so a long request (a snapshot, the audit) never holds up the next connection, and a
    thread that finds KEEP others idle after serving ends. A thread whose priority a request
    lowered (a quiet completion, interlock.daemon.rundesk) ends too: its priority cannot be
    raised back without privileges, and a thread it started would inherit it."""

    KEEP = 2

    def __init__(
        self, listener: socket.socket, handlers: dict[str, Handler], vouch: Vouch | None = None
    ) -> None:
        self.listener = listener
        self.handlers = handlers
        self.vouch = vouch
        self.idle = 0
        self.stopped = False
        self._lock = threading.Lock()

    def start(self) -> None:
        self.listener.setblocking(True)  # accept() waits, with the GIL released
        for _ in range(self.KEEP):
            self._spawn()

    def stop(self) -> None:
        """Wake every waiting thread (shutdown makes a pending accept() fail) and end them."""
        self.stopped = True
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)

    def _spawn(self) -> None:
        with self._lock:
            self.idle += 1
        threading.Thread(target=self._run, name="interlock-conn", daemon=True).start()

    def _run(self) -> None:
        priority = _priority()
        while not self.stopped:
            try:
                conn, _ = self.listener.accept()
            except OSError as exc:
                if self.stopped:
                    break
                log.warning("accept failed: %s", exc)  # out of descriptors, say: wait a little
                time.sleep(0.05)
                continue
            with self._lock:
                self.idle -= 1
                last = self.idle == 0
            if last:
                self._spawn()
            conn.setblocking(True)
            serve_connection(conn, self.handlers, self.vouch)
            # A lowered thread is not replaced here: a thread it started would inherit its
            # priority. Another one waits (started when this one took the last idle place).
            lowered = _priority() != priority
            with self._lock:
                if self.idle >= self.KEEP or lowered:
                    return
                self.idle += 1
        with self._lock:
            self.idle -= 1


def _priority() -> int | None:
    """This thread's nice value (None where it cannot be read)."""
    try:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    except (OSError, AttributeError):
        return None
