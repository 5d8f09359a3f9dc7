"""`interlock runs`, `log`, `status`, `done`, `run start|end|reconcile`."""

from __future__ import annotations

import click

from interlock.cli import cli, cwd_option, json_option


@cli.command(name="runs")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="At most N, newest first.")
@json_option
@cwd_option
def runs_list(limit: int | None, as_json: bool, cwd: str | None) -> int:
    """List this worktree's runs, newest first: id, start, state, who, commands, greens.

    A run is one agent session: it starts on the first command through interlock-sh (or with
    `interlock run start`) with a baseline snapshot, and keeps the config of that moment.
    State: live (its agent still runs, or a command came in the last 30 minutes), open, ended.

    \b
    Example:
      interlock runs
      interlock runs --limit 5 --json
    """
    from interlock.commands import runs as commands

    return commands.runs(cwd, limit, as_json)


@cli.command(name="log")
@click.option(
    "--run", "run_id", default=None, metavar="ID", help="This run (default: the current one)."
)
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the last N commands.")
@json_option
@cwd_option
def runs_log(run_id: str | None, limit: int | None, as_json: bool, cwd: str | None) -> int:
    """Show what a run did, in order: each command, its verdict, how it ended, its outcome.

    One line per command: id, time (UTC), verdict (allow, warn, block), exit status or
    state, duration, the command, then the findings and the outcome (tests passed and
    failed, the failing tests, a green snapshot or why not). A command run by a nested
    wrapper (a `$SHELL -c` inside another command) is indented under it. `running`: its
    wrapper still runs; `unresolved`: the wrapper died before recording how it ended (a
    repeated push or publish waits until it is reconciled). --json prints {"run",
    "attempts": [{"id", "command", "verdict", "would_block", "state", "findings",
    "validators", "completion": {"exit", "outcome", "green", ...}}]}.

    \b
    Example:
      interlock log
      interlock log --run r-20261201-101500-3fa2 --json
    """
    from interlock.commands import runs as commands

    return commands.log(cwd, run_id, limit, as_json)


@cli.command(name="status")
@json_option
@cwd_option
def runs_status(as_json: bool, cwd: str | None) -> int:
    """Show this worktree at a glance: mode, run, daemon, last green, unresolved attempts.

    The mode is the current run's (frozen at its baseline), else the config's. The last
    green is the newest green snapshot (the run's own first), with how many paths changed
    since it.

    \b
    Example:
      interlock status
      interlock status --json
    """
    from interlock.commands import status as commands

    return commands.status(cwd, as_json)


@cli.command(name="done")
@json_option
@cwd_option
def runs_done(as_json: bool, cwd: str | None) -> int:
    """Check the run's work before calling it finished: is the tree verified green?

    Verified green: a green snapshot (a full-suite pass, unmasked, with tests run, and no
    validator weakened since the baseline) holds exactly the tree now. Otherwise it says
    what is missing: only fast checks passed on this tree (run the full suite), or nothing
    passed since the last edit. Exit 0 when verified, and always with verification_tiers off
    or advisory; 126 in blocking mode when not verified.

    \b
    Example:
      interlock done
    """
    from interlock.commands import status as commands

    return commands.done(cwd, as_json)


@cli.group(name="run")
def run_group() -> None:
    """Start, end and settle runs (a person's commands: refused from inside a run).

    \b
    Example:
      interlock run start --id fix-login
      interlock run reconcile 42 --landed
    """


@run_group.command(name="start")
@click.option(
    "--id", "run_id", default=None, metavar="ID", help="Name the run (default: r-TIME-XXXX)."
)
@json_option
@cwd_option
def run_start(run_id: str | None, as_json: bool, cwd: str | None) -> int:
    """End every open run of this worktree and start a new one, now.

    Takes the baseline snapshot: what is unsaved now is pre-run work the run may not
    discard. The config (.interlock.toml, [tool.interlock], INTERLOCK_MODE) is read now and
    frozen for the run: editing or deleting it later changes nothing until a person starts
    another run. Every command through interlock-sh without INTERLOCK_RUN joins this run.

    \b
    Example:
      interlock run start
      interlock run start --id fix-login --json
    """
    from interlock.commands import runs as commands

    return commands.run_start(cwd, run_id, as_json)


@run_group.command(name="end")
@click.option(
    "--id", "run_id", default=None, metavar="ID", help="Only this run (default: all open)."
)
@cwd_option
def run_end(run_id: str | None, cwd: str | None) -> int:
    """End the open runs of this worktree (the next command starts a new one).

    \b
    Example:
      interlock run end
    """
    from interlock.commands import runs as commands

    return commands.run_end(cwd, run_id)


@run_group.command(name="reconcile")
@click.argument("attempt", type=int)
@click.option("--landed/--not-landed", required=True, help="Whether the side effect happened.")
@cwd_option
def run_reconcile(attempt: int, landed: bool, cwd: str | None) -> int:
    """Say whether an unresolved push or publish happened, so a repeat may run.

    interlock settles a cut-off `git push` itself with `git ls-remote` when it can; a
    publish, or a remote it cannot reach, waits for a person to check and say.

    \b
    Example:
      interlock run reconcile 42 --landed
    """
    from interlock.commands import runs as commands

    return commands.reconcile(cwd, attempt, landed)
