"""Bring recorded versions back into the worktree: the memory half of `interlock recover`.

    versions_of(loc, paths) -> {path: [Version, ...]}   recorder and snapshots, newest first
    lost(loc, under, since) -> [Pick]      "what did I just lose": see `lost()`
    write_back(loc, picks, run) -> Written  one scoped pre-restore snapshot, then each file
    recorder_gaps(loc, start, end)          when no recorder ran in [start, end]

Before any file is overwritten or created, one `pre-restore` snapshot scoped to exactly those
paths holds them as they are (absent ones as absent), so `interlock undo` puts everything
back; it costs the files, not the tree.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass

from interlock import git
from interlock.errors import InterlockError, write_failure
from interlock.git import RepoLocation
from interlock.memory import recindex
from interlock.memory.catalog import SnapshotInfo
from interlock.memory.leftovers import worktree_temp_prefix
from interlock.memory.rechistory import Version
from interlock.memory.scan import display_path
from interlock.memory.snapshot import (
    head_commit,
    list_snapshots,
    record_snapshot,
    scan_worktree,
    snapshot_lock,
)
from interlock.memory.store import ObjectStore
from interlock.memory.trees import lookup


@dataclass(frozen=True)
class Pick:
    """A version chosen to be written back to `path`; `now` is what the path holds now."""

    path: bytes
    version: Version
    now: tuple[str, int] | None


@dataclass(frozen=True)
class Written:
    picks: tuple[Pick, ...]
    saved: SnapshotInfo | None


def current(loc: RepoLocation, rel: bytes) -> tuple[str, int] | None:
    """(blob id, mode) of the file as it is now, or None when absent (or not a file)."""
    full = os.path.join(os.fsencode(loc.worktree), rel)
    if os.path.islink(full):
        return git.hash_blob(os.readlink(full)), git.LINK_MODE
    if not os.path.isfile(full):
        return None
    mode = git.EXEC_MODE if os.stat(full).st_mode & 0o111 else git.FILE_MODE
    return git.hash_file(full), mode


def recorded_by_path(
    loc: RepoLocation, paths: list[bytes] | None, since: float | None = None
) -> dict[bytes, list[Version]]:
    """Every recorded version of each path (all paths: None), newest first. With `since`,
    only paths whose newest version is at or after that moment. One indexed query per 500
    paths: the index may hold hundreds of thousands of rows."""
    found: dict[bytes, list[Version]] = {}
    if not recindex.exists(loc) or paths == []:
        return found
    conn, _ = recindex.open_db(loc)
    try:
        for path, when, event, oid, mode, size in recindex.versions_of(conn, paths, since):
            found.setdefault(path, []).append(
                Version(path, when, "recorder", event, oid, mode, size)
            )
    finally:
        conn.close()
    return found


def snapshot_versions(
    loc: RepoLocation, paths: list[bytes], after: float | None = None
) -> dict[bytes, list[Version]]:
    """The versions snapshots hold of each path, newest first; with `after`, only from
    snapshots taken after that moment (older ones cannot hold a newer version)."""
    found: dict[bytes, list[Version]] = {}
    repo = git.open_repo(loc)
    for info in list_snapshots(loc):
        if after is not None and info.time <= after:
            break  # newest first
        for rel in paths:
            entry = lookup(repo, info.tree, rel)
            if entry is None or entry[0] == git.TREE_MODE:
                continue
            own = found.setdefault(rel, [])
            if any(v.oid == entry[1] for v in own):
                continue
            size = git.blob_size(repo, entry[1])
            own.append(
                Version(rel, info.time, "snapshot", info.kind, entry[1], entry[0], size, info.id)
            )
    return found


def merge_versions(*sources: dict[bytes, list[Version]]) -> dict[bytes, list[Version]]:
    merged: dict[bytes, list[Version]] = {}
    for source in sources:
        for path, versions in source.items():
            merged.setdefault(path, []).extend(versions)
    for own in merged.values():
        own.sort(key=lambda v: v.time, reverse=True)
    return merged


def versions_of(
    loc: RepoLocation, paths: list[bytes], snapshots: bool = True
) -> dict[bytes, list[Version]]:
    """Every version of each path, recorder and (optionally) snapshots, newest first."""
    recorded = recorded_by_path(loc, paths)
    return merge_versions(recorded, snapshot_versions(loc, paths) if snapshots else {})


def _gits_own(loc: RepoLocation, paths: list[bytes]) -> dict[bytes, set[str]]:
    """The blob ids git holds for each path (index, HEAD): content that is not lost."""
    own: dict[bytes, set[str]] = {p: set() for p in paths}
    if not paths:
        return own
    env = git.no_git_env({"GIT_LITERAL_PATHSPECS": "1"})
    _, out, _ = git.run(
        ["ls-files", "-s", "-z", "--", *map(os.fsdecode, paths)], loc.worktree, env=env
    )
    for record in out.split(b"\0"):
        meta, _, path = record.partition(b"\t")
        if path in own:
            own[path].add(meta.split(b" ")[1].decode())
    repo = git.open_repo(loc)
    head_tree = head_commit(repo)[1]
    if head_tree:
        for rel in paths:
            entry = lookup(repo, head_tree, rel)
            if entry is not None:
                own[rel].add(entry[1])
    return own


def lost(loc: RepoLocation, under: Iterable[bytes], since: float | None) -> list[Pick]:
    """Files under `under` (b"": everywhere) whose own content was discarded, with the version
    to bring back: the path now holds nothing of its own - it is gone, or holds exactly what
    git has (index or HEAD: a checkout, reset, restore or stash put it there) - while the
    recorder holds newer content that differs. With `since`, only paths the recorder saw change
    at or after that moment. Ordinary edits (new content in the file) are never "lost"."""
    prefixes = list(under) or [b""]
    recorded = recorded_by_path(loc, None, since)
    candidates = [
        p
        for p, vs in recorded.items()
        if not os.path.basename(p).startswith((b".interlock-restore-", b".interlock-recover-"))
        and any(not pre or p == pre or p.startswith(pre + b"/") for pre in prefixes)
        and (since is None or vs[0].time >= since)
    ]
    nows = {p: current(loc, p) for p in candidates}
    owned = _gits_own(loc, [p for p in candidates if nows[p] is not None])
    picks = []
    for path in sorted(candidates):
        now = nows[path]
        if now is not None and now[0] not in owned.get(path, set()):
            continue  # the file holds content of its own: an edit, not a loss
        for version in recorded[path]:
            if version.oid is not None and (version.oid, version.mode) != now:
                if version.oid not in owned.get(path, set()):
                    picks.append(Pick(path, version, now))
                break
    return picks


def recorder_gaps(loc: RepoLocation, start: float, end: float) -> list[tuple[float, float]]:
    """The stretches of [start, end] when no recorder ran (nothing was recorded then)."""
    if not recindex.exists(loc):
        return [(start, end)]
    conn, _ = recindex.open_db(loc)
    try:
        sessions = recindex.sessions_between(conn, start, end)
    finally:
        conn.close()
    gaps, cursor = [], start
    slack = 15.0  # a live recorder shows a sign of life every 10 s
    for began, alive in sessions:
        if began > cursor + slack:
            gaps.append((cursor, began))
        cursor = max(cursor, alive + slack)
    if cursor < end - slack:
        gaps.append((cursor, end))
    return gaps


def _save(
    store: ObjectStore, loc: RepoLocation, paths: list[bytes], run: str | None
) -> SnapshotInfo:
    """A pre-restore snapshot of exactly these paths as they are (HEAD elsewhere)."""
    head_tree = head_commit(store.repo)[1]
    tree, scanner = scan_worktree(store.repo, loc, paths, head_tree, store)
    shown = ", ".join(display_path(p) for p in paths[:3]) + (" ..." if len(paths) > 3 else "")
    meta: dict[str, object] = {"kind": "pre-restore", "run": run, "command": None}
    meta["message"] = f"before recover {shown}"
    meta["scope"] = [os.fsdecode(p) for p in paths]
    meta.update(how="scoped", base=None, skipped=scanner.skipped)
    info = record_snapshot(store, loc, tree, meta)
    for rel in paths:
        entry = lookup(store.repo, info.tree, rel)
        held = (entry[1], entry[0]) if entry is not None else None
        if held != current(loc, rel):
            shown_path = display_path(rel)
            raise InterlockError(
                f"the snapshot could not hold {shown_path} as it is now (ignored, or too "
                "large); nothing was written",
                hint=f"move it aside first: mv {shown_path} {shown_path}.keep",
            )
    return info


def write_back(loc: RepoLocation, picks: list[Pick], run: str | None = None) -> Written:
    """Save the paths as they are, then write each pick's version atomically."""
    todo = [
        p for p in picks if p.version.oid is not None and (p.version.oid, p.version.mode) != p.now
    ]
    if not todo:
        return Written((), None)
    repo = git.open_repo(loc)
    missing = [p for p in todo if not git.has_object(repo, str(p.version.oid))]
    if missing:
        raise InterlockError(
            f"the content of {display_path(missing[0].path)} ({str(missing[0].version.oid)[:12]})"
            " is gone from the object store (pruned); nothing was written",
            hint="pick another version: interlock recover PATH --list",
        )
    with snapshot_lock(loc, "a recover") as holder:
        store = ObjectStore(repo)
        try:
            saved = _save(store, loc, [p.path for p in todo], run)
        except Exception as exc:  # a write that failed for lack of room says so; else as is
            failure = write_failure(exc, "recover", "nothing was written", loc.common_dir)
            if failure is None:
                raise
            raise failure from exc
        dirs = sorted({os.fsdecode(os.path.dirname(p.path)) for p in todo})
        holder.note(op="a recover", undo=saved.id, dirs=dirs)
        _write_all(repo, loc, todo, saved)
    return Written(tuple(todo), saved)


def _write_all(repo: object, loc: RepoLocation, todo: list[Pick], saved: SnapshotInfo) -> None:
    for done, pick in enumerate(todo):
        try:
            _write_file(repo, loc, pick.path, pick.version)
        except OSError as exc:
            after = (
                f"{done} of {len(todo)} files were written before it; the files as they were "
                f"are in snapshot {saved.id} (put them back: interlock undo)"
            )
            where = os.path.join(loc.worktree, os.fsdecode(pick.path))
            failure = write_failure(exc, f"recover {display_path(pick.path)}", after, where)
            if failure is None:
                raise
            raise failure from exc


def _write_file(repo: object, loc: RepoLocation, rel: bytes, version: Version) -> None:
    """Write one version atomically (temp file + rename in the same directory), with its mode."""
    data = git.read_blob(repo, str(version.oid))  # type: ignore[arg-type]
    full = os.path.join(os.fsencode(loc.worktree), rel)
    directory = os.path.dirname(full)
    os.makedirs(directory, exist_ok=True)
    temp = worktree_temp_prefix(b".interlock-recover-")
    if version.mode == git.LINK_MODE:
        tmp = os.path.join(directory, temp + b"%d" % time.monotonic_ns())
        os.symlink(data, tmp)
        os.replace(tmp, full)
        return
    fd, tmp_name = tempfile.mkstemp(prefix=os.fsdecode(temp), dir=os.fsdecode(directory))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp_name, 0o755 if version.mode == git.EXEC_MODE else 0o644)
        os.replace(tmp_name, full)
    except BaseException:
        if os.path.exists(tmp_name):
            os.unlink(tmp_name)
        raise
