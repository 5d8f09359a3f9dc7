"""`interlock status` (this worktree at a glance) and `interlock done` (the end-of-task check)."""

from __future__ import annotations

import os
from typing import Any

from interlock import exitcodes, output
from interlock.config import load_config
from interlock.daemon import client
from interlock.errors import InterlockError
from interlock.git import RepoLocation, require_repo
from interlock.journal import Journal
from interlock.memory.catalog import SnapshotInfo, iso_time
from interlock.memory.snapshot import diff_snapshot, list_snapshots
from interlock.monitor import report
from interlock.run import records, session, tiers
from interlock.run.link import inline_worktree
from interlock.run.records import Run


def _last_green(loc: RepoLocation, run: Run | None) -> SnapshotInfo | None:
    greens = list_snapshots(loc, kind="green")
    mine = [g for g in greens if run is not None and g.run == run.id]
    found = mine or greens
    return found[0] if found else None


def _daemon(loc: RepoLocation) -> dict[str, Any]:
    try:
        reply = client.request(loc, "ping")
    except InterlockError as exc:
        return {"running": False, "problem": str(exc)}
    if reply and reply.get("ok"):
        return {"running": True, "pid": reply.get("pid")}
    return {"running": False, "locked": client.is_daemon_locked(loc)}


def _status_data(loc: RepoLocation, journal: Journal) -> dict[str, Any]:
    run = session.current_run(journal)
    if run is not None:
        mode, source = run.config.get("mode"), f"run {run.id} (frozen at its baseline)"
    else:
        config = load_config(loc.worktree)
        mode, source = config.mode, config.sources.get("mode", "default")
    green = _last_green(loc, run)
    changed = len(diff_snapshot(loc, green)) if green is not None else None
    loose = records.unresolved(journal)
    data: dict[str, Any] = {
        "worktree": os.fspath(loc.worktree),
        "mode": mode,
        "mode_source": source,
        "run": None,
        "daemon": _daemon(loc),
        "last_green": green.to_json() if green is not None else None,
        "changed_since_green": changed,
        "unresolved": [a.to_json() for a in loose],
    }
    if run is not None:
        count, last = records.run_activity(journal, run.id)
        data["run"] = {**run.to_json(), "commands": count, "last": last}
    data["monitor"] = report.summary(loc, journal, run)
    return data


def status(cwd: str | None, as_json: bool) -> int:
    loc = require_repo(cwd)
    wt = inline_worktree(os.fspath(loc.worktree))
    try:
        data = _status_data(loc, wt.journal)
        warning = wt.journal.warning
    finally:
        wt.journal.close()
    if warning:
        output.warn(warning)
    if as_json:
        output.write_json(data)
        return exitcodes.OK
    _print_status(data)
    return exitcodes.OK


def _print_status(data: dict[str, Any]) -> None:
    out = output.write_out
    out(f"worktree: {data['worktree']}")
    out(f"mode:     {data['mode']} (from {data['mode_source']})")
    run = data["run"]
    if run is None:
        out("run:      none open (the next command through interlock-sh starts one)")
    else:
        by = run.get("agent_name") or {"start": "interlock run start", "env": "INTERLOCK_RUN"}.get(
            run["origin"], run["origin"]
        )
        out(
            f"run:      {run['id']} (by {by}, started {iso_time(run['started'])[:19]}Z, "
            f"{run['commands']} command(s), baseline {(run['baseline'] or '-')[:12]})"
        )
    daemon = data["daemon"]
    out("daemon:   " + (f"running (pid {daemon['pid']})" if daemon["running"] else "not running"))
    green = data["last_green"]
    if green is None:
        out("green:    no green point yet")
    else:
        out(
            f"green:    {green['id']} at {green['time'][:19]}Z ({green.get('message') or ''}; "
            f"`{green.get('command') or '?'}`); {data['changed_since_green']} path(s) changed since"
        )
    for line in report.lines(data["monitor"]):
        out(line)
    for attempt in data["unresolved"]:
        out(
            f"unresolved: attempt {attempt['id']} `{attempt['command']}` (its wrapper died"
            + (
                "; a repeat is held until: interlock run reconcile "
                f"{attempt['id']} --landed|--not-landed)"
                if attempt.get("side_effects")
                else ")"
            )
        )


def done(cwd: str | None, as_json: bool) -> int:
    loc = require_repo(cwd)
    wt = inline_worktree(os.fspath(loc.worktree))
    try:
        run = session.current_run(wt.journal)
        if run is None:
            raise InterlockError(
                "no open run in this worktree: `interlock done` checks a run's work",
                hint="commands through interlock-sh start a run; so does: interlock run start",
            )
        answer = tiers.end_of_task(wt, run, session.run_config(run))
    finally:
        wt.journal.close()
    if as_json:
        output.write_json(
            {
                "run": run.id,
                "verified_green": answer.verified,
                "exit_code": answer.code,
                "messages": answer.lines,
            }
        )
        return answer.code
    for line in answer.lines:
        output.write_err(line)
    return answer.code
