"""`interlock pause`, `interlock resume`, `interlock stop`: a person's brakes."""

from __future__ import annotations

import getpass
import os

from interlock import exitcodes, output
from interlock.errors import InterlockError
from interlock.git import require_repo
from interlock.monitor import control, state
from interlock.monitor.handoff import Why, handoff_paths
from interlock.monitor.stop import stop_run
from interlock.run import records, session
from interlock.run.link import inline_worktree


def _person_only(what: str) -> str:
    why = session.inside_run()
    if why is not None:
        raise InterlockError(
            f"`interlock {what}` is for a person, outside the run ({why})",
            hint="run it in your own terminal, not through the agent",
        )
    try:
        return f"{getpass.getuser()} (interlock {what})"
    except (KeyError, OSError):
        return f"a person (interlock {what})"


def pause(cwd: str | None) -> int:
    by = _person_only("pause")
    loc = require_repo(cwd)
    if not control.pause(loc, by):
        output.write_out("interlock: already paused (interlock resume lifts it)")
        return exitcodes.OK
    output.write_out(
        "interlock: paused: a command that would start a new run is refused; runs already "
        "open go on (this is not a kill switch: interlock stop is)"
    )
    return exitcodes.OK


def resume(cwd: str | None) -> int:
    _person_only("resume")
    loc = require_repo(cwd)
    if control.resume(loc):
        output.write_out(
            "interlock: resumed: new runs may start (a stopped run stays stopped; "
            "interlock run start begins a new one)"
        )
    else:
        output.write_out("interlock: not paused")
    return exitcodes.OK


def stop(cwd: str | None, run_id: str | None) -> int:
    by = _person_only("stop")
    loc = require_repo(cwd)
    wt = inline_worktree(os.fspath(loc.worktree))
    stopped: list[tuple[str, str]] = []
    try:
        targets = [r for r in records.open_runs(wt.journal) if run_id in (None, r.id)]
        if run_id and not targets:
            raise InterlockError(f"no open run {run_id!r}", hint="list them: interlock runs")
        tree = wt.tree_now() if targets else None
        for run in targets:
            if state.stop_of(wt.journal, run.id) is not None:
                continue
            why = Why(
                control.KILL,
                f"a person stopped it ({by})",
                "read what changed since the last green point and the open objectives; "
                "interlock resume lets new runs start, interlock run start begins one",
            )
            turns = state.load(wt.journal, run.id).turns
            stop_run(loc, wt.journal, run, why, by, turns, tree)
            stopped.append((run.id, str(handoff_paths(loc, run.id)[0])))
    finally:
        wt.journal.close()
    paused = run_id is None and control.pause(loc, by)
    for run_name, path in stopped:
        output.write_out(
            f"interlock: stopped run {run_name}: every further command of it is refused"
        )
        output.write_out(f"  handoff: {path}")
    if not stopped:
        output.write_out("interlock: no open run to stop")
    if paused:
        output.write_out("interlock: paused too: no new run starts until interlock resume")
    return exitcodes.OK
