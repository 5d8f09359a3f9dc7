"""`interlock snapshot`, `snapshots`, `diff`, `restore`, `undo`, `gc`."""

from __future__ import annotations

import click

from interlock.cli import cli, cwd_option, json_option
from interlock.commands import snapshot as commands
from interlock.memory.catalog import KINDS


@cli.command(name="snapshot")
@click.option("-m", "--message", default=None, help="Say why; shown by `interlock snapshots`.")
@click.option("--kind", type=click.Choice(KINDS), default="manual", show_default=True)
@json_option
@cwd_option
def snapshot_take(message: str | None, kind: str, as_json: bool, cwd: str | None) -> int:
    """Save the whole worktree as a snapshot, without touching files, index or HEAD.

    Holds tracked files, untracked files git does not ignore, and small hand-made ignored
    files such as .env (not build output or caches). Prints the id, the kind, how many
    files differ from HEAD and the time taken; --json prints an object with at least `id`.

    \b
    Example:
      interlock snapshot -m "before refactor"
      interlock snapshot --json
    """
    return commands.snapshot(cwd, message, kind, as_json)


@cli.command(name="snapshots")
@click.option("--kind", type=click.Choice(KINDS), default=None, help="Only this kind.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="At most N, newest first.")
@json_option
@cwd_option
def snapshot_list(kind: str | None, limit: int | None, as_json: bool, cwd: str | None) -> int:
    """List this worktree's snapshots, newest first: id, time (UTC), kind, run, message.

    \b
    Example:
      interlock snapshots
      interlock snapshots --kind green --limit 5 --json
    """
    return commands.snapshots(cwd, kind, limit, as_json)


@cli.command(name="diff")
@click.argument("snap", required=False)
@json_option
@cwd_option
def snapshot_diff(snap: str | None, as_json: bool, cwd: str | None) -> int:
    """Show the paths changed between a snapshot (default: the last green) and the tree now.

    SNAP is an id (or a prefix of 4+ hex digits), `latest`, `green`, `baseline` or another
    kind. Inside an open run, `green` (the default) is the run's last green point, else its
    baseline, and `baseline` the run's baseline. Letters: A added, D deleted, M modified,
    X mode changed, T type changed.

    \b
    Example:
      interlock diff
      interlock diff 3f2a9c1b0d4e --json
    """
    return commands.diff(cwd, snap, as_json)


@cli.command(name="restore")
@click.argument("snap")
@click.option("--paths", "paths_flag", is_flag=True, help="Restore only the PATHS that follow.")
@click.option("--dry-run", is_flag=True, help="Say what would change; change nothing.")
@json_option
@cwd_option
@click.argument("paths", nargs=-1, type=click.Path())
def snapshot_restore(
    snap: str,
    paths_flag: bool,
    dry_run: bool,
    as_json: bool,
    cwd: str | None,
    paths: tuple[str, ...],
) -> int:
    """Make the worktree (or only some paths) match a snapshot, exactly.

    First proves every file can be restored, or changes nothing. Saves the current state as
    a pre-restore snapshot, writes files atomically with their modes and symlinks, removes
    files made since the snapshot (ignored ones such as .env are kept), then verifies the
    bytes. Never touches the index, HEAD or branches. Undo with `interlock undo`.

    \b
    Example:
      interlock restore 3f2a9c1b0d4e
      interlock restore green --paths src/app.py tests/ --dry-run
    """
    if paths_flag and not paths:
        raise click.UsageError("--paths needs at least one path")
    return commands.restore(cwd, snap, paths, dry_run, as_json)


@cli.command(name="undo")
@click.option("--dry-run", is_flag=True, help="Say what would change; change nothing.")
@click.option(
    "--force", is_flag=True, help="Undo the last restore even though files were lost since."
)
@json_option
@cwd_option
def snapshot_undo(dry_run: bool, as_json: bool, force: bool, cwd: str | None) -> int:
    """Put back the state from just before the last restore or discard interlock made.

    Says what it puts back before doing so. An undo is itself a restore, so a second undo
    redoes what the first one undid. When files were lost after that restore by a command
    interlock did not run (`git checkout -- .` in another terminal), it refuses and points
    to `interlock recover --since`, which brings those back.

    \b
    Example:
      interlock undo
      interlock undo --dry-run --json
    """
    return commands.undo_last(cwd, dry_run, as_json, force)


@cli.command(name="gc")
@click.option("--dry-run", is_flag=True, help="Say what would be dropped; drop nothing.")
@json_option
@cwd_option
def snapshot_gc(dry_run: bool, as_json: bool, cwd: str | None) -> int:
    """Drop snapshot refs the retention policy no longer keeps, in one ref transaction.

    Keeps every green of the last 20 runs, pre-discard and pre-restore snapshots for 14
    days, recorder refs for 7 days (within a size budget), and manual and baseline snapshots
    until you delete them. Does not prune objects: git gc does that later.

    \b
    Example:
      interlock gc --dry-run
      interlock gc --json
    """
    return commands.collect(cwd, dry_run, as_json)
