"""A process that pretends to be a worktree's daemon, for the client's trust tests.

    python fakedaemon.py STATE_DIR WORKTREE HOW REPLY [PADDING]

It binds the daemon's socket path (removing what is there) and answers every request line
with REPLY's bytes. HOW says how far it goes to look like the daemon:
- `socket`: only the socket (the pid file still names the real daemon, or nothing);
- `pidfile`: also writes its own pid into the pid file and locks it;
- `forged`: also rewrites its own command line in memory (/proc/self/mem) to be exactly the
  trusted daemon's, as a same-user process can. PADDING makes its argv area long enough.
It prints "ready" once it listens.
"""

from __future__ import annotations

import fcntl
import os
import socket
import sys
import time

REPLIES = {
    "allow": b'{"ok": true, "stdout": "", "stderr": "", "exit_code": 0}\n',
    # a well-formed answer to the wrapper's `attempt`: allowed, nothing to say, no run
    "attempt-allow": (
        b'{"ok": true, "verdict": "allow", "exit_code": 0, "would_block": false, "messages": "",'
        b' "attempt": null, "run": null, "interpose": false, "mode": "off", "quiet": true}\n'
    ),
    "garbage": b"this is not json\n",
    "truncated": b'{"ok": true, "stdout": "", "std',
    "list": b"[1, 2, 3]\n",
    "no-ok": b'{"stdout": "", "stderr": "", "exit_code": 0}\n',
    "wrong-types": b'{"ok": true, "stdout": 1, "stderr": null, "exit_code": "0"}\n',
    "bool-code": b'{"ok": true, "stdout": "", "stderr": "", "exit_code": false}\n',
    "odd-code": b'{"ok": true, "stdout": "", "stderr": "", "exit_code": 7}\n',
    "trailing": b'{"ok": true, "stdout": "", "stderr": "", "exit_code": 0} {}\n',
    "bad-utf8": b'{"ok": true, "stdout": "\xff", "stderr": "", "exit_code": 0}\n',
    "deep": b"[" * 100000 + b"\n",
    "close": b"",
    # framed replies (a request with `frame: true`: the launcher's check door) that are no answer
    "frame-odd-code": b"ok 7 0 0\n",
    "frame-error": b"error bug\n",
    "frame-short": b"ok 0 5 0\nab",
    "frame-header": b"ok 0 x 0\n",
    "silent": None,  # reads the request, then never answers: a stuck daemon
}


def trusted_argv(worktree: str) -> list[str]:
    return [sys.executable, "-I", "-m", "interlock", "daemon", "run", "--cwd", worktree]


def forge_cmdline(worktree: str) -> None:
    with open("/proc/self/stat", "rb") as handle:
        fields = handle.read().rsplit(b")", 1)[1].split()
    start, end = int(fields[45]), int(fields[46])
    data = b"\0".join(os.fsencode(a) for a in trusted_argv(worktree)) + b"\0"
    if len(data) > end - start:
        raise SystemExit(f"argv area too small: {end - start} < {len(data)}")
    with open("/proc/self/mem", "r+b", buffering=0) as mem:
        mem.seek(start)
        mem.write(data.ljust(end - start, b"\0"))


def main() -> None:
    state, worktree, how, reply = sys.argv[1:5]
    path = os.path.join(state, "daemon.sock")
    if os.path.lexists(path):
        os.unlink(path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    lock = None
    if how in ("pidfile", "forged"):
        pid_path = os.path.join(state, "daemon.pid")
        if os.path.lexists(pid_path):
            os.unlink(pid_path)
        lock = os.open(pid_path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(lock, fcntl.LOCK_EX)
        os.write(lock, f"{os.getpid()}\n".encode())
    if how == "forged":
        forge_cmdline(worktree)
    print("ready", flush=True)
    while True:
        conn, _ = listener.accept()
        with conn:
            try:
                data = b""
                while not data.endswith(b"\n"):
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                answer = REPLIES[reply]
                if answer is None:
                    time.sleep(3600)
                conn.sendall(answer)
            except OSError:
                continue  # the client hung up first: it did not trust us


if __name__ == "__main__":
    main()
