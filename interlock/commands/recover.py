"""`interlock recover PATH... [--list] [--at TIME]` and `recover --since TIME [DIR...]`: earlier
versions of files, written back.

Versions come from the flight recorder (every change the daemon saw) and from snapshots, and
are read straight from recorder.db and the object store: no daemon needed (recover starts it,
so what happens next is recorded). Before anything is overwritten, one `pre-restore` snapshot of
exactly those paths is taken and the message says how to get them back: nothing is lost.
"""

from __future__ import annotations

import datetime
import os
import re
import time
from typing import Any

from interlock import constants, exitcodes, git, journal, output
from interlock.daemon import client
from interlock.errors import InterlockError, write_failure
from interlock.git import RepoLocation, discover
from interlock.memory.rechistory import Version
from interlock.memory.recovery import (
    Pick,
    current,
    lost,
    merge_versions,
    recorded_by_path,
    recorder_gaps,
    snapshot_versions,
    versions_of,
    write_back,
)

_RELATIVE = re.compile(r"^-?(\d+(?:\.\d+)?)\s*([smhd])$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_time(text: str, now: float | None = None) -> float:
    """Seconds since the epoch for `10m` / `-10m` / `2h` / `-1d` (that long ago), `HH:MM[:SS]`
    (today, local; the last such moment), or an ISO 8601 time (local when it has no zone)."""
    now = time.time() if now is None else now
    text = text.strip()
    if match := _RELATIVE.match(text):
        return now - float(match.group(1)) * _UNITS[match.group(2)]
    if re.fullmatch(r"\d{1,2}:\d{2}(:\d{2})?", text):
        parts = [int(p) for p in text.split(":")] + [0]
        today = datetime.datetime.fromtimestamp(now)
        moment = today.replace(hour=parts[0], minute=parts[1], second=parts[2], microsecond=0)
        if moment.timestamp() > now:
            moment -= datetime.timedelta(days=1)
        return moment.timestamp()
    try:
        return datetime.datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise InterlockError(
            f"cannot read the time {text!r}",
            hint="use 10m (or -10m), 2h, 1d, 14:30 or an ISO time like 2025-01-31T14:30:00",
        ) from None


def locate(path: str, cwd: str | None) -> tuple[RepoLocation, bytes]:
    """The worktree holding PATH (which may no longer exist) and PATH relative to it (b"" for
    the worktree's top)."""
    full = os.path.abspath(os.path.join(cwd or os.getcwd(), path))
    parent = full
    while not os.path.isdir(parent) and parent != os.path.dirname(parent):
        parent = os.path.dirname(parent)
    real = os.path.join(os.path.realpath(parent), os.path.relpath(full, parent))
    loc = discover(parent)
    if loc is None:
        raise InterlockError(
            f"{path} is not inside a git worktree", hint="give a path in a repository"
        )
    rel = os.path.normpath(os.path.relpath(real, loc.worktree))
    if rel.startswith(".." + os.sep) or rel == ".." or rel.split(os.sep)[0] == ".git":
        raise InterlockError(f"{path} is not in the worktree {loc.worktree}")
    return loc, b"" if rel == "." else os.fsencode(rel)


def _locate_all(paths: list[str], cwd: str | None) -> tuple[RepoLocation, list[bytes]]:
    found = [locate(p, cwd) for p in paths] or [locate(".", cwd)]
    loc = found[0][0]
    if any(other.worktree != loc.worktree for other, _ in found):
        raise InterlockError(
            "the paths are in different worktrees", hint="recover them one worktree at a time"
        )
    return loc, [rel for _, rel in found]


def _is_dir(loc: RepoLocation, rel: bytes) -> bool:
    full = os.path.join(os.fsencode(loc.worktree), rel)
    return rel == b"" or (os.path.isdir(full) and not os.path.islink(full))


def _local(when: float) -> str:
    return datetime.datetime.fromtimestamp(when).strftime("%Y-%m-%d %H:%M:%S")


def _source(version: Version) -> str:
    if version.source == "snapshot":
        return f"snapshot {version.snapshot} ({version.event})"
    return f"recorder ({version.event})"


def _shown(rel: bytes) -> str:
    return os.fsdecode(rel) or "."


def list_versions(paths: list[str], cwd: str | None, as_json: bool) -> int:
    loc, rels = _locate_all(paths, cwd)
    found = versions_of(loc, rels)
    every = [v for rel in rels for v in found.get(rel, [])]
    if as_json:
        output.write_json([{**v.to_json(), "local_time": _local(v.time)} for v in every])
        return exitcodes.OK
    repo = git.open_repo(loc)
    for rel in rels:
        versions = found.get(rel, [])
        if not versions:
            output.write_out(f"interlock: no recorded version of {_shown(rel)}")
            continue
        if len(rels) > 1:
            output.write_out(f"{_shown(rel)}:")
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


def _choose(
    versions: list[Version], now: tuple[str, int] | None, at: float | None
) -> Version | None:
    """The newest version at or before `at`; without `at`, the newest whose content differs
    from the file now. None when there is none."""
    for version in versions:
        if at is not None and version.time <= at:
            return version
        if at is None and version.oid is not None and (version.oid, version.mode) != now:
            return version
    return None


def _picks_for(loc: RepoLocation, rels: list[bytes], at: float | None) -> list[Pick]:
    """One pick per named file; a directory brings back what was lost under it (or, with
    --at, each recorded file under it as it was then)."""
    files = [r for r in rels if not _is_dir(loc, r)]
    dirs = [r for r in rels if _is_dir(loc, r)]
    picks: list[Pick] = []
    found, nows = _file_versions(loc, files, at)
    if any(not found.get(f) for f in files):
        recorded = recorded_by_path(loc, None)
        for rel in [f for f in files if not found.get(f)]:  # a directory that is gone now
            if any(p.startswith(rel + b"/") for p in recorded):
                files.remove(rel)
                dirs.append(rel)
    for rel in files:
        versions = found.get(rel, [])
        if not versions:
            raise InterlockError(
                f"no recorded version of {_shown(rel)}",
                hint="the recorder runs with the daemon (interlock daemon start); "
                "snapshots: interlock snapshots",
            )
        now = nows[rel]
        version = _choose(versions, now, at)
        if version is None:
            what = (
                "no version that old"
                if at is not None
                else "no earlier version differs from the file as it is now"
            )
            raise InterlockError(
                f"{_shown(rel)}: {what}", hint=f"list them: interlock recover {_shown(rel)} --list"
            )
        picks.append(Pick(rel, version, now))
    if dirs and at is None:
        picks += lost(loc, dirs, None)
    elif dirs and at is not None:
        picks += _dir_at(loc, dirs, at)
    return picks


def _file_versions(
    loc: RepoLocation, files: list[bytes], at: float | None
) -> tuple[dict[bytes, list[Version]], dict[bytes, tuple[str, int] | None]]:
    """The versions to choose from, and what each file holds now: the recorder's versions,
    and those of the snapshots taken after the oldest version the recorder alone would give
    (an older snapshot cannot hold a newer version, and reading every snapshot's tree costs
    the most)."""
    recorded = recorded_by_path(loc, files)
    nows = {rel: current(loc, rel) for rel in files}
    chosen = [_choose(recorded.get(rel, []), nows[rel], at) for rel in files]
    after = min((c.time for c in chosen if c is not None), default=None)
    if any(c is None for c in chosen):
        after = None
    return merge_versions(recorded, snapshot_versions(loc, files, after)), nows


def _dir_at(loc: RepoLocation, dirs: list[bytes], at: float) -> list[Pick]:
    picks = []
    for rel, versions in sorted(recorded_by_path(loc, None).items()):
        if not any(not d or rel == d or rel.startswith(d + b"/") for d in dirs):
            continue
        version = _choose(versions, None, at)
        if version is not None and version.oid is not None:
            picks.append(Pick(rel, version, current(loc, rel)))
    return picks


def recover(
    paths: list[str],
    cwd: str | None,
    at: str | None,
    since: str | None,
    list_only: bool,
    as_json: bool,
) -> int:
    """Write back the chosen version of each path (see the CLI's help)."""
    loc, rels = _locate_all(paths, cwd)
    client.ensure_daemon(loc)  # from now on, every change is recorded again
    started = parse_time(since) if since else None
    moment = parse_time(at) if at else None
    picks = lost(loc, rels, started) if since else _picks_for(loc, rels, moment)
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
        shown = ", ".join(_shown(p.path) for p in same)
        if as_json:
            output.write_json({"recovered": [], "written": False, "saved": None})
        else:
            output.write_out(f"interlock: {shown} already holds that version; nothing written")
        return exitcodes.OK
    if picks and not list_only:
        done = write_back(loc, picks, run=os.environ.get(constants.ENV_RUN) or None)
        result["written"] = bool(done.picks)
        result["saved"] = done.saved.id if done.saved else None
        if done.picks:
            _journal(loc, result)
    _report(result, picks, gaps, list_only, since, as_json)
    return exitcodes.OK


def _journal(loc: RepoLocation, result: dict[str, Any]) -> None:
    """Journal a recover that is done; a full disk must not make it look like it failed."""
    try:
        journal.record(loc, "recover", result)
    except Exception as exc:
        failure = write_failure(exc, "journal it", "the files are recovered all the same")
        if failure is None:
            raise
        output.warn(str(failure))


def _pick_json(pick: Pick) -> dict[str, Any]:
    return {
        "path": _shown(pick.path),
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
            f"interlock: {verb} {_shown(pick.path)} ({state}) from {_source(v)} at "
            f"{_local(v.time)} ({v.size} bytes)"
        )
    if result.get("saved"):
        output.write_out(
            f"  saved:   the files as they were, in snapshot {result['saved']} "
            "(put them back: interlock undo)"
        )
    elif list_only:
        output.write_out("  to bring them back, run the same command without --list")
