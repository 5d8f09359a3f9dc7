"""`interlock recover PATH... [--list] [--at TIME]` and `recover --since TIME [DIR...]`: the
command's work and its report, the same whether the CLI runs it (cold, no daemon) or the
warm daemon does (its `recover` operation, asked by the launcher's door): one function, so
both print the same bytes.

Versions come from the flight recorder (every change the daemon saw) and from snapshots, and
are read straight from recorder.db and the object store. Before anything is overwritten, one
`pre-restore` snapshot of exactly those paths is taken and the message says how to get them
back: nothing is lost.
"""

from __future__ import annotations

import datetime
import os
import time
from collections.abc import Callable
from typing import Any

from interlock import exitcodes, git, journal, output
from interlock.errors import write_failure
from interlock.git import RepoLocation
from interlock.memory.rechistory import Version
from interlock.memory.recoverpick import locate_all, parse_time, picks_for, shown
from interlock.memory.recovery import Pick, lost, recorder_gaps, versions_of, write_back


def run(
    paths: list[str],
    cwd: str | None,
    at: str | None,
    since: str | None,
    list_only: bool,
    as_json: bool,
    run_id: str | None,
    located: Callable[[RepoLocation], object] = lambda loc: None,
) -> int:
    """What the CLI does once its options are valid: `--list` of files only lists their
    versions; anything else recovers (or, with --list, says what it would). `located(loc)` is
    called once the worktree is known, before anything is read from it (the CLI starts the
    daemon there, so that what happens next is recorded; the daemon makes sure it is its own
    worktree)."""
    loc, rels = locate_all(paths, cwd)
    located(loc)
    if (
        list_only
        and since is None
        and at is None
        and all(not _looks_like_dir(p, cwd) for p in paths)
    ):
        return list_versions(loc, rels, as_json)
    return recover(loc, rels, at, since, list_only, as_json, run_id)


def _looks_like_dir(path: str, cwd: str | None) -> bool:
    full = os.path.join(cwd or os.getcwd(), path)
    return os.path.isdir(full) and not os.path.islink(full)


def _local(when: float) -> str:
    return datetime.datetime.fromtimestamp(when).strftime("%Y-%m-%d %H:%M:%S")


def _source(version: Version) -> str:
    if version.source == "snapshot":
        return f"snapshot {version.snapshot} ({version.event})"
    return f"recorder ({version.event})"


def list_versions(loc: RepoLocation, rels: list[bytes], as_json: bool) -> int:
    found = versions_of(loc, rels)
    every = [v for rel in rels for v in found.get(rel, [])]
    if as_json:
        output.write_json([{**v.to_json(), "local_time": _local(v.time)} for v in every])
        return exitcodes.OK
    repo = git.open_repo(loc)
    for rel in rels:
        versions = found.get(rel, [])
        if not versions:
            output.write_out(f"interlock: no recorded version of {shown(rel)}")
            continue
        if len(rels) > 1:
            output.write_out(f"{shown(rel)}:")
        rows = [
            {
                "time": _local(v.time),
                "source": _source(v),
                "size": "deleted" if v.oid is None else v.size,
                "blob": (v.oid or "")[:12]
                + ("" if v.oid is None or git.has_object(repo, v.oid) else " (pruned)"),
            }
            for v in versions
        ]
        output.table(rows, ["time", "source", "size", "blob"])
    return exitcodes.OK


def recover(
    loc: RepoLocation,
    rels: list[bytes],
    at: str | None,
    since: str | None,
    list_only: bool,
    as_json: bool,
    run_id: str | None,
) -> int:
    """Write back the chosen version of each path (see the CLI's help)."""
    started = parse_time(since) if since else None
    moment = parse_time(at) if at else None
    picks = lost(loc, rels, started) if since else picks_for(loc, rels, moment)
    gaps = (
        recorder_gaps(loc, started if started is not None else (moment or time.time()), time.time())
        if (since or at)
        else []
    )
    result: dict[str, Any] = {
        "recovered": [_pick_json(p) for p in picks],
        "written": False,
        "saved": None,
        "recorder_gaps": [{"from": _local(a), "to": _local(b)} for a, b in gaps],
    }
    same = [p for p in picks if (p.version.oid, p.version.mode) == p.now]
    if same and len(same) == len(picks):
        listed = ", ".join(shown(p.path) for p in same)
        if as_json:
            output.write_json({"recovered": [], "written": False, "saved": None})
        else:
            output.write_out(f"interlock: {listed} already holds that version; nothing written")
        return exitcodes.OK
    if picks and not list_only:
        done = write_back(loc, picks, run=run_id)
        result["written"] = bool(done.picks)
        result["saved"] = done.saved.id if done.saved else None
        if done.picks:
            _journal(loc, result, run_id)
    _report(result, picks, gaps, list_only, since, as_json)
    return exitcodes.OK


def _journal(loc: RepoLocation, result: dict[str, Any], run_id: str | None) -> None:
    """Journal a recover that is done; a full disk must not make it look like it failed."""
    try:
        journal.record(loc, "recover", result, run_id)
    except Exception as exc:
        failure = write_failure(exc, "journal it", "the files are recovered all the same")
        if failure is None:
            raise
        output.warn(str(failure))


def _pick_json(pick: Pick) -> dict[str, Any]:
    return {
        "path": shown(pick.path),
        "version": pick.version.to_json(),
        "local_time": _local(pick.version.time),
    }


def _report(
    result: dict[str, Any],
    picks: list[Pick],
    gaps: list[tuple[float, float]],
    list_only: bool,
    since: str | None,
    as_json: bool,
) -> None:
    if as_json:
        output.write_json(result)
        return
    for start, end in gaps:
        output.warn(
            f"the recorder was not running from {_local(start)} to {_local(end)}: changes made "
            "then were not recorded (snapshots may hold them: interlock snapshots)"
        )
    if not picks:
        what = f"in the last {since}" if since else "there"
        output.write_out(f"interlock: nothing lost {what}: every recorded file matches the tree")
        return
    verb = "would recover" if list_only else "recovered"
    for pick in picks:
        v = pick.version
        state = "deleted" if pick.now is None else "overwritten"
        output.write_out(
            f"interlock: {verb} {shown(pick.path)} ({state}) from {_source(v)} at "
            f"{_local(v.time)} ({v.size} bytes)"
        )
    if result.get("saved"):
        output.write_out(
            f"  saved:   the files as they were, in snapshot {result['saved']} "
            "(put them back: interlock undo)"
        )
    elif list_only:
        output.write_out("  to bring them back, run the same command without --list")
