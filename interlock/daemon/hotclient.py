"""The minimal client of every hot door: ask the warm daemon, verified, within a deadline, or None.

    from interlock.daemon import hotclient
    where = hotclient.find(os.getcwd())            # the worktree (and git dir), or None
    reply = hotclient.ask(where, "check", {"command": "ls", "cwd": "/repo"}, deadline=0.5)
    # reply: the daemon's JSON object ({"ok": true, ...} or {"ok": false, "error": ...}),
    # or None: judge inline. None also when the daemon is down, stalled, not interlock's, or
    # answered with anything that is not a JSON object with a boolean "ok".
    hotclient.ensure_daemon(where)                 # start it in the background when down

Every agent command and every commit pays for this module, so it is started with
`python -I -S` and imports only os, sys, time, the C modules `_socket`, `_json` and `fcntl`,
and interlock.constants (tests/daemon/test_hotclient.py pins that list). No `socket` (it
pulls in selectors and enum), no `json` (re), no pathlib, no typing.

Trust: an answer counts only from this worktree's own daemon. The peer's pid (SO_PEERCRED)
must be the pid in the daemon's pid file, that file must be locked (a live daemon holds its
lock), and /proc/<pid>/cmdline must be exactly `daemon_argv()`: this Python running
`-I -m interlock daemon run --cwd <worktree>` (the -I keeps the worktree's own files off its
import path). Anything else listening on the socket is never trusted.

Health: while it waits, the client looks at the daemon every POLL seconds; a stopped or dead
daemon (SIGSTOP, a debugger) ends the wait at once. A stopped daemon, or one that misses
MISSES_BEFORE_REPLACE deadlines in a row while none of its threads runs (counted in
`daemon.unhealthy`; a daemon busy starting up or starved of CPU is slow, not stuck), is
killed with SIGKILL (snapshots and the recorder survive kill -9) and a new one is started.

`main(argv)` is the installed `interlock` command's hot path: `check` and `snapshot` are
answered from the daemon's reply; anything else, or no answer, goes to the full CLI.
"""

from __future__ import annotations

import _json
import _socket
import fcntl
import os
import sys
import time

from interlock import constants

TYPE_CHECKING = False  # not `typing`: importing it costs milliseconds on every command
if TYPE_CHECKING:
    from collections.abc import Mapping
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
}
POLL = 0.1  # seconds between looks at the daemon's process state while waiting
MISSES_BEFORE_REPLACE = 3
MAX_REPLY = 64 << 20
# The variables git sets for hooks (as interlock.git._GIT_HOOK_ENV): never passed to a daemon.
GIT_HOOK_ENV = (
    "GIT_DIR",
    "GIT_INDEX_FILE",
    "GIT_WORK_TREE",
    "GIT_PREFIX",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_QUARANTINE_PATH",
    "GIT_REFLOG_ACTION",
    "GIT_EDITOR",
    "GIT_EXEC_PATH",
)
# Variables a check reads besides INTERLOCK_*: sent along, applied for the check's duration.
CHECK_ENV = ("HOME", "TMPDIR", "XDG_STATE_HOME")
_DEAD_STATES = ("T", "t", "Z", "X", "x")  # stopped, traced, zombie, dead


class Where:
    """A worktree's top and its own git dir (absolute, symlinks resolved)."""

    __slots__ = ("git_dir", "worktree")

    def __init__(self, worktree: str, git_dir: str) -> None:
        self.worktree = worktree
        self.git_dir = git_dir

    @property
    def state_dir(self) -> str:
        return os.path.join(self.git_dir, constants.STATE_DIR_NAME)

    def state(self, name: str) -> str:
        return os.path.join(self.git_dir, constants.STATE_DIR_NAME, name)


def _gitdir_of(top: str) -> str | None:
    """The git dir of the worktree whose top is `top`, by the rules of git.discover()."""
    dotgit = os.path.join(top, ".git")
    if os.path.isdir(dotgit):
        return dotgit if os.path.exists(os.path.join(dotgit, "HEAD")) else None
    try:
        with open(dotgit, "rb") as handle:
            text = os.fsdecode(handle.read(4096)).strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = os.path.join(top, text[len("gitdir:") :].strip())
    return target if os.path.exists(os.path.join(target, "HEAD")) else None


def find(start: str) -> Where | None:
    """The worktree containing `start` (None inside a .git directory or outside a repo)."""
    here = os.path.realpath(start)
    while True:
        if os.path.basename(here) == ".git":
            return None
        git_dir = _gitdir_of(here)
        if git_dir is not None:
            return Where(here, os.path.realpath(git_dir))
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def daemon_disabled() -> bool:
    """INTERLOCK_NO_DAEMON=1: front doors work inline and never start a daemon."""
    return os.environ.get(constants.ENV_NO_DAEMON, "") not in ("", "0")


def check_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The part of an environment that can change a check's answer."""
    return {k: v for k, v in environ.items() if k.startswith("INTERLOCK_") or k in CHECK_ENV}


def build_stamp() -> str:
    return constants.build_stamp()


def daemon_argv(worktree: str, python: str | None = None) -> list[str]:
    """How a trusted daemon is started, and so what its /proc cmdline must be."""
    python = os.path.abspath(python or sys.executable)  # `venv/bin/../bin/python` is the same
    return [python, "-I", "-m", "interlock", "daemon", "run", "--cwd", worktree]


def socket_path(where: Where) -> str | None:
    """Where this worktree's daemon listens (a long path is named in daemon.sock.where)."""
    default = where.state(constants.SOCKET_FILE)
    if len(os.fsencode(default)) <= constants.SOCKET_PATH_MAX:
        return default
    try:
        with open(where.state(constants.DAEMON_SOCKET_WHERE), "rb") as handle:
            text = handle.read().strip()
    except OSError:
        return None
    return os.fsdecode(text) if text else None


def read_pid(where: Where) -> int | None:
    try:
        with open(where.state(constants.PID_FILE), "rb") as handle:
            text = handle.read(64).strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def is_locked(where: Where) -> bool:
    """True when a daemon holds the pid file's lock (one is running or starting)."""
    try:
        fd = os.open(where.state(constants.PID_FILE), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing drops a probe lock we may have taken
    return False


def _read_proc(pid: int, name: str) -> bytes | None:
    try:
        with open(f"/proc/{pid}/{name}", "rb") as handle:
            return handle.read(1 << 16)
    except OSError:
        return None


def process_state(pid: int) -> str | None:
    """The one-letter state of a process (R, S, D, T, t, Z...), None when it is gone."""
    raw = _read_proc(pid, "stat")
    if raw is None:
        return None
    fields = raw.rpartition(b")")[2].split()
    return fields[0].decode("ascii", "replace") if fields else None


def is_busy(pid: int) -> bool:
    """True when a thread of `pid` is running or waiting for the disk (R, D): a daemon that is
    merely slow - starting up, or on a loaded machine - rather than stuck."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for tid in tasks:
        raw = _read_proc(pid, f"task/{tid}/stat")
        fields = raw.rpartition(b")")[2].split() if raw else []
        if fields and fields[0] in (b"R", b"D"):
            return True
    return False


def is_our_daemon(pid: int, where: Where) -> bool:
    """True when process `pid` runs exactly `daemon_argv(where.worktree)`."""
    raw = _read_proc(pid, "cmdline")
    if not raw:
        return False
    argv = [os.fsdecode(a) for a in raw.rstrip(b"\0").split(b"\0")]
    return [os.path.abspath(argv[0]), *argv[1:]] == daemon_argv(where.worktree)


def trust_problem(sock: _socket.socket, where: Where) -> tuple[int, str | None]:
    """(peer pid, why its answers must not be trusted, or None)."""
    creds = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
    pid = int.from_bytes(creds[0:4], sys.byteorder, signed=True)
    uid = int.from_bytes(creds[4:8], sys.byteorder, signed=True)
    if uid != os.getuid():
        return pid, f"the process on the socket (pid {pid}) belongs to uid {uid}"
    owner = read_pid(where)
    if owner != pid:
        return (
            pid,
            f"the process on the socket (pid {pid}) is not the daemon named by the pid file ({owner})",
        )
    if not is_locked(where):
        return pid, "the daemon's pid file is not locked"
    if not is_our_daemon(pid, where):
        return pid, f"pid {pid} is not interlock's daemon for this worktree"
    return pid, None


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


def encode(value: object) -> str:
    """JSON text for str, bool, int, float, None, lists and dicts of them."""
    if isinstance(value, str):
        return str(_json.encode_basestring_ascii(value))
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(encode(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{encode(str(k))}:{encode(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot encode {type(value).__name__}")


def decode(raw: bytes) -> object:
    """The JSON value of `raw`; ValueError when it is not exactly one JSON value."""
    text = raw.decode("utf-8")
    start = len(text) - len(text.lstrip())
    try:
        value, end = _json.make_scanner(_JsonContext())(text, start)  # type: ignore[arg-type]
    except StopIteration:
        raise ValueError("not JSON") from None
    if text[end:].strip():
        raise ValueError("trailing data after the JSON value")
    return value


# --- one request ---


def _is_our_socket(path: str) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return (st.st_mode & 0o170000) == 0o140000 and st.st_uid == os.getuid()


def ask(
    where: Where,
    op: str,
    fields: Mapping[str, object],
    deadline: float | None = None,
    connect_timeout: float = CONNECT_TIMEOUT,
) -> dict[str, Any] | None:
    """Send one request to this worktree's verified daemon; its reply, or None (see above)."""
    if daemon_disabled():
        return None
    path = socket_path(where)
    if path is None or not _is_our_socket(path):
        return None
    payload = (encode({"op": op, **fields}) + "\n").encode("ascii")
    wait = deadline if deadline is not None else DEADLINES.get(op, 10.0)
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(connect_timeout)
        try:
            sock.connect(path)
        except OSError:
            return None
        pid, problem = trust_problem(sock, where)
        if problem is not None:
            return None
        raw = _exchange(sock, payload, pid, where, time.monotonic() + wait)
    finally:
        sock.close()
    if raw is None:
        return None
    try:
        reply = decode(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
        return None
    _healthy(where)
    return reply


def _exchange(
    sock: _socket.socket, payload: bytes, pid: int, where: Where, deadline: float
) -> bytes | None:
    """Send the request, read one reply line before `deadline`, watching the daemon."""
    buf = bytearray()
    try:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        sock.sendall(payload)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                if not is_busy(pid):  # slow because starved of CPU is not stuck
                    _missed(where, pid, "it did not answer in time")
                return None
            sock.settimeout(min(POLL, remaining))
            try:
                chunk = sock.recv(1 << 16)
            except TimeoutError:
                state = process_state(pid)
                if state is None or state in _DEAD_STATES:
                    _replace(where, pid)
                    return None
                continue
            if not chunk:
                return None
            end = chunk.find(b"\n")
            if end >= 0:
                return bytes(buf + chunk[:end])
            buf += chunk
            if len(buf) > MAX_REPLY:
                return None
    except OSError:
        return None


# --- health: misses counted in daemon.unhealthy, replacement ---


def _read_mark(where: Where) -> tuple[int, int] | None:
    try:
        with open(where.state(constants.DAEMON_UNHEALTHY_MARK), "rb") as handle:
            words = handle.read(64).split()
    except OSError:
        return None
    if len(words) != 2 or not all(w.isdigit() for w in words):
        return None
    return int(words[0]), int(words[1])


def _healthy(where: Where) -> None:
    try:
        os.unlink(where.state(constants.DAEMON_UNHEALTHY_MARK))
    except OSError:
        pass


def _missed(where: Where, pid: int, why: str) -> None:
    """Count a missed deadline; replace the daemon after MISSES_BEFORE_REPLACE in a row."""
    mark = _read_mark(where)
    misses = mark[1] + 1 if mark is not None and mark[0] == pid else 1
    if misses >= MISSES_BEFORE_REPLACE:
        _replace(where, pid)
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


def _replace(where: Where, pid: int) -> None:
    """Kill an unhealthy daemon (only when it is ours) and start a new one."""
    if is_our_daemon(pid, where):
        try:
            os.kill(pid, 9)  # SIGKILL: a stopped process cannot handle SIGTERM
        except OSError:
            pass
    _healthy(where)
    ensure_daemon(where, force=True)


# --- starting a daemon ---


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


# --- what the hot doors print ---


def snapshot_report(info: Mapping[str, Any], changed: int, ms: float, as_json: bool) -> str:
    """What `interlock snapshot` prints on stdout (the daemon and the inline path share it)."""
    if as_json:
        import json  # only in the daemon or the full CLI: the hot path prints what they wrote

        return json.dumps({**info, "changed": changed, "ms": ms}, ensure_ascii=False) + "\n"
    lines = [f"snapshot {info['id']} ({info['kind']}): {changed} changed vs HEAD, {ms:g} ms"]
    for reason, paths in dict(info.get("skipped") or {}).items():
        more = f" and {len(paths) - 5} more" if len(paths) > 5 else ""
        lines.append(f"  skipped ({reason}): {', '.join(paths[:5])}{more}")
    return "\n".join(lines) + "\n"


def printed(reply: Mapping[str, Any], codes: tuple[int, ...]) -> int | None:
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
