"""`interlock runs`, `interlock log`, `interlock run start|end|reconcile`."""

from __future__ import annotations

import os
import time
from typing import Any

from interlock import exitcodes, output
from interlock.commands.person import require_person
from interlock.errors import InterlockError
from interlock.git import RepoLocation, require_repo
from interlock.journal import Journal, opened
from interlock.memory.catalog import iso_time
from interlock.run import records, session
from interlock.run.link import inline_worktree
from interlock.run.records import Attempt, Run


def _when(stamp: float | None) -> str:
    return "-" if stamp is None else iso_time(stamp)[:19].replace("T", " ") + "Z"


def _who(run: Run) -> str:
    if run.origin == "agent":
        return f"{run.data.get('agent_name') or 'agent'} pid {run.data.get('agent_pid')}"
    return {"start": "interlock run start", "env": "INTERLOCK_RUN"}.get(run.origin, run.origin)


def _pick_run(journal: Journal, run_id: str | None) -> Run:
    run = records.get_run(journal, run_id) if run_id else session.current_run(journal, latest=True)
    if run is None:
        raise InterlockError(
            f"no run {run_id!r} in this worktree" if run_id else "no run in this worktree yet",
            hint="list them: interlock runs",
        )
    return run


def runs(cwd: str | None, limit: int | None, as_json: bool) -> int:
    loc = require_repo(cwd)
    with opened(loc, verify=True) as journal:
        found = records.list_runs(journal, limit)
        rows = []
        for run in found:
            count, last = records.run_activity(journal, run.id)
            greens = sum(
                1
                for a in records.attempts_of(journal, run.id)
                if a.completion and a.completion.green
            )
            live = session.is_live(journal, run)
            rows.append((run, count, last, greens, live))
        warning = journal.warning
    if warning:
        output.warn(warning)
    if as_json:
        output.write_json(
            [
                {**run.to_json(), "commands": n, "last": last, "greens": g, "live": live}
                for run, n, last, g, live in rows
            ]
        )
        return exitcodes.OK
    if not rows:
        output.write_out("no runs yet: the first command through interlock-sh starts one")
        return exitcodes.OK
    table = [
        {
            "run": run.id,
            "started": _when(run.started),
            "state": "live" if live else ("open" if run.is_open else "ended"),
            "by": _who(run),
            "commands": n,
            "greens": g,
            "baseline": (run.baseline or "")[:12],
        }
        for run, n, last, g, live in rows
    ]
    output.table(table, ["run", "started", "state", "by", "commands", "greens", "baseline"])
    return exitcodes.OK


def _outcome_note(attempt: Attempt) -> str:
    done = attempt.completion
    if done is None:
        return ""
    data = done.data
    notes = []
    outcome = data.get("outcome") or {}
    if outcome.get("parsed"):
        counts = [f"{outcome.get(k)} {k}" for k in ("passed", "failed") if outcome.get(k)]
        notes.append(", ".join(counts) or "no tests ran")
        failing = outcome.get("failing") or []
        if failing:
            notes.append(
                "failing: " + ", ".join(failing[:3]) + (" ..." if len(failing) > 3 else "")
            )
    if done.green:
        notes.append(f"green {done.green}")
    elif data.get("why_not_green"):
        notes.append(f"not green: {data['why_not_green']}")
    elif data.get("passed_tier") == "fast":
        notes.append("fast check passed")
    if done.status == "reconciled":
        notes.append(
            f"reconciled: {'landed' if data.get('landed') else 'did not land'} ({data.get('how')})"
        )
    return " · ".join(notes)


def _attempt_line(attempt: Attempt, depth: int) -> str:
    done = attempt.completion
    state = attempt.state
    if done is not None and done.status in ("exited", "signalled"):
        end = f"exit {done.exit}" if done.signal is None else f"signal {done.signal}"
        took = f"{done.duration:.2f}s" if done.duration is not None else "-"
    else:
        end, took = state, "-"
    notes = [n["tag"] for n in attempt.data.get("notices", []) if n.get("blocks")]
    notes += [f["kind"] for f in attempt.data.get("findings", [])]
    extra = " · ".join(
        x for x in (", ".join(f"[{n}]" for n in dict.fromkeys(notes)), _outcome_note(attempt)) if x
    )
    command = attempt.command.replace("\n", "\\n")
    if len(command) > 80:
        command = command[:77] + "..."
    indent = "  " * depth
    return (
        f"{indent}#{attempt.id:<4} {_when(attempt.time)[11:]}  {attempt.verdict:<5}  "
        f"{end:<10} {took:>7}  {command}" + (f"   {extra}" if extra else "")
    )


def log(cwd: str | None, run_id: str | None, limit: int | None, as_json: bool) -> int:
    loc = require_repo(cwd)
    with opened(loc, verify=True) as journal:
        run = _pick_run(journal, run_id)
        attempts = records.attempts_of(journal, run.id, limit)
        warning = journal.warning
    if warning:
        output.warn(warning)
    if as_json:
        output.write_json({"run": run.to_json(), "attempts": [a.to_json() for a in attempts]})
        return exitcodes.OK
    state = "open" if run.is_open else f"ended {_when(run.ended)}: {run.end_reason}"
    output.write_out(
        f"run {run.id} ({_who(run)}; started {_when(run.started)}; {state}; "
        f"baseline {(run.baseline or '-')[:12]}; mode {run.config.get('mode')})"
    )
    depth: dict[int, int] = {}
    for attempt in attempts:
        depth[attempt.id] = depth.get(attempt.parent, -1) + 1 if attempt.parent else 0
        output.write_out(_attempt_line(attempt, depth[attempt.id]))
    if not attempts:
        output.write_out("  (no commands yet)")
    loose = [a for a in attempts if a.state == "unresolved"]
    if loose:
        output.write_out(
            f"{len(loose)} unresolved attempt(s): the wrapper died before recording how "
            "they ended"
            + (
                "; a repeated side effect waits for: interlock run reconcile ID --landed|--not-landed"
                if any(a.effect for a in loose)
                else ""
            )
        )
    return exitcodes.OK


def _describe_start(loc: RepoLocation, run: Run) -> dict[str, Any]:
    prerun = session.prerun_paths(loc, run)
    return {**run.to_json(), "prerun_paths": len(prerun)}


def run_start(cwd: str | None, run_id: str | None, as_json: bool) -> int:
    require_person("run start")
    loc = require_repo(cwd)
    wt = inline_worktree(os.fspath(loc.worktree))
    try:
        run = session.start_run(wt, run_id, dict(os.environ))
        info = _describe_start(loc, run)
    finally:
        wt.journal.close()
    if as_json:
        output.write_json(info)
        return exitcodes.OK
    config = run.config
    output.write_out(
        f"interlock: run {run.id} started; baseline snapshot {(run.baseline or '')[:12]} "
        f"({info['prerun_paths']} path(s) of unsaved work before the run, which the run may "
        "not discard)"
    )
    output.write_out(
        f"  frozen for this run: mode={config.get('mode')}, "
        f"verification_tiers={config.get('verification_tiers')}, discards={config.get('discards')}"
    )
    return exitcodes.OK


def run_end(cwd: str | None, run_id: str | None) -> int:
    require_person("run end")
    loc = require_repo(cwd)
    with opened(loc) as journal:
        ended = session.end_runs(journal, "a person ended it (interlock run end)", run_id)
    if run_id and not ended:
        raise InterlockError(f"no open run {run_id!r}", hint="list them: interlock runs")
    output.write_out(
        f"interlock: ended {', '.join(ended)}" if ended else "interlock: no open run to end"
    )
    return exitcodes.OK


def reconcile(cwd: str | None, attempt_id: int, landed: bool) -> int:
    require_person("run reconcile")
    loc = require_repo(cwd)
    with opened(loc) as journal:
        attempt = records.get_attempt(journal, attempt_id)
        if attempt is None:
            raise InterlockError(f"no attempt {attempt_id}", hint="see them: interlock log")
        if attempt.completion is not None:
            raise InterlockError(
                f"attempt {attempt_id} is already settled ({attempt.completion.status})"
            )
        records.insert_completion(
            journal,
            attempt.id,
            attempt.run,
            "reconciled",
            data={"landed": landed, "how": "a person", "time": time.time()},
        )
    what = "landed" if landed else "did not land"
    output.write_out(f"interlock: attempt {attempt_id} ({attempt.command}) recorded as {what}")
    return exitcodes.OK
