"""`interlock integrate` and `interlock doctor`."""

from __future__ import annotations

import click

from interlock.cli import cli, cwd_option, json_option


@cli.command(name="integrate")
@click.argument("target", type=click.Choice(["claude-code", "codex", "gemini", "shell"]))
@click.option(
    "--project",
    "scope",
    flag_value="project",
    help="This repository's settings (the default inside one).",
)
@click.option(
    "--local",
    "scope",
    flag_value="local",
    help="Claude Code only: .claude/settings.local.json (not committed).",
)
@click.option("--user", "scope", flag_value="user", help="Your user settings (every project).")
@click.option(
    "--bash",
    "shell_kind",
    flag_value="bash",
    help="shell: ~/.bashrc (default unless $SHELL is zsh).",
)
@click.option("--zsh", "shell_kind", flag_value="zsh", help="shell: ~/.zshrc.")
@click.option("--remove", is_flag=True, help="Take interlock out again, exactly.")
@click.option(
    "--print", "print_only", is_flag=True, help="shell: print the line instead of writing it."
)
@cwd_option
def integrate(
    target: str,
    scope: str | None,
    shell_kind: str | None,
    remove: bool,
    print_only: bool,
    cwd: str | None,
) -> int:
    """Hook interlock into an agent (Claude Code, Codex, Gemini CLI) or your shell.

    For an agent, interlock's hooks are merged into its settings: Claude Code's
    .claude/settings.json (--local: settings.local.json; --user: ~/.claude/settings.json),
    Codex's .codex/hooks.json (--user: ~/.codex/hooks.json), Gemini CLI's
    .gemini/settings.json (--user: ~/.gemini/settings.json). Every shell command the agent
    runs is then checked first (refused in blocking mode, warned about in advisory mode;
    the run's own work is saved before it is discarded), its outcome is journaled and can
    make the tree green, a file edit that would weaken a test or switch interlock off is
    judged before it lands, and the agent is held once at the end of its turn when the work
    is not verified green. Hooks of others are never changed; --remove puts the file back
    byte for byte (or removes it again when interlock created it). A settings file that is
    not valid JSON is refused, never overwritten. Codex runs the hooks only once you trust
    them in its /hooks.

    `shell` adds one line to ~/.bashrc (or ~/.zshrc) that sources the advisory shell: before
    each command you type, a warning for a discard, a masked validator or a self-disabling
    command, after saving what a discard would lose (interlock undo brings it back). It
    never refuses a command.

    \b
    Example:
      interlock integrate claude-code
      interlock integrate codex --user
      interlock integrate gemini --remove
      interlock integrate shell --zsh
      interlock integrate shell --print
    """
    from interlock.commands import integrate as commands

    if target == "shell":
        return commands.integrate_shell(shell_kind, remove, print_only)
    return commands.integrate_agent(target, scope, cwd, remove)


@cli.command(name="doctor")
@json_option
@cwd_option
def doctor(as_json: bool, cwd: str | None) -> int:
    """Check this installation: what is installed where, and what is wrong, with fixes.

    Reports the interlock in use, the repository's git hooks (in every worktree, and a
    core.hooksPath another tool set), the daemon (running, down, a stale pid file), the
    mode and the last green point, config warnings, and the agent integrations and shell
    line found. Each problem comes with the command that fixes it. Exit 0 when nothing is
    wrong, 1 when something is.

    \b
    Example:
      interlock doctor
      interlock doctor --json
    """
    from interlock.commands import doctor as commands

    return commands.doctor(cwd, as_json)
