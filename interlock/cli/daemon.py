"""`interlock daemon ...`."""

from __future__ import annotations

import click

from interlock.cli import cli, cwd_option, json_option
from interlock.commands import daemon as commands


@cli.group(name="daemon")
def daemon_group() -> None:
    """Run, stop and inspect this worktree's daemon.

    The daemon watches the worktree so that snapshots cost only the changed paths, records
    every changed file so `interlock recover` can bring it back, and answers checks warm.
    Front doors (`interlock check`) start it on demand; it exits after INTERLOCK_DAEMON_IDLE
    seconds (default 1800) without activity. Nothing depends on it: without it, interlock works
    inline, only slower. INTERLOCK_NO_DAEMON=1 keeps front doors from starting it.
    """


@daemon_group.command(name="start")
@json_option
@cwd_option
def daemon_start(as_json: bool, cwd: str | None) -> int:
    """Start the daemon for this worktree and wait until it answers.

    \b
    Example:
      interlock daemon start
    """
    return commands.start(cwd, as_json)


@daemon_group.command(name="stop")
@json_option
@cwd_option
def daemon_stop(as_json: bool, cwd: str | None) -> int:
    """Stop the daemon: it records what is pending first. Exit 0 if it was not running.

    \b
    Example:
      interlock daemon stop
    """
    return commands.stop(cwd, as_json)


@daemon_group.command(name="status")
@json_option
@cwd_option
def daemon_status(as_json: bool, cwd: str | None) -> int:
    """Show pid, uptime, watched directories, dirty paths, memory and the last snapshot.

    \b
    Example:
      interlock daemon status
      interlock daemon status --json
    """
    return commands.status(cwd, as_json)


@daemon_group.command(name="path")
@json_option
@cwd_option
def daemon_path(as_json: bool, cwd: str | None) -> int:
    """Print the directory holding the daemon's socket, pid file, log and recorder index.

    \b
    Example:
      interlock daemon path
      interlock daemon path --json
    """
    return commands.path(cwd, as_json)


@daemon_group.command(name="run", hidden=True)
@cwd_option
@click.option("--idle", type=float, default=None, help="Seconds without activity before exiting.")
@click.option(
    "--service",
    is_flag=True,
    help="As the systemd user service: never exit when idle; wait for a running daemon.",
)
def daemon_run(cwd: str | None, idle: float | None, service: bool) -> int:
    """Be the daemon in the foreground (what `interlock daemon start` runs detached).

    \b
    Example:
      interlock daemon run --idle 600
      interlock daemon run --service
    """
    return commands.run(cwd, idle, service)
