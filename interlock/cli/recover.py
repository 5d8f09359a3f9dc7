"""`interlock recover PATH`."""

from __future__ import annotations

import click

from interlock.cli import cli, cwd_option, json_option
from interlock.commands import recover as commands


@cli.command(name="recover")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--ref",
    "ref",
    metavar="NAME",
    default=None,
    help="Recreate a deleted or rewound branch from its kept tip (see `interlock lost`).",
)
@click.option("--list", "list_only", is_flag=True, help="List what would come back; write nothing.")
@click.option(
    "--at",
    "at",
    metavar="TIME",
    default=None,
    help="The version at or just before TIME: 10m (or -10m), 2h, 14:30 or an ISO time.",
)
@click.option(
    "--since",
    "since",
    metavar="TIME",
    default=None,
    help="Everything lost since TIME (10m, 2h, 14:30...): files deleted or put back to "
    "git's content whose recorded content differs.",
)
@json_option
@cwd_option
def recover_command(
    paths: tuple[str, ...],
    ref: str | None,
    list_only: bool,
    at: str | None,
    since: str | None,
    as_json: bool,
    cwd: str | None,
) -> int:
    """Bring back earlier versions of files, from the recorder or a snapshot.

    The daemon's flight recorder keeps every version of every changed file it sees, so
    content destroyed by anything - even `git checkout -- .` typed outside interlock - can
    come back. For a FILE, writes the newest version that differs from the file now (with
    --at, the version of that time). For a DIRECTORY, brings back every file under it whose
    content was lost: deleted, or put back to what git has (checkout, reset, restore, stash).
    --since TIME does that for the whole worktree (or the DIRECTORIES given), limited to what
    changed since TIME: "what did I just lose". Several paths come back in one call.

    Before anything is overwritten, one pre-restore snapshot holds those files as they are
    (`interlock undo` puts them back): nothing is lost. Works without the daemon, and starts
    it. Says when the recorder was not running during the time asked about.

    With --ref NAME, recreates a branch that was deleted or moved backwards from the tip
    interlock kept (`interlock lost` lists them); an existing name is never overwritten.

    \b
    Example:
      interlock recover --since 10m
      interlock recover --since 1h src/ --list
      interlock recover src/app.py src/util.py
      interlock recover src/app.py --list
      interlock recover src/app.py --at -10m
      interlock recover notes.txt --at 14:30
      interlock recover --ref feature
    """
    if ref is not None:
        if paths or list_only or at is not None or since is not None:
            raise click.UsageError("--ref recovers a branch; give no PATH, --list, --at or --since")
        from interlock.commands import hooks as lost_commands  # only here: it loads much

        return lost_commands.lost_restore(cwd, ref)
    if since is not None and at is not None:
        raise click.UsageError(
            "--since lists what was lost since then; --at picks a moment: use one"
        )
    if not paths and since is None:
        raise click.UsageError(
            "give the PATH of a file or directory, --since TIME for everything lost, "
            "or --ref NAME for a branch"
        )
    if (
        list_only
        and since is None
        and at is None
        and all(not _looks_like_dir(p, cwd) for p in paths)
    ):
        return commands.list_versions(list(paths), cwd, as_json)
    return commands.recover(list(paths), cwd, at, since, list_only, as_json)


def _looks_like_dir(path: str, cwd: str | None) -> bool:
    import os

    full = os.path.join(cwd or os.getcwd(), path)
    return os.path.isdir(full) and not os.path.islink(full)
