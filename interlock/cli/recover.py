"""`interlock recover PATH`."""

from __future__ import annotations

import click

from interlock.cli import cli, cwd_option, json_option
from interlock.commands import hooks as lost_commands
from interlock.commands import recover as commands


@cli.command(name="recover")
@click.argument("path", type=click.Path(), required=False)
@click.option(
    "--ref",
    "ref",
    metavar="NAME",
    default=None,
    help="Recreate a deleted or rewound branch from its kept tip (see `interlock lost`).",
)
@click.option("--list", "list_only", is_flag=True, help="List the versions; write nothing.")
@click.option(
    "--at",
    "at",
    metavar="TIME",
    default=None,
    help="The version at or just before TIME: -10m, -2h, 14:30 or an ISO time.",
)
@json_option
@cwd_option
def recover_command(
    path: str | None,
    ref: str | None,
    list_only: bool,
    at: str | None,
    as_json: bool,
    cwd: str | None,
) -> int:
    """Bring back an earlier version of one file, from the recorder or a snapshot.

    The daemon's flight recorder keeps every version of every changed file it sees, so
    content destroyed by anything - even `git checkout -- .` typed outside interlock - can
    come back. Without --at, writes the newest version that differs from the file now.
    When the file exists with other content, the tree is snapshotted first and the message
    says how to get it back: nothing is lost. Works without the daemon running.

    With --ref NAME, recreates a branch that was deleted or moved backwards from the tip
    interlock kept (`interlock lost` lists them); an existing name is never overwritten.

    \b
    Example:
      interlock recover src/app.py --list
      interlock recover src/app.py
      interlock recover src/app.py --at -10m
      interlock recover notes.txt --at 14:30
      interlock recover --ref feature
    """
    if ref is not None:
        if path is not None or list_only or at is not None:
            raise click.UsageError("--ref recovers a branch; give no PATH, --list or --at")
        return lost_commands.lost_restore(cwd, ref)
    if path is None:
        raise click.UsageError("give the PATH of a file to recover, or --ref NAME for a branch")
    if list_only:
        if at is not None:
            raise click.UsageError("--list shows every version; drop --at")
        return commands.list_versions(path, cwd, as_json)
    return commands.recover(path, cwd, at, as_json)
