"""The wrapper's one way to a verdict: ask the warm daemon, else judge inline.

Every daemon call of the wrapper goes through `ask()` (interlock.daemon.client's `locate()`
and `request()`), so the transport can be swapped in one place. When the daemon cannot answer
(not running, another build, a reply that is not a well-formed answer), it is started in the
background for the next command and this one is judged inline with the full engine
(interlock.monitor.desk: `gate`, then the run monitor, as the daemon does), which loads the
installed packages first (the wrapper starts with `python -I -S`).
Outside a git repository only the global rules apply: there is no run and no journal.
"""

from __future__ import annotations

import os
import sys

from interlock import constants

TYPE_CHECKING = False  # not `typing`: importing it costs milliseconds on every command

if TYPE_CHECKING:
    from typing import Any

    from interlock.daemon.client import ThinLocation
    from interlock.run.session import Worktree


def locate(cwd: str) -> ThinLocation | None:
    from interlock.daemon import client

    return client.locate(cwd)


def ask(loc: ThinLocation, op: str, fields: dict[str, Any]) -> dict[str, Any] | None:
    """The daemon's answer to one request, or None: judge inline."""
    from interlock.daemon import client

    if client.daemon_disabled():
        return None
    try:
        reply = client.request(loc, op, build=constants.build_stamp(), **fields)
    except Exception:  # an unusable socket: inline (`interlock daemon status` says why)
        return None
    if reply is None:
        try:
            client.ensure_daemon(loc)
        except OSError:
            pass
        return None
    return reply if reply.get("ok") is True else None


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


def begin(req: dict[str, Any]) -> tuple[dict[str, Any], ThinLocation | None]:
    """The begin reply for one command, and where it was answered (None: no repository)."""
    cwd = str(req["cwd"])
    loc = locate(cwd)
    if loc is None:
        return _outside(req), None
    reply = ask(loc, "attempt", req)
    if reply is not None:
        return reply, loc
    wt = inline_worktree(cwd)  # loads site first: the monitor's imports need it
    from interlock.monitor import desk

    try:
        return _with_warning(desk.begin(wt, req), wt), loc
    finally:
        wt.journal.close()


def complete(loc: ThinLocation, cwd: str, req: dict[str, Any]) -> dict[str, Any]:
    reply = ask(loc, "complete", req)
    if reply is not None:
        return reply
    wt = inline_worktree(os.fspath(loc.worktree) if os.path.isdir(loc.worktree) else cwd)
    from interlock.monitor import desk

    try:
        return desk.complete(wt, req)
    finally:
        wt.journal.close()


def mode_is_off(cwd: str) -> bool:
    """Whether the config in force here says `mode = off`: the one case where a command runs
    although interlock failed to judge it. The run named by INTERLOCK_RUN decides when it
    exists; else every open run and the config file must all say off (unknown is guarded)."""
    try:
        load_site()
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
