"""Restore a snapshot into the worktree, proving first that it can finish; and undo.

    restore_snapshot(loc, snap, paths=None, dry_run=False, run=None) -> RestoreResult
    undo(loc, dry_run=False, run=None) -> RestoreResult

Order: read the worktree now (all of it, or only `paths`), plan, prove (every blob is in the
object store, nothing unsaved is in the way), save the current state as a `pre-restore`
snapshot, stage every file, then delete, create directories and rename, then verify the
bytes on disk against the snapshot's blob ids. A failure while staging changes nothing; a
failure while renaming is rolled back from the pre-restore state. Never touches the index,
HEAD, branches, or refs other than interlock's; never runs `git reset` or `git clean`.

Deleted: files present now that the snapshot lacks and that the pre-restore snapshot holds
(so they can come back). Ignored files the snapshot lacks (a `.env` made later) are kept
unless `paths` names them exactly, or the snapshot is a pre-restore or pre-discard one (the
exact state before interlock acted: an undo removes what that action wrote). Submodules are
never touched.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from interlock import journal, output
from interlock.errors import RestoreError, write_failure
from interlock.git import GITLINK_MODE, RepoLocation, index_has, is_ignored, open_repo
from interlock.memory.catalog import SnapshotInfo
from interlock.memory.scan import display_path, to_relative
from interlock.memory.snapshot import (
    head_commit,
    list_snapshots,
    record_snapshot,
    resolve_in_repo,
    scan_worktree,
    snapshot_lock,
)
from interlock.memory.staging import (
    FsPlan,
    MidwayError,
    commit,
    describe,
    discard,
    rollback,
    stage,
    stage_dirs,
)
from interlock.memory.staging import verify as verify_plan
from interlock.memory.store import ObjectStore
from interlock.memory.trees import ancestors, diff_scoped, diff_trees, lookup, outermost

if TYPE_CHECKING:
    import pygit2


@dataclass(frozen=True)
class RestoreResult:
    """What a restore did (or, with dry_run, would do). `mismatches` lists paths whose bytes
    on disk do not match the snapshot after the restore: empty when verified."""

    snapshot: SnapshotInfo
    pre_restore: SnapshotInfo | None
    written: tuple[bytes, ...]
    deleted: tuple[bytes, ...]
    kept: tuple[bytes, ...]
    skipped: tuple[bytes, ...]
    mismatches: tuple[bytes, ...]
    dry_run: bool

    def to_json(self) -> dict[str, Any]:
        def paths(items: tuple[bytes, ...]) -> list[str]:
            return [display_path(p) for p in items]

        return {
            "snapshot": self.snapshot.id,
            "pre_restore": self.pre_restore.id if self.pre_restore else None,
            "written": paths(self.written),
            "deleted": paths(self.deleted),
            "kept": paths(self.kept),
            "skipped": paths(self.skipped),
            "mismatches": paths(self.mismatches),
            "verified": not self.dry_run and not self.mismatches,
            "dry_run": self.dry_run,
        }


def _is_ignored_untracked(repo: pygit2.Repository, loc: RepoLocation, rel: bytes) -> bool:
    return is_ignored(repo, loc, rel) and not index_has(repo, rel)


# Snapshots of the exact state just before interlock acted: restoring one (undo) also removes
# ignored files it lacks, which that action wrote.
_EXACT_KINDS = ("pre-restore", "pre-discard")


def _plan(
    store: ObjectStore,
    loc: RepoLocation,
    target: SnapshotInfo,
    current: str,
    scope: list[bytes] | None,
) -> tuple[FsPlan, list[bytes], list[bytes]]:
    """The file operations turning `current` into `target`, plus kept and skipped paths."""
    if scope is None:
        changes = diff_trees(store, current, target.tree)
    else:
        changes = diff_scoped(store, current, target.tree, scope)
    keep_ignored = target.kind not in _EXACT_KINDS
    repo = store.repo
    plan = FsPlan(os.fsencode(loc.worktree))
    kept: list[bytes] = []
    skipped: list[bytes] = []
    named = set(scope or ())
    for change in changes:
        if any(e is not None and e[0] == GITLINK_MODE for e in (change.old, change.new)):
            skipped.append(change.path)
            continue
        if change.new is None:
            exempt = change.path in named or not keep_ignored
            if not exempt and _is_ignored_untracked(repo, loc, change.path):
                kept.append(change.path)
                continue
            plan.deletes.append(change.path)
        else:
            plan.writes[change.path] = change.new
        plan.before[change.path] = change.old
    return plan, kept, skipped


def _blockers(plan: FsPlan) -> list[str]:
    """Unsaved things in the way of a write: a file where a directory must go, or files
    (ignored, oversize) inside a directory that must become a file."""
    deletes = set(plan.deletes)
    found: list[str] = []
    for rel in sorted(plan.writes):
        for parent in ancestors(rel):
            try:
                st = os.lstat(plan.abs(parent))
            except FileNotFoundError:
                break
            if not stat.S_ISDIR(st.st_mode):
                if parent not in deletes:
                    found.append(f"{display_path(parent)} (in the way of {display_path(rel)})")
                break
        target = plan.abs(rel)
        if os.path.isdir(target) and not os.path.islink(target):
            for top, dirs, files in os.walk(target):
                # os.walk lists a symlink to a directory with the directories (and does not
                # enter it): it is in the way all the same.
                links = [d for d in dirs if os.path.islink(os.path.join(top, d))]
                for name in files + links:
                    inner = os.path.relpath(os.path.join(top, name), plan.root)
                    if inner not in deletes:
                        found.append(f"{display_path(inner)} (in the way of {display_path(rel)})")
    return found


def _prove(store: ObjectStore, plan: FsPlan, target: SnapshotInfo) -> None:
    missing = [p for p, (_, oid) in sorted(plan.writes.items()) if not store.has(oid)]
    if missing:
        shown = ", ".join(display_path(p) for p in missing[:5])
        raise RestoreError(
            f"cannot restore {target.id}: the content of {len(missing)} path(s) is no longer in "
            f"the object store ({shown}); nothing was changed",
            hint="pick another snapshot: interlock snapshots",
        )
    blockers = _blockers(plan)
    if blockers:
        raise RestoreError(
            f"cannot restore {target.id}: unsaved files are in the way: "
            + ", ".join(blockers[:5])
            + "; nothing was changed",
            hint="move them out of the way, then restore again",
        )


def _apply(repo: pygit2.Repository, plan: FsPlan, target: SnapshotInfo, pre: SnapshotInfo) -> None:
    try:
        staged = stage(repo, plan)
    except OSError as exc:
        after = f"nothing was changed (the current state is also saved as snapshot {pre.id})"
        where = os.fsdecode(plan.root)
        raise write_failure(exc, f"restore {target.id}", after, where) or RestoreError(
            f"cannot restore {target.id}: {describe(exc)}; nothing was changed",
            hint=f"make the worktree writable; the current state is saved as {pre.id}",
        ) from exc
    try:
        commit(plan, staged)
    except MidwayError as midway:
        discard(staged)
        failed = rollback(repo, plan, midway.done)
        what = (
            f"restore of {target.id} failed at {display_path(midway.rel)}: {describe(midway.cause)}"
        )
        if failed:
            raise RestoreError(
                f"{what}; {len(failed)} path(s) could not be put back",
                hint=f"the state before the restore is snapshot {pre.id}: interlock restore {pre.id}",
            ) from midway.cause
        raise RestoreError(
            f"{what}; the worktree was rolled back to how it was",
            hint=f"the state before the restore is also saved as snapshot {pre.id}",
        ) from midway.cause


def _save_current(
    store: ObjectStore,
    loc: RepoLocation,
    current: str,
    meta: dict[str, object],
    target: SnapshotInfo,
) -> SnapshotInfo:
    """The pre-restore snapshot; a full or read-only disk stops the restore before it."""
    try:
        return record_snapshot(store, loc, current, meta)
    except Exception as exc:  # a write that failed for lack of room says so; else as is
        failure = write_failure(exc, f"restore {target.id}", "nothing was changed", loc.common_dir)
        if failure is None:
            raise
        raise failure from exc


def _dirs(plan: FsPlan) -> list[str]:
    return [os.fsdecode(d) for d in stage_dirs(plan)]


def _scope(loc: RepoLocation, paths: Iterable[str | bytes] | None) -> list[bytes] | None:
    if paths is None:
        return None
    rels = [to_relative(loc, p) for p in paths]
    return None if b"" in rels else outermost(rels)


def _check_scope(
    repo: pygit2.Repository, loc: RepoLocation, target: SnapshotInfo, scope: list[bytes] | None
) -> None:
    for rel in scope or ():
        if lookup(repo, target.tree, rel) is None and not os.path.lexists(
            os.path.join(loc.worktree, os.fsdecode(rel))
        ):
            raise RestoreError(
                f"{display_path(rel)} is neither in snapshot {target.id} nor in the worktree",
                hint=f"see what the snapshot holds: interlock diff {target.id}",
            )


def restore_snapshot(
    loc: RepoLocation,
    snap_ref: str | SnapshotInfo,
    paths: Iterable[str | bytes] | None = None,
    dry_run: bool = False,
    run: str | None = None,
) -> RestoreResult:
    """Make the worktree (or only `paths`, worktree-relative or absolute) match a snapshot."""
    repo = open_repo(loc)
    scope = _scope(loc, paths)
    with snapshot_lock(loc, "a restore") as holder:
        target = (
            snap_ref if isinstance(snap_ref, SnapshotInfo) else resolve_in_repo(repo, loc, snap_ref)
        )
        _check_scope(repo, loc, target, scope)
        store = ObjectStore(repo)
        current, _ = scan_worktree(repo, loc, scope, head_commit(repo)[1], store)
        plan, kept, skipped = _plan(store, loc, target, current, scope)
        _prove(store, plan, target)
        pre = None
        mismatches: list[bytes] = []
        if not dry_run:
            meta: dict[str, object] = {"kind": "pre-restore", "run": run, "command": None}
            meta["message"] = f"before restoring {target.id}"
            meta["scope"] = None if scope is None else [os.fsdecode(p) for p in scope]
            meta["how"], meta["base"], meta["skipped"] = (
                "cold" if scope is None else "scoped",
                None,
                {},
            )
            pre = _save_current(store, loc, current, meta, target)
            holder.note(op=f"a restore of snapshot {target.id}", undo=pre.id, dirs=_dirs(plan))
            _apply(repo, plan, target, pre)
            mismatches = verify_plan(plan)
    result = RestoreResult(
        snapshot=target,
        pre_restore=pre,
        written=tuple(sorted(plan.writes)),
        deleted=tuple(sorted(plan.deletes)),
        kept=tuple(kept),
        skipped=tuple(skipped),
        mismatches=tuple(mismatches),
        dry_run=dry_run,
    )
    if not dry_run:
        _journal(loc, result, run)
    return result


def _journal(loc: RepoLocation, result: RestoreResult, run: str | None) -> None:
    """Journal a restore that is done; a full disk must not make it look like it failed."""
    try:
        journal.record(loc, "restore", result.to_json(), run=run)
    except Exception as exc:
        failure = write_failure(exc, "journal it", "the restore itself is done")
        if failure is None:
            raise
        output.warn(str(failure))


def last_undo_point(loc: RepoLocation) -> SnapshotInfo | None:
    """The newest pre-restore or pre-discard snapshot: the state before the last restore or
    discard."""
    found = list_snapshots(loc, "pre-restore", 1) + list_snapshots(loc, "pre-discard", 1)
    return max(found, key=lambda s: s.time, default=None)


def undo(loc: RepoLocation, dry_run: bool = False, run: str | None = None) -> RestoreResult:
    """Put back the state before the last restore or discard (an undo can itself be undone:
    it is a restore, with its own pre-restore snapshot)."""
    point = last_undo_point(loc)
    if point is None:
        raise RestoreError(
            "nothing to undo: no restore or discard was recorded in this worktree",
            hint="list snapshots: interlock snapshots",
        )
    paths = None if point.scope is None else [os.fsencode(p) for p in point.scope]
    return restore_snapshot(loc, point, paths, dry_run=dry_run, run=run)
