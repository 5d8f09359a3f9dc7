"""`interlock hook shell FIFO-IN FIFO-OUT`: the co-process of a person's interactive shell.

`shell/interlock.bash` and `shell/interlock.zsh` start it once per shell, in the background,
and talk to it through two FIFOs (it unlinks them once open), so that checking a typed
command costs no process start: the shell writes `ID NUL CWD NUL LINE NUL` (LINE as
`history 1` prints it in bash, number first; as typed in zsh) and reads `ID NUL WARNING NUL`
back, waiting a few seconds at most. For each line this process asks the worktree's warm
daemon (`advise`: judge the command, save what a discard would lose, say so); it never
judges inline - a person's prompt must not wait for the engine to load. When the daemon is
unavailable, it is started in the background, and the person gets one notice for the
whole shell session, then silence. Outside a repository nothing is said.

Standard library and the minimal daemon client only; it exits when the shell closes the
FIFO (end of file).
"""

from __future__ import annotations

import os

from interlock import constants
from interlock.daemon import hotclient

ADVISE_DEADLINE = 3.0  # seconds; the shell gives up waiting shortly after
_NOTICE = (
    "interlock: note: interlock's daemon is not running for {top}, so typed commands are "
    "not checked until it is (it is being started; `interlock daemon status` says more)"
)


def _history_text(line: str) -> str:
    """`history 1` output without its entry number (`  42* git status` -> `git status`)."""
    stripped = line.lstrip(" ")
    digits = len(stripped) - len(stripped.lstrip("0123456789"))
    if digits == 0:
        return line
    rest = stripped[digits:]
    if rest.startswith("*"):
        rest = rest[1:]
    return rest[2:] if rest.startswith("  ") else rest.lstrip(" ")


class Advisor:
    """Answers one typed command at a time; remembers whether the notice was given."""

    def __init__(self) -> None:
        self.noticed: set[str] = set()

    def answer(self, cwd: str, line: str, numbered: bool) -> str:
        command = (_history_text(line) if numbered else line).rstrip("\n")
        if not command.strip() or not os.path.isdir(cwd):
            return ""
        where = hotclient.find(cwd)
        if where is None or hotclient.daemon_disabled():
            return ""
        env = {k: v for k, v in os.environ.items() if k.startswith(constants.ENV_PREFIX)}
        fields = {"command": command, "cwd": cwd, "env": env, "build": hotclient.build_stamp()}
        reply = hotclient.ask(where, "advise", fields, ADVISE_DEADLINE)
        if reply is None or reply.get("ok") is not True:
            hotclient.ensure_daemon(where)
            if where.worktree in self.noticed:
                return ""
            self.noticed.add(where.worktree)
            return _NOTICE.format(top=where.worktree)
        warning = reply.get("warning")
        return warning if isinstance(warning, str) else ""


def serve(fd_in: int, fd_out: int, numbered: bool) -> None:
    advisor = Advisor()
    _send(fd_out, b"0\0\0")  # ready
    buf = b""
    while True:
        try:
            chunk = os.read(fd_in, 1 << 16)
        except InterruptedError:
            continue
        except OSError:
            return
        if not chunk:
            return
        buf += chunk
        parts = buf.split(b"\0")
        while len(parts) >= 4:
            ident, cwd, line = parts[0], parts[1], parts[2]
            parts = parts[3:]
            try:
                text = advisor.answer(os.fsdecode(cwd), line.decode("utf-8", "replace"), numbered)
            except Exception:  # a person's prompt never gets a traceback
                text = ""
            if not _send(fd_out, ident + b"\0" + text.encode("utf-8", "replace") + b"\0"):
                return
        buf = b"\0".join(parts)


def _send(fd: int, data: bytes) -> bool:
    while data:
        try:
            data = data[os.write(fd, data) :]
        except InterruptedError:
            continue
        except OSError:
            return False
    return True


def main(argv: list[str]) -> int:
    """argv: FIFO-IN FIFO-OUT [--numbered] (bash sends `history 1` lines, numbered)."""
    if len(argv) < 2:
        os.write(2, b"interlock: usage: interlock hook shell FIFO-IN FIFO-OUT [--numbered]\n")
        return 2
    fd_in = os.open(argv[0], os.O_RDONLY | os.O_CLOEXEC)
    fd_out = os.open(argv[1], os.O_WRONLY | os.O_CLOEXEC)
    for path in argv[:2]:
        try:
            os.unlink(path)
        except OSError:
            pass
    try:
        os.rmdir(os.path.dirname(os.path.abspath(argv[0])))
    except OSError:
        pass
    serve(fd_in, fd_out, "--numbered" in argv[2:])
    return 0
