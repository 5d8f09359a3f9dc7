"""`interlock snapshot|snapshots|diff|restore|undo|gc`: plain functions returning exit codes."""

from __future__ import annotations

import os
import time
from pathlib import Path

from interlock import constants, exitcodes, output
from interlock.git import EXEC_MODE, LINK_MODE, Entry, require_repo
from interlock.memory.catalog import SnapshotInfo, iso_time
from interlock.memory.restore import RestoreResult, restore_snapshot, undo
from interlock.memory.retention import gc
from interlock.memory.scan import display_path
from interlock.memory.snapshot import (
    changed_vs_head,
    diff_snapshot,
    list_snapshots,
    resolve_snapshot,
    take_snapshot,
)
from interlock.memory.trees import Change


def _run_id() -> str | None:
    return os.environ.get(constants.ENV_RUN) or None


def snapshot(cwd: str | None, message: str | None, kind: str, as_json: bool) -> int:
    loc = require_repo(cwd)
    started = time.perf_counter()
    info = take_snapshot(loc, kind=kind, message=message, run=_run_id())
    ms = round((time.perf_counter() - started) * 1000, 1)
    changed = changed_vs_head(loc, info)
    if as_json:
        output.write_json({**info.to_json(), "changed": changed, "ms": ms})
        return exitcodes.OK
    output.write_out(f"snapshot {info.id} ({info.kind}): {changed} changed vs HEAD, {ms:g} ms")
    for reason, paths in info.skipped.items():
        shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
        output.write_out(f"  skipped ({reason}): {shown}")
    return exitcodes.OK


def _short_time(info: SnapshotInfo) -> str:
    return iso_time(info.time)[:19].replace("T", " ") + "Z"


def snapshots(cwd: str | None, kind: str | None, limit: int | None, as_json: bool) -> int:
    loc = require_repo(cwd)
    found = list_snapshots(loc, kind=kind, limit=limit)
    if as_json:
        output.write_json([s.to_json() for s in found])
        return exitcodes.OK
    if not found:
        output.write_out("no snapshots yet (take one: interlock snapshot -m MESSAGE)")
        return exitcodes.OK
    rows = [
        {"id": s.id, "time": _short_time(s), "kind": s.kind, "run": s.run, "message": s.message}
        for s in found
    ]
    output.table(rows, ["id", "time", "kind", "run", "message"])
    return exitcodes.OK


def _status(change: Change) -> str:
    if change.old is None:
        return "added"
    if change.new is None:
        return "deleted"
    if (change.old[0] == LINK_MODE) != (change.new[0] == LINK_MODE):
        return "type-changed"
    if change.old[1] == change.new[1]:
        return "mode-changed"
    return "modified"


def _mode(entry: Entry | None) -> str | None:
    return f"{entry[0]:06o}" if entry is not None else None


def diff(cwd: str | None, ref: str | None, as_json: bool) -> int:
    loc = require_repo(cwd)
    if ref is None or ref in ("green", "baseline"):  # inside a run: the run's own snapshots
        from interlock.run.session import run_snapshot  # only when a default is read

        ref = run_snapshot(loc, ref or "green") or ref
    info = resolve_snapshot(loc, ref or "green")
    changes = diff_snapshot(loc, info)
    if as_json:
        output.write_json(
            {
                "snapshot": info.id,
                "changes": [
                    {
                        "path": display_path(c.path),
                        "status": _status(c),
                        "old_mode": _mode(c.old),
                        "new_mode": _mode(c.new),
                    }
                    for c in changes
                ],
            }
        )
        return exitcodes.OK
    letters = {
        "added": "A",
        "deleted": "D",
        "modified": "M",
        "mode-changed": "X",
        "type-changed": "T",
    }
    for change in changes:
        status = _status(change)
        extra = ""
        if status == "mode-changed" and change.new is not None:
            extra = (
                "  (now executable)" if change.new[0] == EXEC_MODE else "  (no longer executable)"
            )
        output.write_out(f"{letters[status]}  {display_path(change.path)}{extra}")
    if not changes:
        output.write_out(f"no changes since snapshot {info.id} ({info.kind})")
    return exitcodes.OK


def _report_restore(result: RestoreResult, as_json: bool, verb: str) -> int:
    if as_json:
        output.write_json(result.to_json())
    else:
        target = f"{result.snapshot.id} ({result.snapshot.kind})"
        if result.dry_run:
            output.write_out(f"would {verb} {target}:")
        for path in result.written:
            output.write_out(f"  write   {display_path(path)}")
        for path in result.deleted:
            output.write_out(f"  delete  {display_path(path)}")
        for path in result.kept:
            output.write_out(f"  keep    {display_path(path)}  (ignored, not in the snapshot)")
        for path in result.skipped:
            output.write_out(f"  skip    {display_path(path)}  (submodule)")
        if result.pre_restore is not None:
            output.write_out(
                f"{verb}d {target}: {len(result.written)} written, {len(result.deleted)} deleted; "
                f"the state before is snapshot {result.pre_restore.id} (undo: interlock undo)"
            )
    if result.mismatches:
        shown = ", ".join(display_path(p) for p in result.mismatches[:5])
        output.error(
            f"after the {verb}, {len(result.mismatches)} path(s) do not match the snapshot: {shown}",
            hint="something changed them meanwhile; compare with: interlock diff "
            + result.snapshot.id,
        )
        return exitcodes.ERROR
    return exitcodes.OK


def restore(cwd: str | None, ref: str, paths: tuple[str, ...], dry_run: bool, as_json: bool) -> int:
    loc = require_repo(cwd)
    base = Path(cwd or os.getcwd()).resolve()
    absolute = [os.path.join(base, p) for p in paths] if paths else None
    result = restore_snapshot(loc, ref, absolute, dry_run=dry_run, run=_run_id())
    return _report_restore(result, as_json, "restore")


def undo_last(cwd: str | None, dry_run: bool, as_json: bool) -> int:
    loc = require_repo(cwd)
    return _report_restore(undo(loc, dry_run=dry_run, run=_run_id()), as_json, "restore")


def collect(cwd: str | None, dry_run: bool, as_json: bool) -> int:
    loc = require_repo(cwd)
    result = gc(loc, dry_run=dry_run)
    if as_json:
        output.write_json(result.to_json())
        return exitcodes.OK
    for item in result.dropped:
        verb = "would drop" if dry_run else "dropped"
        output.write_out(
            f"{verb} {item.info.id} ({item.info.kind}, {item.worktree}): {item.reason}"
        )
    counts = ", ".join(f"{k} {n}" for k, n in result.by_kind().items()) or "nothing"
    output.write_out(
        f"{'would drop' if dry_run else 'dropped'} {len(result.dropped)} ref(s) ({counts}); "
        f"kept {result.kept}. Objects are not pruned here: git gc removes unreachable ones "
        "after gc.pruneExpire (2 weeks by default)."
    )
    return exitcodes.OK
