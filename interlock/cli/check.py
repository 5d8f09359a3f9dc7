"""`interlock check` and `interlock explain`."""

from __future__ import annotations

import click

from interlock import exitcodes, output
from interlock.cli import cli, cwd_option, json_option
from interlock.commands import check as commands
from interlock.commands import explain as explain_commands
from interlock.config import MODES


@cli.command(
    name="check",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@json_option
@click.option(
    "--mode", type=click.Choice(MODES), default=None, help="Override the configured mode."
)
@click.option(
    "--assume-dirty",
    is_flag=True,
    help="Judge the text alone (e.g. for corpora): every target holds unsaved work, and a write "
    "that may be creating its file is no discard.",
)
@click.option(
    "--batch", is_flag=True, help="Read one command per line from stdin; one result per line."
)
@click.option(
    "--json-lines-in",
    is_flag=True,
    help="With --batch: each stdin line is a JSON string (for commands containing newlines).",
)
@cwd_option
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def check_command(
    as_json: bool,
    mode: str | None,
    assume_dirty: bool,
    batch: bool,
    json_lines_in: bool,
    cwd: str | None,
    command: tuple[str, ...],
) -> int:
    """Say what interlock would do with a command line, without running it.

    Exit status 126 when the command would be blocked (in the effective mode), else 0.
    Blocking mode refuses discards, self-disable, unknown code and validators whose pass is
    forged (`|| true`, `--exit-zero`, `jest -u`, `-k 'not x'`); it warns on validators whose
    status is only hidden (`| tail`, `; echo done`) or that look at part of the suite: they
    run, and are never credited as green. With --json prints {command, verdict, would_block,
    parse, findings, validators}: would_block says whether blocking mode would refuse it,
    whatever the mode; each finding has a severity (block or warn).

    \b
    Example:
      interlock check "cd sub && git checkout -- ."
      interlock check --json --mode blocking "pytest || true"
      interlock check --batch --json < commands.txt
    """
    if batch:
        if command:
            raise click.UsageError("--batch reads commands from stdin; give no COMMAND")
        return commands.batch(cwd, mode, assume_dirty, as_json, json_lines_in)
    if json_lines_in:
        raise click.UsageError("--json-lines-in only applies with --batch")
    if not " ".join(command).strip():
        raise click.UsageError(
            'give the command line to check, e.g. interlock check "git reset --hard"'
        )
    return commands.check(" ".join(command), cwd, mode, assume_dirty, as_json)


@cli.command(name="explain")
@json_option
@click.argument("rule_id", required=False)
def explain_command(as_json: bool, rule_id: str | None) -> int:
    """Explain a rule: what it catches, why it matters, what to do instead.

    Without RULE_ID, list every rule.

    \b
    Example:
      interlock explain git.reset-hard
      interlock explain
    """
    if rule_id is None:
        return explain_commands.list_rules(as_json)
    code = explain_commands.explain(rule_id, as_json)
    if code != exitcodes.OK:
        output.error(f"no rule named {rule_id!r}", "list them with: interlock explain")
    return code
