"""Setting a run's uncertified work aside and putting the tree back at a known point, through
the snapshot engine's coverage-proven restore (interlock.memory.restore), or declining.

The restore proves first that it can restore every path (every blob in the object store,
nothing unsaved in the way), then snapshots the tree as it is (a `pre-restore` snapshot under
the run's id: the work set aside, nothing deleted), then writes and verifies. Here it is first
run dry: a path it would skip (a submodule) or any proof that fails means it declines, and
the tree is left exactly as it was. The failure mode is "it did not fire", never "it left a
broken tree".
"""

from __future__ import annotations

from dataclasses import dataclass

from interlock.errors import InterlockError
from interlock.git import RepoLocation
from interlock.memory.catalog import SnapshotInfo
from interlock.memory.restore import restore_snapshot
from interlock.memory.scan import display_path
from interlock.memory.snapshot import list_snapshots, resolve_snapshot
from interlock.run.records import Run


@dataclass(frozen=True)
class Rollback:
    """What a rollback did: the point restored, the snapshot the work was set aside in, the
    paths it wrote and deleted; or why it declined (nothing changed)."""

    point: SnapshotInfo | None
    set_aside: SnapshotInfo | None = None
    written: int = 0
    deleted: int = 0
    declined: str | None = None
    mismatches: tuple[str, ...] = ()

    @property
    def done(self) -> bool:
        return self.declined is None and self.set_aside is not None


def rollback_point(loc: RepoLocation, run: Run, green_only: bool = False) -> SnapshotInfo | None:
    """The run's newest green point, else (unless green_only) its baseline."""
    greens = [s for s in list_snapshots(loc, kind="green") if s.run == run.id]
    if greens:
        return greens[0]
    if green_only or not run.baseline:
        return None
    try:
        return resolve_snapshot(loc, run.baseline)
    except InterlockError:
        return None


def roll_back(loc: RepoLocation, run: Run, point: SnapshotInfo) -> Rollback:
    """Set the tree's work aside and restore `point`, or decline (see the module docstring)."""
    try:
        plan = restore_snapshot(loc, point, dry_run=True, run=run.id)
    except InterlockError as exc:
        return Rollback(point, declined=str(exc))
    if plan.skipped:
        shown = ", ".join(display_path(p) for p in plan.skipped[:3])
        return Rollback(point, declined=f"{len(plan.skipped)} path(s) cannot be restored ({shown})")
    if not plan.written and not plan.deleted:
        return Rollback(point, declined=f"the tree already is {point.kind} point {point.id}")
    try:
        done = restore_snapshot(loc, point, run=run.id)
    except InterlockError as exc:  # the restore rolls itself back, or names the snapshot
        return Rollback(point, declined=str(exc))
    return Rollback(
        point,
        set_aside=done.pre_restore,
        written=len(done.written),
        deleted=len(done.deleted),
        mismatches=tuple(display_path(p) for p in done.mismatches),
    )
