"""`interlock recover PATH [--list] [--at TIME]`: earlier versions of one file, written back.

Versions come from the flight recorder (every change the daemon saw) and from snapshots, and
are read straight from recorder.db and the object store: no daemon needed. Before the chosen
version overwrites a file whose content differs, the current tree is snapshotted
(`pre-restore`) and the message says how to get it back; nothing is lost.
"""

from __future__ import annotations

import datetime
import os
import re
import tempfile
import time
from typing import Any

from interlock import exitcodes, git, journal, output
from interlock.daemon import client
from interlock.errors import InterlockError
from interlock.git import RepoLocation, discover
from interlock.memory.recorder import Version, recorded_versions
from interlock.memory.trees import lookup

_RELATIVE = re.compile(r"^-(\d+(?:\.\d+)?)([smhd])$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_time(text: str, now: float | None = None) -> float:
    """Seconds since the epoch for `-10m` / `-2h` / `-1d`, `HH:MM[:SS]` (today, local; the
    last such moment), or an ISO 8601 time (local when it has no zone)."""
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
            hint="use -10m, -2h, 14:30 or an ISO time like 2025-01-31T14:30:00",
        ) from None


def locate(path: str, cwd: str | None) -> tuple[RepoLocation, bytes]:
    """The worktree holding PATH (which may no longer exist) and PATH relative to it."""
    full = os.path.abspath(os.path.join(cwd or os.getcwd(), path))
    parent = os.path.dirname(full)
    while not os.path.isdir(parent) and parent != os.path.dirname(parent):
        parent = os.path.dirname(parent)
    real = os.path.join(os.path.realpath(parent), os.path.relpath(full, parent))
    loc = discover(parent)
    if loc is None:
        raise InterlockError(
            f"{path} is not inside a git worktree", hint="give a path in a repository"
        )
    rel = os.path.relpath(real, loc.worktree)
    if rel == "." or rel.startswith(".." + os.sep) or rel == ".." or rel.split(os.sep)[0] == ".git":
        raise InterlockError(f"{path} is not a file of the worktree {loc.worktree}")
    return loc, os.fsencode(rel)


def snapshot_versions(loc: RepoLocation, rel: bytes) -> list[Version]:
    """The path's content in each snapshot, newest first, one entry per run of equal content."""
    from interlock.memory.snapshot import list_snapshots

    repo = git.open_repo(loc)
    found: list[Version] = []
    for info in list_snapshots(loc):
        entry = lookup(repo, info.tree, rel)
        if entry is None or entry[0] == git.TREE_MODE:
            continue
        if found and found[-1].oid == entry[1] and found[-1].mode == entry[0]:
            continue
        size = git.blob_size(repo, entry[1])
        found.append(
            Version(rel, info.time, "snapshot", info.kind, entry[1], entry[0], size, info.id)
        )
    return found


def all_versions(loc: RepoLocation, rel: bytes) -> list[Version]:
    versions = recorded_versions(loc, rel) + snapshot_versions(loc, rel)
    versions.sort(key=lambda v: v.time, reverse=True)
    return versions


def current_version(loc: RepoLocation, rel: bytes) -> tuple[str, int] | None:
    """(blob id, mode) of the file as it is now, or None when absent (or not a file)."""
    full = os.path.join(os.fsencode(loc.worktree), rel)
    if os.path.islink(full):
        return git.hash_blob(os.readlink(full)), git.LINK_MODE
    if not os.path.isfile(full):
        return None
    mode = git.EXEC_MODE if os.stat(full).st_mode & 0o111 else git.FILE_MODE
    return git.hash_file(full), mode


def choose(versions: list[Version], now: tuple[str, int] | None, at: float | None) -> Version:
    """The version to write back: the newest at or before `at`; without `at`, the newest one
    whose content differs from the file now."""
    if at is not None:
        for version in versions:
            if version.time <= at:
                return version
        raise InterlockError("no version that old", hint="list them: interlock recover PATH --list")
    for version in versions:
        if version.oid is not None and (version.oid, version.mode) != now:
            return version
    raise InterlockError(
        "no earlier version differs from the file as it is now",
        hint="list them: interlock recover PATH --list",
    )


def _local(when: float) -> str:
    return datetime.datetime.fromtimestamp(when).strftime("%Y-%m-%d %H:%M:%S")


def _source(version: Version) -> str:
    if version.source == "snapshot":
        return f"snapshot {version.snapshot} ({version.event})"
    return f"recorder ({version.event})"


def list_versions(path: str, cwd: str | None, as_json: bool) -> int:
    loc, rel = locate(path, cwd)
    versions = all_versions(loc, rel)
    if as_json:
        output.write_json([{**v.to_json(), "local_time": _local(v.time)} for v in versions])
        return exitcodes.OK
    if not versions:
        output.write_out(f"interlock: no recorded version of {os.fsdecode(rel)}")
        return exitcodes.OK
    repo = git.open_repo(loc)
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


def recover(path: str, cwd: str | None, at: str | None, as_json: bool) -> int:
    loc, rel = locate(path, cwd)
    versions = all_versions(loc, rel)
    shown = os.fsdecode(rel)
    if not versions:
        raise InterlockError(
            f"no recorded version of {shown}",
            hint="the recorder runs with the daemon (interlock daemon start); snapshots: interlock snapshots",
        )
    if os.path.isdir(os.path.join(loc.worktree, os.fsdecode(rel))) and not os.path.islink(
        os.path.join(loc.worktree, os.fsdecode(rel))
    ):
        raise InterlockError(f"{shown} is a directory now; recover writes one file")
    now = current_version(loc, rel)
    version = choose(versions, now, parse_time(at) if at else None)
    result: dict[str, Any] = {"path": shown, "version": version.to_json(), "written": False}
    if version.oid is None:
        result["message"] = f"{shown} did not exist at that time; nothing written"
    elif (version.oid, version.mode) == now:
        result["message"] = f"{shown} already holds that version; nothing written"
    else:
        if now is not None:
            result["saved"] = _save_current(loc, rel)
        _write_back(loc, rel, version)
        result["written"] = True
        journal.record(loc, "recover", result)
    _report(result, version, as_json)
    return exitcodes.OK


def _save_current(loc: RepoLocation, rel: bytes) -> str:
    """Snapshot the tree before overwriting (through the daemon when it runs: it re-reads only
    what changed), and prove the snapshot holds the file as it is."""
    message = f"before recover {os.fsdecode(rel)}"
    reply = (
        None
        if client.daemon_disabled()
        else client.call(loc, "snapshot", kind="pre-restore", message=message)
    )
    if reply is not None:
        snap_id, tree = reply["snapshot"]["id"], reply["snapshot"]["tree"]
    else:
        from interlock.memory.snapshot import take_snapshot

        info = take_snapshot(loc, kind="pre-restore", message=message)
        snap_id, tree = info.id, info.tree
    entry = lookup(git.open_repo(loc), tree, rel)
    if entry is None or (entry[1], entry[0]) != current_version(loc, rel):
        raise InterlockError(
            f"the snapshot could not hold {os.fsdecode(rel)} as it is now (ignored, or too large); "
            "nothing was written",
            hint=f"move it aside first: mv {os.fsdecode(rel)} {os.fsdecode(rel)}.keep",
        )
    return str(snap_id)


def _write_back(loc: RepoLocation, rel: bytes, version: Version) -> None:
    """Write the version atomically (temp file + rename in the same directory), with its mode."""
    assert version.oid is not None
    repo = git.open_repo(loc)
    if not git.has_object(repo, version.oid):
        raise InterlockError(
            f"blob {version.oid[:12]} of that version is gone from the object store (pruned)",
            hint="pick another: interlock recover PATH --list",
        )
    data = git.read_blob(repo, version.oid)
    full = os.path.join(os.fsencode(loc.worktree), rel)
    directory = os.path.dirname(full)
    os.makedirs(directory, exist_ok=True)
    if version.mode == git.LINK_MODE:
        tmp = os.path.join(directory, b".interlock-recover-%d" % os.getpid())
        os.symlink(data, tmp)
        os.replace(tmp, full)
        return
    fd, tmp_name = tempfile.mkstemp(prefix=".interlock-recover-", dir=os.fsdecode(directory))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp_name, 0o755 if version.mode == git.EXEC_MODE else 0o644)
        os.replace(tmp_name, full)
    except BaseException:
        if os.path.exists(tmp_name):
            os.unlink(tmp_name)
        raise


def _report(result: dict[str, Any], version: Version, as_json: bool) -> None:
    if as_json:
        output.write_json(result)
        return
    if not result["written"]:
        output.write_out(f"interlock: {result['message']}")
        return
    output.write_out(
        f"interlock: recovered {result['path']} from {_source(version)} at {_local(version.time)}"
        f" ({version.size} bytes, blob {str(version.oid)[:12]})"
    )
    if result.get("saved"):
        output.write_out(
            f"  saved:   the file as it was, in snapshot {result['saved']} "
            f"(back: interlock restore {result['saved']} --paths {result['path']})"
        )
