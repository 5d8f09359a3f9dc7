"""`interlock snapshot|snapshots|diff|restore|undo|gc`: plain functions returning exit codes.

`diff` and `restore` go through the warm daemon when it is up (it has the engine loaded and
knows which paths changed), and work inline otherwise; the output is the same either way.
`snapshot` is answered by the hot client (interlock/__main__.py) when the daemon is up, so
what reaches `snapshot()` here runs inline.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from interlock import constants, exitcodes, output
from interlock.commands.snaptake import snapshot as snapshot  # `interlock snapshot`, kept light
from interlock.daemon import client
from interlock.daemon.hotclient import build_stamp
from interlock.errors import DaemonError, InterlockError
from interlock.git import EXEC_MODE, LINK_MODE, Entry, RepoLocation, open_repo, require_repo
from interlock.memory.catalog import SnapshotInfo, iso_time
from interlock.memory.rechistory import Policy, prune_index
from interlock.memory.recovery import lost
from interlock.memory.restore import last_undo_point, restore_snapshot, undo
from interlock.memory.retention import gc
from interlock.memory.scan import display_path
from interlock.memory.snapshot import (
    diff_snapshot,
    list_snapshots,
    resolve_snapshot,
)
from interlock.memory.trees import Change, lookup


def _run_id() -> str | None:
    return os.environ.get(constants.ENV_RUN) or None


def _warm(loc: RepoLocation, op: str, **fields: Any) -> dict[str, Any] | None:
    """The warm daemon's answer to `op`, or None: do it inline. A refusal the inline path
    would give too (an unknown snapshot...) is raised as the same InterlockError."""
    if client.daemon_disabled():
        return None
    try:
        reply = client.call(loc, op, build=build_stamp(), **fields)
    except DaemonError:  # an unusable socket, another build, a bug there: inline
        return None
    if reply is None:
        client.ensure_daemon(loc)
    return reply


def _short_time(info: SnapshotInfo) -> str:
    return iso_time(info.time)[:19].replace("T", " ") + "Z"


def snapshots(cwd: str | None, kind: str | None, limit: int | None, as_json: bool) -> int:
    loc = require_repo(cwd)
    found = list_snapshots(loc, kind=kind, limit=limit)
    if as_json:
        output.write_json([s.to_json() for s in found])
        return exitcodes.OK
    if not found:
        output.write_out("interlock: no snapshots yet (take one: interlock snapshot -m MESSAGE)")
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


def _changes_of(reply: dict[str, Any]) -> list[Change]:
    def entry(raw: dict[str, str] | None) -> Entry | None:
        return None if raw is None else (int(raw["mode"], 8), raw["blob"])

    return [Change(os.fsencode(c["path"]), entry(c["old"]), entry(c["new"])) for c in reply["diff"]]


def diff(cwd: str | None, ref: str | None, as_json: bool) -> int:
    loc = require_repo(cwd)
    if ref is None or ref in ("green", "baseline"):  # inside a run: the run's own snapshots
        from interlock.run.session import run_snapshot  # only when a default is read

        ref = run_snapshot(loc, ref or "green") or ref
    reply = _warm(loc, "diff", ref=ref or "green")
    if reply is not None:
        _print_stderr(reply)
        snap_id, snap_kind = reply["snapshot"]["id"], reply["snapshot"]["kind"]
        changes = _changes_of(reply)
    else:
        info = resolve_snapshot(loc, ref or "green")
        snap_id, snap_kind = info.id, info.kind
        changes = diff_snapshot(loc, info)
    if as_json:
        output.write_json(
            {
                "snapshot": snap_id,
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
        output.write_out(f"interlock: no changes since snapshot {snap_id} ({snap_kind})")
    return exitcodes.OK


def _report_restore(result: dict[str, Any], kind: str, as_json: bool, verb: str) -> int:
    """Print a restore's result (RestoreResult.to_json(), from here or from the daemon)."""
    if as_json:
        output.write_json(result)
    else:
        target = f"{result['snapshot']} ({kind})"
        counts = f"{len(result['written'])} to write, {len(result['deleted'])} to delete"
        if result["dry_run"]:
            nothing = not (result["written"] or result["deleted"])
            output.write_out(
                f"interlock: would {verb} {target}: " + ("nothing to change" if nothing else counts)
            )
        elif result["pre_restore"] is not None:
            output.write_out(
                f"interlock: {verb}d {target}: {len(result['written'])} written, "
                f"{len(result['deleted'])} deleted; the state before is snapshot "
                f"{result['pre_restore']} (undo: interlock undo)"
            )
        for path in result["written"]:
            output.write_out(f"  write   {path}")
        for path in result["deleted"]:
            output.write_out(f"  delete  {path}")
        for path in result["kept"]:
            output.write_out(f"  keep    {path}  (ignored, not in the snapshot)")
        for path in result["skipped"]:
            output.write_out(f"  skip    {path}  (submodule)")
    mismatches = result["mismatches"]
    if mismatches:
        shown = ", ".join(mismatches[:5])
        output.error(
            f"after the {verb}, {len(mismatches)} path(s) do not match the snapshot: {shown}",
            hint="something changed them meanwhile; compare with: interlock diff "
            + result["snapshot"],
        )
        return exitcodes.ERROR
    return exitcodes.OK


def restore(cwd: str | None, ref: str, paths: tuple[str, ...], dry_run: bool, as_json: bool) -> int:
    loc = require_repo(cwd)
    base = Path(cwd or os.getcwd()).resolve()
    absolute = [os.path.join(base, p) for p in paths] if paths else None
    reply = _warm(loc, "restore", ref=ref, paths=absolute, dry_run=dry_run, run=_run_id())
    if reply is not None:
        _print_stderr(reply)
        return _report_restore(reply["restore"], reply["kind"], as_json, "restore")
    result = restore_snapshot(loc, ref, absolute, dry_run=dry_run, run=_run_id())
    return _report_restore(result.to_json(), result.snapshot.kind, as_json, "restore")


def _print_stderr(reply: dict[str, Any]) -> None:
    """What the daemon's operation wrote to stderr (warnings), as inline would have."""
    text = reply.get("stderr")
    if isinstance(text, str) and text:
        output.write_err(text.removesuffix("\n"))


def _ago(seconds: float) -> str:
    """`10m` / `3h`: a length recover's --since reads."""
    minutes = max(1, int(max(0.0, seconds) // 60))
    return f"{minutes}m" if minutes < 120 else f"{minutes // 60}h"


def _when(seconds: float) -> str:
    """`just now`, `5m ago`, `3h ago`: for people."""
    return "just now" if seconds < 60 else f"{_ago(seconds)} ago"


def undo_last(cwd: str | None, dry_run: bool, as_json: bool, force: bool = False) -> int:
    """Say what the undo puts back, then do it; refuse when files were lost since the last
    restore or discard interlock made (that undo would not bring them back)."""
    loc = require_repo(cwd)
    point = last_undo_point(loc)
    if point is not None and not force:
        repo = open_repo(loc)
        gone = [  # what the undo itself would not put back
            p
            for p in lost(loc, [b""], point.time)
            if (lookup(repo, point.tree, p.path) or (0, ""))[1] != p.version.oid
        ]
        if gone:
            shown = ", ".join(display_path(p.path) for p in gone[:5])
            since = _ago(time.time() - point.time + 60)
            raise InterlockError(
                f"{len(gone)} file(s) were lost after interlock's last restore or discard "
                f"({point.id}, {_when(time.time() - point.time)}), by a command interlock did "
                f"not run: {shown}. undo would put back that earlier state, not these files",
                hint=f"bring them back: interlock recover --since {since}   "
                "(or undo the earlier restore anyway: interlock undo --force)",
            )
    preview = undo(loc, dry_run=True, run=_run_id())
    if not as_json and not dry_run:
        when = _when(time.time() - preview.snapshot.time)
        what = preview.snapshot.message or "the state before the last restore"
        output.write_out(
            f"interlock: undo puts back {preview.snapshot.id} ({what}, {when}): "
            f"{len(preview.written)} to write, {len(preview.deleted)} to delete"
        )
    if dry_run:
        return _report_restore(preview.to_json(), preview.snapshot.kind, as_json, "restore")
    result = undo(loc, dry_run=False, run=_run_id())
    return _report_restore(result.to_json(), result.snapshot.kind, as_json, "restore")


def collect(cwd: str | None, dry_run: bool, as_json: bool) -> int:
    loc = require_repo(cwd)
    pruned = None
    if not dry_run and not client.is_daemon_locked(loc):  # a running daemon prunes itself
        pruned = prune_index(loc)
    result = gc(loc, dry_run=dry_run)
    if as_json:
        recorder = None if pruned is None else {"versions": pruned.versions, "refs": pruned.refs}
        output.write_json({**result.to_json(), "recorder_pruned": recorder})
        return exitcodes.OK
    verb = "would drop" if dry_run else "dropped"
    counts = ", ".join(f"{k} {n}" for k, n in result.by_kind().items())
    refs = "1 snapshot ref" if len(result.dropped) == 1 else f"{len(result.dropped)} snapshot refs"
    output.write_out(
        f"interlock: {verb} {refs}" + (f" ({counts})" if counts else "") + f"; kept {result.kept}"
    )
    for item in result.dropped:
        output.write_out(
            f"  {verb} {item.info.id} ({item.info.kind}, {item.worktree}): {item.reason}"
        )
    if pruned is not None and (pruned.versions or pruned.refs):
        output.write_out(
            f"  recorder: dropped {_count(pruned.versions, 'old version')} under its policy "
            f"({Policy.of(loc).describe()})"
        )
    output.write_out(
        "  objects are not pruned here: git gc removes unreachable ones after gc.pruneExpire "
        "(2 weeks by default)"
    )
    return exitcodes.OK


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
