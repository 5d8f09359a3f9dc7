"""The run monitor's commands: `monitor classify`, `turn`, `handoff`, `todo add|done|list`,
`pause`, `resume`, `stop`."""

from __future__ import annotations

import click

from interlock.cli import cli, cwd_option, json_option


@cli.group(name="monitor")
def monitor_group() -> None:
    """The run monitor's tools for harnesses and tests.

    The monitor watches each run from interlock's own records (commands, outcomes,
    snapshots) and says when it is stuck ([stuck]), stalled ([stall]) or near its turn
    budget ([budget]); it steps back once, then stops with a handoff ([handoff]).

    \b
    Example:
      interlock monitor classify --json trace.json
    """


@monitor_group.command(name="classify")
@click.argument("trace", metavar="TRACE.json", type=click.Path(dir_okay=False, allow_dash=True))
@json_option
def monitor_classify(trace: str, as_json: bool) -> int:
    """Run the stuck detector on recorded attempts: running, stuck_environment, stuck_search.

    TRACE is {"records": [...], "config": {...}} (or one such object per line; `-` reads
    stdin). A record: step, last_call, last_error, exit, patch_lines, patch_distance (how
    much the patch changed since the previous record, 0 = no edit), tool_calls,
    tool_errors, failing (test ids), metrics, experiment, and optionally config (a per-step
    override from that record on) and duration (seconds). Settings: the defaults, then the
    trace's config, then per-step configs. stuck_environment: the last repeat_threshold
    counted records failed with the same call and normalised error (or were each
    tool-error dominated) with no edit between. stuck_search: flat_attempts material
    attempts left the same failing set, unless monotone_metric kept falling. The first
    experiment_cap experiment records are not counted. --json prints {"status", "reason"}
    per trace.

    \b
    Example:
      interlock monitor classify --json trace.json
      interlock monitor classify traces.jsonl
    """
    from interlock.commands import monitor as commands

    return commands.classify(trace, as_json)


@cli.command(name="turn")
@click.option(
    "--step", default=None, metavar="NAME", help="Name the step the next attempts belong to."
)
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=VALUE",
    help="A stuck-detector setting from the next attempt on (repeatable).",
)
@click.option("--experiment", is_flag=True, help="Mark the next attempt an experiment.")
@click.option("--failed", is_flag=True, help="This turn was a failed tool call.")
@click.option("--no-count", "no_count", is_flag=True, help="Only mark; count no turn.")
@cwd_option
def monitor_turn(
    step: str | None,
    sets: tuple[str, ...],
    experiment: bool,
    failed: bool,
    no_count: bool,
    cwd: str | None,
) -> int:
    """Count a turn of the current run that was no shell command (a harness's tool call).

    Commands through interlock-sh count themselves; a harness calls this for its agent's
    other turns (a file edit through its own tool: --failed when it failed), so stalls,
    the budget and tool errors see them. It prints the monitor's messages for the agent on
    stderr, and exits 126 when the run was stopped. A harness also marks what comes next:
    the step (--step), a per-step setting of the stuck detector (--set, e.g. a step that
    waits for a service raises repeat_threshold), an experiment the detector does not
    count (--experiment; the first experiment_cap of a run). --set and --experiment are
    refused from inside the run's own commands.

    \b
    Example:
      interlock turn
      interlock turn --failed
      interlock turn --no-count --step start-es --set repeat_threshold=6
    """
    from interlock.commands import monitor as commands

    return commands.turn(cwd, not no_count, failed, step, sets, experiment)


@cli.command(name="handoff")
@click.option(
    "--run",
    "run_id",
    default=None,
    metavar="ID",
    help="This run (default: the current or last one).",
)
@json_option
@cwd_option
def monitor_handoff(run_id: str | None, as_json: bool, cwd: str | None) -> int:
    """Print the handoff of the current (or last) run, writing it first if need be.

    A run that stopped (stuck after its one recovery, an environment problem, max_turns,
    interlock stop) has the handoff written when it stopped; for a run still going, this
    writes one now. Both live in <git-dir>/interlock/handoff/RUN.md and RUN.json: why it
    stopped and the evidence, paths changed since the last green point, work set aside
    (snapshots), checks run with results, the failing set and its history, objectives
    still open, the next action.

    \b
    Example:
      interlock handoff
      interlock handoff --json --run r-20261201-101500-3fa2
    """
    from interlock.commands import monitor as commands

    return commands.show_handoff(cwd, run_id, as_json)


@cli.group(name="todo")
def todo_group() -> None:
    """The objectives board a harness, an agent or a person keeps for the work.

    Open objectives feed the handoff and the max_turns stop notice; closing one is
    progress for the stall monitor (adding one is planning). One board per worktree,
    across runs.

    \b
    Example:
      interlock todo add "parse RFC 2822 dates"
      interlock todo done 1
      interlock todo list
    """


@todo_group.command(name="add")
@click.argument("text", nargs=-1, required=True)
@json_option
@cwd_option
def todo_add(text: tuple[str, ...], as_json: bool, cwd: str | None) -> int:
    """Add an objective to the board (from outside a run: a person's, new information).

    \b
    Example:
      interlock todo add migrate the CSV reader
    """
    from interlock.commands import todo as commands

    return commands.todo_add(cwd, " ".join(text), as_json)


@todo_group.command(name="done")
@click.argument("which", metavar="ID|TEXT")
@json_option
@cwd_option
def todo_done(which: str, as_json: bool, cwd: str | None) -> int:
    """Mark an objective done, by its number or the start of its text.

    \b
    Example:
      interlock todo done 2
      interlock todo done "migrate the"
    """
    from interlock.commands import todo as commands

    return commands.todo_done(cwd, which, as_json)


@todo_group.command(name="list")
@click.option("--all", "show_all", is_flag=True, help="Also the objectives done.")
@json_option
@cwd_option
def todo_list(show_all: bool, as_json: bool, cwd: str | None) -> int:
    """List the open objectives (--all: every one), oldest first.

    \b
    Example:
      interlock todo list
      interlock todo list --all --json
    """
    from interlock.commands import todo as commands

    return commands.todo_list(cwd, show_all, as_json)


@cli.command(name="pause")
@cwd_option
def control_pause(cwd: str | None) -> int:
    """Stop new runs from starting; runs already going go on. Not a kill switch.

    While paused, a command through interlock-sh that would start a new run (a new agent,
    a new INTERLOCK_RUN) is refused with [paused]; commands of open runs run as before,
    and work in flight is not interrupted. To stop a run, use interlock stop. A person's
    command: refused from inside a run.

    \b
    Example:
      interlock pause
      interlock resume
    """
    from interlock.commands import control as commands

    return commands.pause(cwd)


@cli.command(name="resume")
@cwd_option
def control_resume(cwd: str | None) -> int:
    """Let new runs start again after interlock pause (or interlock stop).

    A stopped run stays stopped; interlock run start begins a new one.

    \b
    Example:
      interlock resume
    """
    from interlock.commands import control as commands

    return commands.resume(cwd)


@cli.command(name="stop")
@click.option(
    "--run",
    "run_id",
    default=None,
    metavar="ID",
    help="Only this run (default: every open run, and pause).",
)
@cwd_option
def control_stop(run_id: str | None, cwd: str | None) -> int:
    """The kill switch: every further command of the run is refused, in every mode.

    Stops every open run of this worktree (or --run ID) and writes each one's handoff; a
    command of a stopped run exits 126 with [handoff], nested commands too. Without --run
    it also pauses the worktree, so no new run starts until interlock resume. A person's
    command: refused from inside a run.

    \b
    Example:
      interlock stop
      interlock stop --run r-20261201-101500-3fa2
    """
    from interlock.commands import control as commands

    return commands.stop(cwd, run_id)
