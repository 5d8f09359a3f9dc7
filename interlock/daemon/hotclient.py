"""The minimal client of every hot door: ask the warm daemon, verified, within a deadline, or None.

    from interlock.daemon import hotclient
    where = hotclient.find(os.getcwd())            # the worktree (and git dir), or None
    reply = hotclient.ask(where, "check", {"command": "ls", "cwd": "/repo"}, deadline=0.5)
    # reply: the daemon's JSON object ({"ok": true, ...} or {"ok": false, "error": ...}),
    # or None: judge inline. None also when the daemon is down, stalled, not interlock's, or
    # answered with anything that is not a JSON object with a boolean "ok".
    hotclient.ensure_daemon(where)                 # start it in the background when down
    channel = hotclient.connect(where)             # several requests on one verified
    reply = channel.ask("attempt", {...}) if channel else None   # connection (or None)
    channel.send("complete", {...}); channel.close()   # a request whose answer nobody reads

Every agent command and every commit pays for this module, so it is started with
`python -I -S` and imports only sys, time, the C modules `_socket`, `_json` and `fcntl`,
interlock.constants, `hotos` (what it needs of os and os.path, on `posix`: importing `os`
costs ~1.2 ms) and `hotwhere` (where the daemon lives, whether the peer is it) -
tests/daemon/test_hotclient.py pins that list. `hotlife` (misses, replacement, starting a
daemon) is imported only when it acts. No `socket` (it pulls in selectors and enum), no
`json` (re), no pathlib, no typing.

Trust: an answer counts only from this worktree's own daemon. The peer's pid (SO_PEERCRED)
must be the pid in the daemon's pid file, that file must be locked (a live daemon holds its
lock), and /proc/<pid>/cmdline must be exactly `daemon_argv()`: this Python running
`-I -m interlock daemon run --cwd <worktree>` (the -I keeps the worktree's own files off its
import path). Anything else listening on the socket is never trusted. A framed request sent
before the check (`Channel.forward`) names the daemon it accepts, and that daemon tests its own
pid file lock before it answers `ok`: the client then skips the lock test (and `fcntl`; see
hotwhere.trust_problem).

Health: while it waits, the client looks at the daemon every POLL seconds; a stopped or dead
daemon (SIGSTOP, a debugger) ends the wait at once. A stopped daemon, or one that misses
MISSES_BEFORE_REPLACE deadlines in a row while none of its threads runs (counted in
`daemon.unhealthy`; a daemon busy starting up or starved of CPU is slow, not stuck), is
killed with SIGKILL (snapshots and the recorder survive kill -9) and a new one is started.

The hot doors built on it: interlock/checkdoor.py and interlock/snapdoor.py (`check` and
`snapshot` from the installed launcher: `answer_framed`), interlock/__main__.py (`audit`),
interlock.adapters.hot (agent hook events) and interlock.hooks.dispatch (the git hook shims).
"""

import _socket
import posix
import sys
import time

from interlock.daemon import hotos
from interlock.daemon.hotwhere import (
    CHECK_ENV,
    DEAD_STATES,
    GIT_HOOK_ENV,
    MISSES_BEFORE_REPLACE,
    Where,
    build_stamp,
    check_env,
    daemon_argv,
    daemon_disabled,
    find,
    healthy,
    is_busy,
    is_locked,
    is_our_daemon,
    process_state,
    read_pid,
    socket_path,
    trust_problem,
)

__all__ = [
    "CHECK_ENV",
    "answer_framed",
    "GIT_HOOK_ENV",
    "MISSES_BEFORE_REPLACE",
    "Channel",
    "Where",
    "ask",
    "body_request",
    "build_stamp",
    "check_env",
    "connect",
    "daemon_argv",
    "daemon_disabled",
    "decode",
    "encode",
    "ensure_daemon",
    "find",
    "frame_end",
    "frame_of",
    "is_busy",
    "is_locked",
    "is_our_daemon",
    "printed",
    "process_state",
    "read_pid",
    "socket_path",
    "spawn_daemon",
    "trust_problem",
    "write_all",
]

TYPE_CHECKING = False  # not `typing`: importing it costs milliseconds on every command
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

CONNECT_TIMEOUT = 0.25  # seconds to connect before judging inline
CHECK_DEADLINE = 0.5  # seconds for a check's answer, once connected
DEADLINES = {
    "ping": 2.0,
    "status": 5.0,
    "check": CHECK_DEADLINE,
    "facts": 10.0,
    "hook": 60.0,
    "snapshot": 120.0,
    "diff": 120.0,
    "audit": 120.0,
    "restore": 300.0,
    "stop": 15.0,
    # After the command: the green decision, then the run monitor (a recovery's restore,
    # declared metrics, the failing call run again outside interlock: each bounded).
    "complete": 60.0,
}
POLL = 0.1  # seconds between looks at the daemon's process state while waiting
MAX_REPLY = 64 << 20
# --- JSON without the json module (which imports re) ---


class _JsonContext:
    """What `_json.make_scanner` reads: plain JSON, no hooks."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float
    memo: dict[str, str] = {}


_NONFINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def encode(value: object) -> str:
    """JSON text for str, bool, int, float, None, lists and dicts of them (`_json` is loaded
    only for a string that needs escaping: the agent hook door sends paths and names)."""
    if isinstance(value, str):
        if value.isascii() and value.isprintable() and '"' not in value and "\\" not in value:
            return '"' + value + '"'
        import _json

        return str(_json.encode_basestring_ascii(value))
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):  # as json.dumps: NaN and the infinities by name
        return repr(value) if value - value == 0 else _NONFINITE[str(value)]
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(encode(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{encode(str(k))}:{encode(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot encode {type(value).__name__}")


def decode(raw: bytes) -> object:
    """The JSON value of `raw`; ValueError (only) when it is not exactly one JSON value.

    _json's scanner reports malformed text by raising json.decoder.JSONDecodeError, which it
    looks up in sys.modules without importing it: in a hot door, where `json` is never
    imported, the error comes out as a SystemError ("returned NULL without setting an
    exception"). Both, and nesting too deep for the C stack guard, are a ValueError here.
    """
    try:
        text = bytes(raw).decode("utf-8")
    except (UnicodeDecodeError, TypeError) as exc:
        raise ValueError(f"not UTF-8 JSON text: {exc}") from None
    start = len(text) - len(text.lstrip())
    import _json

    try:
        value, end = _json.make_scanner(_JsonContext())(text, start)  # type: ignore[arg-type]
    except StopIteration as exc:
        raise ValueError(f"not JSON at character {exc.value}") from None
    except ValueError as exc:  # JSONDecodeError, when json.decoder happens to be loaded
        raise ValueError(f"malformed JSON: {exc}") from None
    except SystemError:
        raise ValueError("malformed JSON") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    if text[end:].strip():
        raise ValueError(f"trailing data after the JSON value at character {end}")
    return value


# --- one request ---


# hotlife (it imports os) is loaded only when a daemon must be started, replaced or counted
# as missing a deadline: never on a warm answer.


def ensure_daemon(where: Where, force: bool = False) -> bool:
    from interlock.daemon import hotlife

    return hotlife.ensure_daemon(where, force)


def spawn_daemon(worktree: str) -> None:
    from interlock.daemon import hotlife

    hotlife.spawn_daemon(worktree)


def missed(where: Where, pid: int, why: str) -> None:
    from interlock.daemon import hotlife

    hotlife.missed(where, pid, why)


def replace(where: Where, pid: int) -> None:
    from interlock.daemon import hotlife

    hotlife.replace(where, pid)


def _is_our_socket(path: str) -> bool:
    try:
        st = hotos.lstat(path)
    except OSError:
        return False
    return (st.st_mode & 0o170000) == 0o140000 and st.st_uid == hotos.getuid()


class Channel:
    """One connection to a worktree's daemon, for several requests in turn (the daemon serves a
    connection's request lines one after another): the shell wrapper asks `attempt` and later
    `complete` on one connection, so it connects and verifies the peer once per command.

    A channel opened with `connect(..., verify_first=False)` sends its first request before it
    verifies the peer (the peer check then runs while the daemon works on the request); a
    reply is still used only once the peer is verified, so an impostor can never answer. That
    request names the daemon this client will accept (`expect_daemon`: `daemon_argv`), and
    interlock's daemon serves it only when it passes, from its side, the checks this client
    is making (interlock.daemon.server._reply_for): a daemon whose answer will be thrown away
    does not act on the request, so the inline judgement that follows is the only one. (The
    wrapper's `attempt` is safe twice over: the inline path finds it in the journal, `once`.)"""

    __slots__ = ("pid", "sock", "where")

    def __init__(self, sock: _socket.socket, pid: int | None, where: Where) -> None:
        self.sock: _socket.socket | None = sock
        self.pid = pid  # the verified peer's, None until verified
        self.where = where

    def ask(
        self, op: str, fields: "Mapping[str, object]", deadline: float | None = None
    ) -> "dict[str, Any] | None":
        """The daemon's reply to one request on this connection, or None (see `ask`); a
        connection that gave no answer is closed (its late reply must not be read as the
        next one's)."""
        sock = self.sock
        if sock is None:
            return None
        wait = deadline if deadline is not None else DEADLINES.get(op, 10.0)
        end = time.monotonic() + wait
        if self.pid is None:  # sent before the peer is verified: only that daemon may act on it
            fields = {**fields, "expect_daemon": daemon_argv(self.where.worktree)}
        raw = None
        if _send(sock, _payload(op, fields), end) and self._verified():
            assert self.pid is not None
            raw = _receive(sock, self.pid, self.where, end)
        reply = _reply_of(raw)
        if reply is None:
            self.close()
            return None
        healthy(self.where)
        return reply

    def forward(
        self, request: bytes, deadline: float, complete: "Callable[[bytearray, int], int | None]"
    ) -> bytes | None:
        """Send a request made by `body_request` (built before connecting, so the daemon's
        thread finds it there when it wakes for the connection) and read its reply up to
        where `complete` says it ends; the reply's bytes, or None as for `ask`.

        The request names the daemon this client accepts (`expect_daemon`) and its caller
        uses only an `ok` frame, which that daemon sends only after it tested its own pid
        file lock: the peer is verified without the lock test (hotwhere.trust_problem)."""
        sock = self.sock
        if sock is None:
            return None
        end = time.monotonic() + deadline
        raw = None
        if _send(sock, request, end) and self._verified(vouched=True):
            assert self.pid is not None
            raw = _receive(sock, self.pid, self.where, end, complete)
        if raw is None:
            self.close()
            return None
        healthy(self.where)
        return raw

    def send(self, op: str, fields: "Mapping[str, object]") -> bool:
        """Send a request whose answer nobody reads (the daemon still serves it whole, after
        this process may have exited); True once it is in the daemon's socket, False when
        the connection is gone (the daemon closed it: idle, stopped, replaced)."""
        sock = self.sock
        if sock is None or not self._verified() or not self.alive():
            return False
        try:
            sock.settimeout(CONNECT_TIMEOUT)
            sock.sendall(_payload(op, fields))
        except OSError:
            self.close()
            return False
        return True

    def _verified(self, vouched: bool = False) -> bool:
        """The peer is this worktree's trusted daemon (checked once per connection)."""
        if self.pid is not None:
            return True
        if self.sock is None:
            return False
        try:
            pid, problem = trust_problem(self.sock, self.where, vouched)
        except OSError:
            return False
        if problem is not None:
            return False
        self.pid = pid
        return True

    def alive(self) -> bool:
        """The daemon still holds this connection open (no end of stream, nothing unasked)."""
        sock = self.sock
        if sock is None:
            return False
        try:
            sock.setblocking(False)
            sock.recv(1, _socket.MSG_PEEK)
        except BlockingIOError:
            return True  # open, and nothing waiting
        except OSError:
            pass
        self.close()  # closed by the daemon, or data nobody asked for: not a usable channel
        return False

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None


def connect(
    where: Where, connect_timeout: float = CONNECT_TIMEOUT, verify_first: bool = True
) -> Channel | None:
    """A connection to this worktree's daemon, verified now (or, with verify_first=False, at
    its first request: see Channel), or None (not running, disabled, not trusted: judge
    inline)."""
    if daemon_disabled():
        return None
    path = socket_path(where)
    if path is None or not _is_our_socket(path):
        return None
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(connect_timeout)
        sock.connect(path)
    except OSError:
        sock.close()
        return None
    channel = Channel(sock, None, where)
    if verify_first and not channel._verified():
        channel.close()
        return None
    return channel


def ask(
    where: Where,
    op: str,
    fields: "Mapping[str, object]",
    deadline: float | None = None,
    connect_timeout: float = CONNECT_TIMEOUT,
    verify_first: bool = True,
) -> "dict[str, Any] | None":
    """Send one request to this worktree's verified daemon; its reply, or None (see above).
    verify_first=False: sent first, the peer verified while the daemon works (see Channel)."""
    channel = connect(where, connect_timeout, verify_first)
    if channel is None:
        return None
    try:
        return channel.ask(op, fields, deadline)
    finally:
        channel.close()


def body_request(
    where: Where, op: str, fields: "Mapping[str, object]", body: bytes | None = None
) -> bytes:
    """A request answered in a frame (server.framed: a door reads it without a JSON decoder;
    `frame_of`), with a raw body when one is given (`body_bytes`: interlock.daemon.server),
    for a channel that sends it before verifying the peer (`Channel.forward`): only the
    daemon this client trusts may act on it."""
    more: dict[str, object] = {"expect_daemon": daemon_argv(where.worktree), "frame": True}
    if body is None:
        return _payload(op, {**fields, **more})
    return _payload(op, {**fields, **more, "body_bytes": len(body)}) + body


def frame_end(buf: bytearray, start: int) -> int | None:
    """Where a framed reply (server.framed) ends, once its header line is in; None: not yet
    (a header that is not a frame's ends it at once: frame_of refuses it)."""
    head = buf.find(b"\n")
    if head < 0:
        return None
    words = bytes(buf[:head]).split()
    if len(words) != 4 or words[0] != b"ok" or not all(w.isdigit() for w in words[2:]):
        return head
    end = head + 1 + int(words[2]) + int(words[3])
    return end if len(buf) >= end else None


def frame_of(raw: bytes) -> tuple[int, bytes, bytes] | str | None:
    """A framed reply's (exit status, stdout, stderr); the KIND of an `error KIND` frame; None
    for anything else (a malformed reply: judge inline)."""
    head, _, rest = raw.partition(b"\n")
    words = head.split()
    if len(words) == 2 and words[0] == b"error" and words[1].isalpha():
        return words[1].decode("ascii")
    if len(words) != 4 or words[0] != b"ok" or not all(w.isdigit() for w in words[2:]):
        return None
    code = words[1]
    if not (code.isdigit() or (code[:1] == b"-" and code[1:].isdigit())):
        return None
    split = int(words[2])
    if len(rest) != split + int(words[3]):
        return None
    return int(code), rest[:split], rest[split:]


def answer_framed(
    where: Where, op: str, fields: "Mapping[str, object]", codes: tuple[int, ...]
) -> int | None:
    """One request sent before the peer is verified (`Channel.forward`), answered in a frame,
    for a door that prints what the daemon answers (interlock.checkdoor, interlock.snapdoor):
    the answer's stdout and stderr written (posix.write, nothing buffered) and its exit status;
    None, nothing written, when the full entry point must answer: no daemon (then started in
    the background for the next call), stalled or unreadable, or it refused (another build,
    a failed self-check), failed, or answered an exit status not in `codes`."""
    request = body_request(where, op, fields)
    channel = connect(where, verify_first=False)
    reply = None
    if channel is not None:
        try:
            reply = channel.forward(request, DEADLINES.get(op, 10.0), frame_end)
        finally:
            channel.close()
    frame = frame_of(reply) if reply is not None else None
    if frame is None:
        ensure_daemon(where)
        return None
    if isinstance(frame, str):
        return None
    code, out, err = frame
    if code not in codes:
        return None
    write_all(1, out)  # False: the reader closed its end; the request was answered
    write_all(2, err)
    return code


def write_all(fd: int, data: bytes) -> bool:
    """Write all of `data` to `fd` (posix.write); False when the reader closed its end."""
    while data:
        try:
            data = data[posix.write(fd, data) :]
        except OSError:
            return False
    return True


def _payload(op: str, fields: "Mapping[str, object]") -> bytes:
    return (encode({"op": op, **fields}) + "\n").encode("ascii")


def _reply_of(raw: bytes | None) -> "dict[str, Any] | None":
    """A reply line as the daemon's answer: a JSON object with a boolean "ok", else None."""
    if raw is None:
        return None
    try:
        reply = decode(raw)
    except ValueError:
        return None
    if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
        return None
    return reply


def _send(sock: _socket.socket, payload: bytes, deadline: float) -> bool:
    try:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        sock.sendall(payload)
    except OSError:
        return False
    return True


def _line_end(buf: bytearray, start: int) -> int | None:
    """Where one reply line ends (its newline excluded), looking from `start`; None: not yet."""
    end = buf.find(b"\n", start)
    return end if end >= 0 else None


def _receive(
    sock: _socket.socket,
    pid: int,
    where: Where,
    deadline: float,
    complete: "Callable[[bytearray, int], int | None]" = _line_end,
) -> bytes | None:
    """Read one reply (a line, or what `complete` says ends it) before `deadline`, watching
    the daemon."""
    buf = bytearray()
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                if not is_busy(pid):  # slow because starved of CPU is not stuck
                    missed(where, pid, "it did not answer in time")
                return None
            sock.settimeout(min(POLL, remaining))
            try:
                chunk = sock.recv(1 << 16)
            except TimeoutError:
                state = process_state(pid)
                if state is None or state in DEAD_STATES:
                    replace(where, pid)
                    return None
                continue
            if not chunk:
                return None
            start = len(buf)
            buf += chunk
            end = complete(buf, start)
            if end is not None:
                return bytes(buf[:end])
            if len(buf) > MAX_REPLY:
                return None
    except OSError:
        return None


# --- what the hot doors print ---


def printed(reply: "Mapping[str, Any]", codes: tuple[int, ...]) -> int | None:
    """Write a reply's stdout and stderr and return its exit code - only when the reply is a
    well-formed answer (ok, two strings, an expected exit code); else None, printing nothing."""
    out, err, code = reply.get("stdout"), reply.get("stderr"), reply.get("exit_code")
    if reply.get("ok") is not True or not isinstance(out, str) or not isinstance(err, str):
        return None
    if type(code) is not int or code not in codes:
        return None
    for text, stream in ((out, sys.stdout), (err, sys.stderr)):
        if text:
            stream.write(text)
            stream.flush()
    return code
