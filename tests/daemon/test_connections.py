"""The daemon's connections: threads waiting in accept() serve them, and a request sent before
its client verified the daemon is acted on only by the daemon that client will trust.
Real daemons over their real sockets, raw protocol lines."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from interlock import git
from interlock.daemon import client, hotclient
from interlock.daemon.server import Acceptors


def _connect(repo: Path) -> socket.socket:
    loc = git.require_repo(repo)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(30)
    sock.connect(os.fspath(client.default_socket_path(loc)))
    return sock


def _ask(sock: socket.socket, request: dict[str, Any]) -> dict[str, Any]:
    sock.sendall(json.dumps(request).encode() + b"\n")
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = sock.recv(65536)
        assert chunk, "the daemon closed the connection"
        buf += chunk
    reply: dict[str, Any] = json.loads(buf)
    return reply


def _attempts(repo: Path) -> int:
    with sqlite3.connect(repo / ".git" / "interlock" / "journal.db") as db:
        return int(db.execute("SELECT count(*) FROM attempts").fetchone()[0])


def _agent_event(repo: Path, command: str) -> dict[str, Any]:
    event = {"cwd": str(repo), "hook_event_name": "PreToolUse", "tool_name": "Bash",
             "tool_use_id": f"t-{command}", "session_id": "s", "tool_input": {"command": command}}
    return {"op": "agent", "agent": "claude-code", "event": "PreToolUse",
            "payload": json.dumps(event), "cwd": str(repo), "run": None, "agent_parent": os.getpid(),
            "env": {}, "build": hotclient.build_stamp()}


def test_a_request_naming_another_daemon_is_refused_and_the_right_one_is_served(daemons, git_repo):
    daemons.start(git_repo)
    trusted = hotclient.daemon_argv(str(git_repo.resolve()))
    other = ["/usr/bin/python3", *trusted[1:]]
    with _connect(git_repo) as sock:
        refused = _ask(sock, {"op": "ping", "expect_daemon": other})
        served = _ask(sock, {"op": "ping", "expect_daemon": trusted})
    assert refused["ok"] is False
    assert "not served before the client verified the daemon" in refused["error"]
    assert served["ok"] is True and served["pid"] == daemons.pid_of(git_repo)


def test_an_agent_event_for_a_daemon_the_door_would_not_trust_is_never_journaled(
    daemons, git_repo
):
    # the door throws that daemon's answer away and judges inline: one attempt, not two
    daemons.start(git_repo)
    trusted = hotclient.daemon_argv(str(git_repo.resolve()))
    with _connect(git_repo) as sock:
        _ask(sock, _agent_event(git_repo, "ls"))  # the journal exists from here on
        before = _attempts(git_repo)
        refused = _ask(sock, {**_agent_event(git_repo, "pwd"), "expect_daemon": trusted[:-1]})
        assert refused["ok"] is False
        assert _attempts(git_repo) == before
        served = _ask(sock, {**_agent_event(git_repo, "pwd"), "expect_daemon": trusted})
    assert served["ok"] is True and served["exit_code"] == 0
    assert _attempts(git_repo) == before + 1


def test_connections_that_say_nothing_never_hold_up_the_next_one(daemons, git_repo):
    daemons.start(git_repo)
    idle = [_connect(git_repo) for _ in range(Acceptors.KEEP + 3)]
    try:
        with _connect(git_repo) as sock:
            sock.settimeout(5)
            started = time.monotonic()
            assert _ask(sock, {"op": "ping"})["ok"] is True
        assert time.monotonic() - started < 5
    finally:
        for sock in idle:
            sock.close()


def test_a_request_that_asks_for_a_frame_gets_one_line_of_words_then_its_bytes(
    daemons, git_repo
):
    daemons.start(git_repo)
    with _connect(git_repo) as sock:
        sock.sendall(b'{"op": "nope", "frame": true}\n{"op": "ping", "frame": true}\n')
        assert _read_exactly(sock, len(b"error usage\nerror shape\n")) == (
            b"error usage\nerror shape\n"
        )
    event = _agent_event(git_repo, "ls")
    body = event.pop("payload").encode()
    request = {**event, "hook_cwd": str(git_repo), "frame": True, "body_bytes": len(body)}
    with _connect(git_repo) as sock:
        sock.sendall(json.dumps(request).encode() + b"\n" + body)
        assert _read_exactly(sock, 9) == b"ok 0 0 0\n"


def test_a_body_shorter_than_announced_drops_the_connection_unanswered(daemons, git_repo):
    daemons.start(git_repo)
    event = _agent_event(git_repo, "ls")
    body = event.pop("payload").encode()
    request = {**event, "hook_cwd": str(git_repo), "frame": True, "body_bytes": len(body) + 5}
    with _connect(git_repo) as sock:
        sock.sendall(json.dumps(request).encode() + b"\n" + body)
        sock.shutdown(socket.SHUT_WR)
        assert sock.recv(100) == b""
    with _connect(git_repo) as sock:
        oversized = {**request, "body_bytes": 1 << 40}
        sock.sendall(json.dumps(oversized).encode() + b"\n")
        assert sock.recv(100) == b""


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        assert chunk, f"closed after {data!r}"
        data += chunk
    return data


def _serve_in_process(tmp_path: Path, handlers: dict[str, Any]) -> tuple[Acceptors, str]:
    path = os.fspath(tmp_path / "s.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(8)
    acceptors = Acceptors(listener, handlers)
    acceptors.start()
    return acceptors, path


def _request(path: str, op: str) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(path)
        return _ask(sock, {"op": op})


def test_a_thread_whose_priority_a_request_lowered_does_not_serve_again(tmp_path, poll):
    served_by: list[int] = []

    def lower(req: dict[str, Any]) -> dict[str, Any]:
        tid = threading.get_native_id()
        served_by.append(tid)
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + 1)
        return {}

    def who(req: dict[str, Any]) -> dict[str, Any]:
        tid = threading.get_native_id()
        return {"tid": tid, "nice": os.getpriority(os.PRIO_PROCESS, tid)}

    acceptors, path = _serve_in_process(tmp_path, {"lower": lower, "who": who})
    try:
        normal = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        assert _request(path, "lower")["ok"] is True
        poll(lambda: served_by[0] not in {t.native_id for t in threading.enumerate()},
             what="the lowered thread to end")
        for _ in range(Acceptors.KEEP * 3):  # whoever serves next runs at the usual priority
            answer = _request(path, "who")
            assert answer["nice"] == normal and answer["tid"] != served_by[0]
        poll(lambda: acceptors.idle == Acceptors.KEEP, what="two threads waiting again")
    finally:
        acceptors.stop()
        acceptors.listener.close()


def test_stopping_ends_every_waiting_thread(tmp_path, poll):
    acceptors, path = _serve_in_process(tmp_path, {"ping": lambda req: {}})
    assert _request(path, "ping")["ok"] is True
    acceptors.stop()
    poll(lambda: acceptors.idle == 0, what="the waiting threads to end")
    acceptors.listener.close()


def test_an_early_request_to_a_daemon_whose_pid_file_is_not_the_one_it_locked_is_refused(
    daemons, git_repo
):
    # A door that sends its request before verifying the daemon does not test the pid file's
    # lock itself (hotwhere.trust_problem, vouched): the daemon's own check must refuse when
    # the pid file still names it but is not the file it holds locked (a replaced, stale one).
    pid = daemons.start(git_repo)
    loc = git.require_repo(git_repo)
    where = hotclient.find(str(git_repo))
    assert where is not None
    with _connect(git_repo) as sock:
        pidfile = loc.state_dir / "daemon.pid"
        copy = pidfile.with_name("daemon.pid.copy")
        copy.write_bytes(pidfile.read_bytes())
        os.replace(copy, pidfile)
        assert not hotclient.is_locked(where)
        assert hotclient.trust_problem(sock, where, vouched=True) == (pid, None)
        assert hotclient.trust_problem(sock, where)[1] == "the daemon's pid file is not locked"
        fields = {"command": "ls", "cwd": str(git_repo), "build": hotclient.build_stamp()}
        sock.sendall(hotclient.body_request(where, "check", fields))
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = sock.recv(65536)
            if not chunk:
                break  # the daemon saw its pid file replaced and stopped: no answer either
            reply += chunk
    assert reply in (b"error usage\n", b""), reply
