"""Stopping a run: the handoff written, the stop journaled, and what the agent is told then
and on every later command.

A kill switch stop (`interlock stop`) refuses every further command of the run, whatever the
mode. A stop by the monitor (stuck after its one recovery, an environment problem,
`max_turns`) refuses them in blocking mode; in advisory mode the commands run, and the first
STOP_REMINDERS of them carry a one-line reminder (then nothing: advisory never nags without
end).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from interlock.git import RepoLocation
from interlock.journal import Journal
from interlock.monitor import handoff, todo
from interlock.monitor.control import KILL
from interlock.monitor.handoff import Why
from interlock.monitor.say import message
from interlock.monitor.state import add_stop
from interlock.run.records import Run

STOP_REMINDERS = 3
EVIDENCE_SHOWN = 4


def _shown(loc: RepoLocation, path: Path) -> str:
    try:
        return os.path.relpath(path, loc.worktree)
    except ValueError:
        return str(path)


def refuses(stop: dict[str, Any], mode: str) -> bool:
    """Whether a stopped run's further commands are refused."""
    return stop.get("kind") == KILL or mode == "blocking"


def stop_run(
    loc: RepoLocation,
    journal: Journal,
    run: Run,
    why: Why,
    by: str,
    turns: int,
    tree_now: str | None = None,
) -> str:
    """Write the handoff, journal the stop; the `[handoff]` message for the agent."""
    data = handoff.build(loc, journal, run, why, turns, tree_now)
    md, _ = handoff.write(loc, data)
    add_stop(
        journal,
        run.id,
        {"kind": why.kind, "reason": why.reason, "by": by, "time": time.time(), "handoff": str(md)},
    )
    mode = str(run.config.get("mode"))
    after = (
        "every further command of this run is refused"
        if refuses({"kind": why.kind}, mode)
        else "further commands still run (advisory mode), but this run is over"
    )
    open_items = todo.outstanding(loc)
    fields = [
        ("evidence", "\n".join(why.evidence[-EVIDENCE_SHOWN:])),
        (
            "open",
            f"{len(open_items)} objective(s): "
            + "; ".join(f"#{i.id} {i.text}" for i in open_items[:4])
            if open_items
            else "",
        ),
        ("handoff", f"{_shown(loc, md)} (and .json beside it)"),
        ("next", why.next_action),
        ("then", after),
    ]
    return message("handoff", f"the run stops here: {why.reason}", fields)


def refusal(loc: RepoLocation, stop: dict[str, Any], command: str) -> str:
    """The message of a command refused because its run was stopped."""
    who = "a person stopped it (interlock stop)" if stop.get("kind") == KILL else stop.get("reason")
    path = Path(str(stop.get("handoff") or ""))
    return message(
        "handoff",
        f"refused: {command}",
        (
            ("why", f"this run was stopped: {who}"),
            ("handoff", _shown(loc, path) if stop.get("handoff") else ""),
            (
                "instead",
                "stop working in this run; a person reads the handoff and starts a new run "
                "(interlock run start)",
            ),
        ),
    )


def reminder(stop: dict[str, Any]) -> str:
    return (
        f"interlock: [handoff] this run was stopped ({stop.get('reason')}); it is over: "
        f"stop and hand off (handoff: {stop.get('handoff')})"
    )
