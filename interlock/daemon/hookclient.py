"""The pre-commit hook's fast path: ask this worktree's warm daemon to run the hook.

git starts a new Python for every commit; importing interlock's modules costs several times
Python's own start-up, while the daemon has them loaded already. So this module imports only
os, sys and the C modules `_socket` and `_json` (not `json`, which pulls in `re`), sends one
request `{"op": "hook", "name", "args", "cwd", "index_file", "env"}` and prints the reply's
stdout and stderr. It answers None whenever the daemon cannot answer (not running, a daemon
without the `hook` op, a timeout, an unreadable reply, a chained hook or the recursion guard
to honour): the caller then runs the hook in-process, so nothing depends on the daemon.
"""

from __future__ import annotations

import _json
import _socket
import os
import sys

from interlock import constants

FAST_HOOKS = ("pre-commit",)
CONNECT_TIMEOUT = 0.3
REPLY_TIMEOUT = 60.0
MAX_REPLY = 16 << 20
_CHAINED_SUFFIXES = (".legacy", ".pre-commit-framework")


class _JsonContext:
    """What `_json.make_scanner` reads: plain JSON, no hooks."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float
    memo: dict[str, str] = {}


def _encode(value: object) -> str:
    if isinstance(value, str):
        return str(_json.encode_basestring_ascii(value))
    if value is None:
        return "null"
    if isinstance(value, list):
        return "[" + ", ".join(_encode(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_encode(k)}: {_encode(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot encode {type(value).__name__}")


def _git_dir() -> str | None:
    """The worktree's git dir, as git gives it to a hook (cwd is the worktree top)."""
    named = os.environ.get("GIT_DIR")
    if named:
        return os.path.abspath(named)
    return os.path.abspath(".git") if os.path.isdir(".git") else None


def _socket_path(git_dir: str) -> str | None:
    state = os.path.join(git_dir, constants.STATE_DIR_NAME)
    default = os.path.join(state, constants.SOCKET_FILE)
    if len(os.fsencode(default)) <= constants.SOCKET_PATH_MAX:
        return default
    try:
        with open(os.path.join(state, constants.DAEMON_SOCKET_WHERE), "rb") as handle:
            text = handle.read().strip()
    except OSError:
        return None
    return os.fsdecode(text) if text else None


def _is_our_socket(path: str) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return (st.st_mode & 0o170000) == 0o140000 and st.st_uid == os.getuid()


def _exchange(path: str, payload: bytes) -> bytes | None:
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        sock.connect(path)
        creds = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
        if int.from_bytes(creds[4:8], sys.byteorder) != os.getuid():
            return None
        sock.settimeout(REPLY_TIMEOUT)
        sock.sendall(payload)
        reply = bytearray()
        while not reply.endswith(b"\n"):
            chunk = sock.recv(1 << 16)
            if not chunk or len(reply) > MAX_REPLY:
                return None
            reply += chunk
        return bytes(reply)
    except OSError:  # not running, refused, timed out: the in-process path answers
        return None
    finally:
        sock.close()


def _is_applicable(name: str, hook_path: str | None) -> bool:
    if name not in FAST_HOOKS or not hook_path:
        return False
    if os.environ.get(constants.ENV_HOOK_ACTIVE) or os.environ.get(
        constants.ENV_NO_DAEMON, ""
    ) not in ("", "0"):
        return False
    hooks_dir = os.path.dirname(hook_path) or "."
    return not any(os.path.lexists(os.path.join(hooks_dir, name + s)) for s in _CHAINED_SUFFIXES)


def try_daemon(name: str, args: list[str], hook_path: str | None) -> int | None:
    """The hook's exit status as the daemon ran it, or None: run it in-process instead."""
    if not _is_applicable(name, hook_path):
        return None
    git_dir = _git_dir()
    path = _socket_path(git_dir) if git_dir else None
    if path is None or not _is_our_socket(path):
        return None
    index = os.environ.get("GIT_INDEX_FILE")
    request = {
        "op": "hook",
        "name": name,
        "args": list(args),
        "cwd": os.getcwd(),
        "index_file": os.path.abspath(index) if index else None,
        "env": {k: v for k, v in os.environ.items() if k.startswith(constants.ENV_PREFIX)},
        "build": constants.build_stamp(),
    }
    raw = _exchange(path, (_encode(request) + "\n").encode("ascii"))
    if raw is None:
        return None
    try:
        reply, _ = _json.make_scanner(_JsonContext())(raw.decode("utf-8"), 0)  # type: ignore[arg-type]
    except (ValueError, StopIteration, UnicodeDecodeError):
        return None
    if not isinstance(reply, dict) or reply.get("ok") is not True:
        return None
    code = reply.get("exit_code")
    if not isinstance(code, int):
        return None
    sys.stdout.write(str(reply.get("stdout") or ""))
    sys.stdout.flush()
    sys.stderr.write(str(reply.get("stderr") or ""))
    sys.stderr.flush()
    return code
