"""The wrapper's one way to a verdict: ask the warm daemon, else judge inline.

Every daemon call of the wrapper goes through `ask()`, on the minimal client of the hot doors
(interlock.daemon.hotclient: the daemon's peer verified, a deadline, health), so the warm path
imports no json, socket, pathlib or typing (tests/run/test_hotpath.py pins its import list).
When the daemon cannot answer (not running, stalled, not trusted, another build, a reply that
is not a well-formed answer), it is started in the background for the next command and this
one is judged inline with the full engine (interlock.monitor.desk: `gate`, then the run
monitor, as the daemon does), which loads the installed packages first (the wrapper starts
with `python -I -S`). Outside a git repository only the global rules
apply: there is no run and no journal.

One connection per command: `begin` connects, sends `attempt`, verifies the daemon while it
judges (its answer counts only from the verified daemon), and keeps the connection open while
the command runs; `complete` goes on it (a new one when the daemon closed it meanwhile).

The wrapper waits for `complete`'s answer when it may say something: the green line and the
run monitor's messages (a stuck loop, a spent budget, a handoff) must reach the agent with
this command's output, not the next one's. When the daemon said at `attempt` that it cannot
(`quiet`: no top-level validator, no side effect, no monitor limit near or armed; see
interlock.monitor.desk), the wrapper sends `complete` and exits without waiting: the daemon
journals it exactly as before, moments after (the daemon reads it at once; the next command
of the agent starts a new process first). The side-effect holds, which read the journal for
an unresolved attempt, never wait on a quiet one: a side effect is never quiet. A round trip
costs about a millisecond against the daemon's warm state; the measurements are in
benchmarks/README.md.

A late daemon cannot duplicate an attempt: an attempt is named by its wrapper's pid and start
time (the request says `once`), and the second `begin` for the same wrapper (the daemon
answering after the wrapper gave up and judged inline, or the other way round) answers from
the row the first one wrote.
"""

from __future__ import annotations

import sys

from interlock import constants
from interlock.daemon import hotclient

TYPE_CHECKING = False  # not `typing`: importing it costs milliseconds on every command

if TYPE_CHECKING:
    from typing import Any

    from interlock.daemon.hotclient import Channel
    from interlock.daemon.hotwhere import Where
    from interlock.run.session import Worktree

# Seconds to wait for the daemon once connected. A begin may take a baseline or a pre-discard
# snapshot and a validator's completion audits the tree and takes the green snapshot: both are
# work the inline path would redo from a cold start, so a busy daemon is worth waiting for (a
# stopped or dead one ends the wait at once; see hotclient).
ATTEMPT_DEADLINE = 10.0
COMPLETE_DEADLINE = 30.0
_VERDICTS = ("allow", "warn", "block")


def ask(
    where: Where,
    op: str,
    fields: dict[str, Any],
    deadline: float,
    channel: Channel | None = None,
) -> dict[str, Any] | None:
    """The daemon's answer to one request (on `channel` when given, else on a connection of
    its own), or None: judge inline (and start the daemon in the background when it is down,
    for the next command)."""
    stamped = {**fields, "build": hotclient.build_stamp()}
    if channel is not None:
        reply = channel.ask(op, stamped, deadline)
    else:
        reply = hotclient.ask(where, op, stamped, deadline)
    if reply is None:
        try:
            hotclient.ensure_daemon(where)
        except OSError:
            pass
        return None
    return reply if reply.get("ok") is True else None


def is_begin_reply(reply: dict[str, Any]) -> bool:
    """A begin answer the wrapper can act on; anything else is judged inline."""
    attempt, run = reply.get("attempt"), reply.get("run")
    return (
        reply.get("verdict") in _VERDICTS
        and type(reply.get("exit_code")) is int
        and reply.get("exit_code") in (0, 126)
        and isinstance(reply.get("messages"), str)
        and isinstance(reply.get("interpose"), bool)
        and (attempt is None or type(attempt) is int)
        and (run is None or isinstance(run, str))
        and (attempt is None) == (run is None)
    )


def load_site() -> None:
    """Make the interpreter's installed packages importable (the wrapper starts without them:
    `python -I -S`), for the inline path only."""
    if "site" not in sys.modules:
        import site

        site.main()


def inline_worktree(cwd: str) -> Worktree:
    load_site()
    from interlock.git import require_repo
    from interlock.journal import Journal
    from interlock.memory.snapshot import take_snapshot, worktree_tree
    from interlock.run.session import Worktree

    loc = require_repo(cwd)
    journal = Journal(loc, verify=True)

    def snapshot(kind: str, meta: dict[str, Any]) -> Any:
        return take_snapshot(loc, kind=kind, **meta)

    return Worktree(loc, journal, snapshot, lambda: None, lambda: worktree_tree(loc))


def _with_warning(reply: dict[str, Any], wt: Worktree) -> dict[str, Any]:
    if wt.journal.warning:
        note = f"interlock: warning: {wt.journal.warning}"
        reply["messages"] = "\n".join(m for m in (note, reply.get("messages")) if m)
    return reply


def _outside(req: dict[str, Any]) -> dict[str, Any]:
    """Outside any repository: the global rules, no run, nothing journaled."""
    load_site()
    from interlock import exitcodes
    from interlock.engine.check import evaluate
    from interlock.run.notices import render

    result = evaluate(str(req.get("judge") or req["command"]), str(req["cwd"])).result
    return {
        "verdict": result.verdict,
        "exit_code": exitcodes.BLOCKED if result.verdict == "block" else exitcodes.OK,
        "would_block": result.would_block,
        "messages": "\n".join(render(list(result.findings), [], result.verdict)),
        "attempt": None,
        "run": None,
        "interpose": False,
        "mode": result.mode,
    }


class Door:
    """Where a command's begin was answered, for its complete: the worktree (None outside a
    repository), and the daemon's connection when the daemon answered (kept open while the
    command runs, so `complete` needs no second connect and peer check)."""

    __slots__ = ("channel", "where")

    def __init__(self, where: Where | None, channel: Channel | None = None) -> None:
        self.where = where
        self.channel = channel

    def close(self) -> None:
        if self.channel is not None:
            self.channel.close()
            self.channel = None


def begin(req: dict[str, Any]) -> tuple[dict[str, Any], Door]:
    """The begin reply for one command, and where it was answered."""
    cwd = str(req["cwd"])
    where = hotclient.find(cwd)
    if where is None:
        return _outside(req), Door(None)
    # The attempt goes out before the peer check, which then runs while the daemon judges:
    # an untrusted daemon's answer is never used, and the attempt it may have journaled is
    # the one the inline path finds (`once`).
    channel = hotclient.connect(where, verify_first=False)
    reply = ask(where, "attempt", req, ATTEMPT_DEADLINE, channel) if channel else None
    if reply is not None and is_begin_reply(reply):
        return reply, Door(where, channel)
    if channel is not None:
        channel.close()
    else:
        try:
            hotclient.ensure_daemon(where)  # down (or not trusted): for the next command
        except OSError:
            pass
    wt = inline_worktree(cwd)  # loads site first: the monitor's imports need it
    from interlock.monitor import desk

    try:
        return _with_warning(desk.begin(wt, req), wt), Door(where)
    finally:
        wt.journal.close()


def complete(door: Door, cwd: str, req: dict[str, Any], quiet: bool = False) -> dict[str, Any]:
    """Journal how the command ended (the daemon, else inline); the reply's messages.

    `quiet`: the daemon said at begin that this command's completion has nothing to tell the
    agent (no validator, no side effect, no monitor message that could fall due): the request
    is sent on the begin's connection and not waited for; the daemon journals it whole, also
    after this process has exited. A connection the daemon closed meanwhile (idle for
    minutes, stopped, replaced) is replaced by a new one."""
    where = door.where
    assert where is not None
    try:
        channel = door.channel if door.channel is not None and door.channel.alive() else None
        if channel is not None and quiet:
            unread = {**req, "waiting": False, "build": hotclient.build_stamp()}
            if channel.send("complete", unread):
                return {"messages": ""}
            channel = None
        reply = ask(where, "complete", req, COMPLETE_DEADLINE, channel)
    finally:
        door.close()
    if reply is not None and isinstance(reply.get("messages"), str):
        return reply
    wt = inline_worktree(where.worktree if _isdir(where.worktree) else cwd)
    from interlock.monitor import desk

    try:
        return _with_warning(desk.complete(wt, req), wt)
    finally:
        wt.journal.close()


def _isdir(path: str) -> bool:
    from interlock.daemon import hotos

    return hotos.isdir(path)


def mode_is_off(cwd: str) -> bool:
    """Whether the config in force here says `mode = off`: the one case where a command runs
    although interlock failed to judge it. The run named by INTERLOCK_RUN decides when it
    exists; else every open run and the config file must all say off (unknown is guarded)."""
    try:
        load_site()
        import os

        from interlock.config import load_config
        from interlock.git import discover
        from interlock.journal import opened
        from interlock.run import records

        loc = discover(cwd)
        if loc is None:
            return load_config(None).mode == "off"
        with opened(loc) as journal:
            named = os.environ.get(constants.ENV_RUN)
            run = records.get_run(journal, named) if named else None
            if run is not None:
                modes = [run.config.get("mode")]
            else:
                modes = [load_config(loc.worktree).mode]
                modes += [r.config.get("mode") for r in records.open_runs(journal)]
        return all(mode == "off" for mode in modes)
    except Exception:  # unknown means guarded
        return False
