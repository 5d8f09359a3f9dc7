"""What `interlock recover` brings back: the paths named, read as times and places, and the
version chosen for each.

    parse_time("-10m") -> seconds since the epoch
    locate_all(["a.txt", "src/"], cwd) -> (RepoLocation, [b"a.txt", b"src"])
    picks_for(loc, rels, at) -> [Pick]   one per named file, what was lost under a directory

Shared by the CLI's cold path and the daemon's `recover` operation, so both choose alike.
"""

from __future__ import annotations

import datetime
import os
import re
import time

from interlock.errors import InterlockError
from interlock.git import RepoLocation, discover
from interlock.memory.rechistory import Version
from interlock.memory.recovery import (
    Pick,
    current,
    has_recorded_under,
    lost,
    merge_versions,
    recorded_by_path,
    recorded_under,
    snapshot_versions,
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


def _existing_parent(full: str) -> str:
    parent = full
    while not os.path.isdir(parent) and parent != os.path.dirname(parent):
        parent = os.path.dirname(parent)
    return parent


def locate(path: str, cwd: str | None) -> tuple[RepoLocation, bytes]:
    """The worktree holding PATH (which may no longer exist) and PATH relative to it (b"" for
    the worktree's top)."""
    return _locate(path, cwd, {})


def _locate(
    path: str, cwd: str | None, seen: dict[str, tuple[str, RepoLocation | None]]
) -> tuple[RepoLocation, bytes]:
    """locate(), remembering each folder's worktree in `seen`: twenty files named in one call
    cost one discovery, not twenty."""
    full = os.path.abspath(os.path.join(cwd or os.getcwd(), path))
    parent = _existing_parent(full)
    if parent not in seen:
        real_parent = os.path.realpath(parent)
        seen[parent] = (real_parent, _worktree_of(real_parent, seen))
    real_parent, loc = seen[parent]
    real = os.path.join(real_parent, os.path.relpath(full, parent))
    if loc is None:
        raise InterlockError(
            f"{path} is not inside a git worktree", hint="give a path in a repository"
        )
    rel = os.path.normpath(os.path.relpath(real, loc.worktree))
    if rel.startswith(".." + os.sep) or rel == ".." or rel.split(os.sep)[0] == ".git":
        raise InterlockError(f"{path} is not in the worktree {loc.worktree}")
    return loc, b"" if rel == "." else os.fsencode(rel)


def _worktree_of(
    real_dir: str, seen: dict[str, tuple[str, RepoLocation | None]]
) -> RepoLocation | None:
    """discover(real_dir), without discovering again a worktree already found: a folder under
    a known worktree's top belongs to it unless a `.git` (a nested repository, a submodule)
    or a `.git` folder itself lies in between."""
    for _, known in seen.values():
        if known is None:
            continue
        top = str(known.worktree)
        if real_dir != top and not real_dir.startswith(top.rstrip(os.sep) + os.sep):
            continue
        between = real_dir
        while between != top:
            if os.path.basename(between) == ".git" or os.path.lexists(
                os.path.join(between, ".git")
            ):
                return discover(real_dir)
            between = os.path.dirname(between)
        return known
    return discover(real_dir)


def locate_all(paths: list[str], cwd: str | None) -> tuple[RepoLocation, list[bytes]]:
    """The one worktree holding every path (the current folder when none is given), and each
    path relative to it."""
    seen: dict[str, tuple[str, RepoLocation | None]] = {}
    found = [_locate(p, cwd, seen) for p in paths] or [_locate(".", cwd, seen)]
    loc = found[0][0]
    if any(other.worktree != loc.worktree for other, _ in found):
        raise InterlockError(
            "the paths are in different worktrees", hint="recover them one worktree at a time"
        )
    return loc, [rel for _, rel in found]


def is_dir(loc: RepoLocation, rel: bytes) -> bool:
    full = os.path.join(os.fsencode(loc.worktree), rel)
    return rel == b"" or (os.path.isdir(full) and not os.path.islink(full))


def shown(rel: bytes) -> str:
    return os.fsdecode(rel) or "."


def choose(
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


def picks_for(loc: RepoLocation, rels: list[bytes], at: float | None) -> list[Pick]:
    """One pick per named file; a directory brings back what was lost under it (or, with
    --at, each recorded file under it as it was then)."""
    files = [r for r in rels if not is_dir(loc, r)]
    dirs = [r for r in rels if is_dir(loc, r)]
    picks: list[Pick] = []
    found, nows = _file_versions(loc, files, at)
    for rel in [f for f in files if not found.get(f)]:  # a directory that is gone now
        if has_recorded_under(loc, rel):
            files.remove(rel)
            dirs.append(rel)
    for rel in files:
        picks.append(_pick_file(rel, found.get(rel, []), nows[rel], at))
    if dirs and at is None:
        picks += lost(loc, dirs, None)
    elif dirs and at is not None:
        picks += _dir_at(loc, dirs, at)
    return picks


def _pick_file(
    rel: bytes, versions: list[Version], now: tuple[str, int] | None, at: float | None
) -> Pick:
    if not versions:
        raise InterlockError(
            f"no recorded version of {shown(rel)}",
            hint="the recorder runs with the daemon (interlock daemon start); "
            "snapshots: interlock snapshots",
        )
    version = choose(versions, now, at)
    if version is None:
        what = (
            "no version that old"
            if at is not None
            else "no earlier version differs from the file as it is now"
        )
        raise InterlockError(
            f"{shown(rel)}: {what}", hint=f"list them: interlock recover {shown(rel)} --list"
        )
    return Pick(rel, version, now)


def _file_versions(
    loc: RepoLocation, files: list[bytes], at: float | None
) -> tuple[dict[bytes, list[Version]], dict[bytes, tuple[str, int] | None]]:
    """The versions to choose from, and what each file holds now: the recorder's versions,
    and those of the snapshots taken after the oldest version the recorder alone would give
    (an older snapshot cannot hold a newer version, and reading every snapshot's tree costs
    the most)."""
    recorded = recorded_by_path(loc, files)
    nows = {rel: current(loc, rel) for rel in files}
    chosen = [choose(recorded.get(rel, []), nows[rel], at) for rel in files]
    after = min((c.time for c in chosen if c is not None), default=None)
    if any(c is None for c in chosen):
        after = None
    return merge_versions(recorded, snapshot_versions(loc, files, after)), nows


def _dir_at(loc: RepoLocation, dirs: list[bytes], at: float) -> list[Pick]:
    picks = []
    for rel, versions in sorted(recorded_under(loc, dirs).items()):
        version = choose(versions, None, at)
        if version is not None and version.oid is not None:
            picks.append(Pick(rel, version, current(loc, rel)))
    return picks
